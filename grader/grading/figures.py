"""What a grade reports beyond pass and fail, for Gradescope and a class: the timing figure of
a test (a leaderboard's entry) and what an instructor pointed the grader at, when it is not a
submission. grade.py writes both into results.json; the course side (course/) reads them."""
import re
import stat
import os


# ---- what an instructor points the grader at -----------------------------------------------------

HANDIN_ARCHIVES = (".tar.gz", ".tgz", ".zip")  # a handin as make handin writes it, or an LMS's zip


def not_a_submission(path):
    """'' for a folder or a regular file (followed through links); otherwise what it is, in words:
    a FIFO, a device or a socket is refused before anything opens it (a FIFO would block)."""
    try:
        mode = os.stat(path).st_mode
    except OSError as e:
        return f"unreadable ({e.strerror})"
    if stat.S_ISDIR(mode) or stat.S_ISREG(mode):
        return ""
    for test, what in ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return what
    return "not a regular file"


# ---- the timing figures of a leaderboard ----------------------------------------------------------

# A timed figure (a GPU, or lab 01's CPU): "... 0.930 of copy (threshold 0.900)"; the emu's model:
# "ctx, emu model: 8.01 bytes per element (the timing test counts 8), so 1.00 of copy if ...".
TIMED = re.compile(r"(\d+(?:\.\d+)?) of (copy|memcpy)\b")
MODEL = re.compile(r"emu model: (\d+(?:\.\d+)?) bytes per (\w+) \(the timing test counts ([\d.eE+]+)\)")


def figure(notes, status):
    """One timing test's figure for a leaderboard, from the notes the kit's test binary sent:
    on a GPU (or lab 01's CPU) the lowest fraction of copy of its timed calls, if the test
    passed; on the emu the most bytes moved per element of its calls (the memory model's count,
    not a timing), if every call was checked. None where there is no figure."""
    if status == "fail" or any(n.startswith("no figures:") for n in notes):
        return None
    model = [m for m in (MODEL.search(n) for n in notes) if m]
    if model:
        worst = max(model, key=lambda m: float(m.group(1)) / max(float(m.group(3)), 1e-9))
        return {"kind": "model", "value": round(float(worst.group(1)), 2), "unit": f"bytes per {worst.group(2)}",
                "counts": float(worst.group(3))}
    if status != "pass":
        return None
    timed = [(float(m.group(1)), m.group(2)) for n in notes if "emu model" not in n for m in TIMED.finditer(n)]
    if not timed:
        return None
    value, of = min(timed)
    return {"kind": "timed", "value": round(value, 3), "unit": f"of {of}"}


def figure_title(test, fig):
    """How a leaderboard names a figure: a model says so."""
    if fig["kind"] == "model":
        return f"{test}: emu model, {fig['unit']} (lower is better; a model, not a timing)"
    return f"{test}: fraction {fig['unit']} (higher is better)"


def leaderboard(figures):
    """Gradescope's `leaderboard` entries: one per timing test with a figure; the emu's model
    figures sort ascending (fewer bytes is better)."""
    out = []
    for test, fig in sorted(figures.items()):
        entry = {"name": figure_title(test, fig), "value": fig["value"]}
        if fig["kind"] == "model":
            entry["order"] = "asc"
        out.append(entry)
    return out
