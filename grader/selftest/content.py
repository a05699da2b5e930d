"""Self-test checks of what readers see: the student kit holds no solution, the handouts' and
slides' numbers are the manifests', quoted output is real, the docs render in a browser,
figures and code lines are legible. Registered by run.py; each raises run.CheckFailed."""
import glob
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile

import run  # noqa: E402  (grader/selftest/run.py: CheckFailed, sh, ROOT, BUILD)
from run import CheckFailed, ROOT, BUILD, sh
import grade  # noqa: E402

BEGIN = run.BEGIN  # the marker lines themselves, not a comment that names them
END = run.END
CODE_EXT = (".c", ".cu", ".h", ".cuh", ".cpp", ".hpp")

# ---- 1. the student kit holds no line of a solution -----------------------------------------
#
# The rule. A solution line is a line inside a STUDENT-BEGIN/END region of a file under
# solutions/, with its trailing comment removed and its white space collapsed. It counts when it
# has at least MIN_CHARS characters other than white space (shorter lines, such as `}`,
# `return x;` or a swap `tile[a] = tile[b];`, say nothing of the answer), is not a comment
# alone, and is not a declaration of dynamic shared memory (`extern __shared__ int s[];`:
# syntax the handouts teach). It is a leak when it appears, as a substring of a line with the same normalisation, in any file of the student kit
# (handouts, slides, figures, exhibits, scripts, ...), except where the kit ships it on purpose:
# in the kit's own code (skeletons/ outside the student regions, reference/, grader/), which
# students get whole. A later lab's skeleton may give an earlier lab's function as kit code
# (lab 06 repeats lab 04's scanIncWarp so that it does not depend on the student's lab 04); the
# check names those lines in its report so that the choice stays visible.
MIN_CHARS = 20


def _norm(line):
    line = re.sub(r"//.*$", "", line)
    line = re.sub(r"/\*.*?\*/", "", line)
    return " ".join(line.split())


def _is_comment(line):
    s = line.strip()
    return s.startswith(("//", "/*", "*", "#pragma"))


def solution_lines():
    """{normalised line: lab} of every solution region line that counts."""
    out = {}
    for m in grade.all_manifests():
        for f in m["student_files"]:
            inside = False
            for line in open(os.path.join(ROOT, "solutions", m["dir"], f)):
                if BEGIN.search(line):
                    inside = True
                elif END.search(line):
                    inside = False
                elif inside and not _is_comment(line) and "extern __shared__" not in line:
                    n = _norm(line)
                    if len(n.replace(" ", "")) >= MIN_CHARS:
                        out.setdefault(n, m["lab"])
    return out


def _kit_code(rel):
    return rel.startswith(("skeletons/", "reference/", "grader/")) and rel.endswith(CODE_EXT)


def _code_outside_regions(text):
    keep, inside = [], False
    for line in text.splitlines():
        if BEGIN.search(line):
            inside = True
        elif END.search(line):
            inside = False
        elif not inside:
            keep.append(_norm(line))
    return keep


def no_solution_in_kit():
    tar = os.path.join(BUILD, "student-kit-leak.tar.gz")
    code, out = sh([sys.executable, "grader/kit.py", "student-kit", "--out", tar])
    if code:
        raise CheckFailed("student-kit failed:\n" + out)
    sol = solution_lines()
    given, leaks, scanned = {}, [], 0
    with tarfile.open(tar) as t:
        members = [m for m in t.getmembers() if m.isfile()]
        texts = {}
        for m in members:
            data = t.extractfile(m).read()
            if b"\0" in data[:4096]:
                continue  # a binary file
            texts[m.name.split("/", 1)[1]] = data.decode(errors="replace")
    kit_code = set()
    for rel, text in texts.items():
        if _kit_code(rel):
            for n in _code_outside_regions(text):
                kit_code.add(n)
    for line, lab in sol.items():
        if any(line in k for k in kit_code):
            given[line] = lab
    for rel, text in texts.items():
        if _kit_code(rel):
            continue
        scanned += 1
        lines = [_norm(x) for x in text.splitlines()]
        for line, lab in sol.items():
            if line in given:
                continue
            for no, x in enumerate(lines, 1):
                if line in x:
                    leaks.append(f"{rel}:{no}: lab {lab}'s solution line `{line}`")
    if leaks:
        raise CheckFailed(f"{len(leaks)} solution lines in the student kit:\n    " + "\n    ".join(leaks[:25]))
    labs = sorted(set(given.values()))
    later = sorted({lab for line, lab in given.items()
                    if any(line in k for k in later_skeletons(texts, lab))})
    return (f"{len(sol)} solution lines (>= {MIN_CHARS} characters) in none of {scanned} files; "
            f"{len(given)} are also kit code" +
            (f" (lab {', '.join(later)}: given by a later lab's skeleton)" if later else ""))


def later_skeletons(texts, lab):
    """Lines of the skeletons of labs after `lab`, outside their regions."""
    out = []
    for rel, text in texts.items():
        m = re.match(r"skeletons/(\d\d)-", rel)
        if m and m.group(1) > lab:
            out += _code_outside_regions(text)
    return out


# ---- 3. quoted output is what the programs print --------------------------------------------

def quotes():
    code, out = sh([sys.executable, "grader/quotes.py"])
    if code:
        raise CheckFailed(out[-3000:])
    return out.strip().splitlines()[-1]


# ---- 2. the numbers the handouts and slides quote are the manifests' -------------------------
#
# Slides take them from the manifests (\manifest{lab}{test}{key}, generated by make slides), so
# a typed number there is an error. Handouts are read as plain Markdown too, so they keep the
# numbers, and this check compares: every row of the Grading table names a test of the manifest
# and gives its points; the table names every test; a threshold-like number in a row (0.xx, or
# N.Nx for a speedup) is one of that test's thresholds; a size 2^K or 2^K + N in a row is one of
# its sizes (cuda or emu); "N points" in the Grading section is the lab's total; and anywhere in
# the handout, a number right after the word "threshold" is one of the lab's thresholds.

def _manifest_values(m, t):
    """Thresholds and sizes of a test, on either backend."""
    thresholds, sizes = set(), set()
    for backend in ("cuda", "emu"):
        params = grade.test_settings(m, t, backend)[1]
        for key, value in params.items():
            if "threshold" in key or "speedup" in key:
                thresholds.add(round(float(value), 4))
            for v in str(value).split(","):
                if v.strip().lstrip("-").isdigit():
                    sizes.add(int(v))
    return thresholds, sizes


def _sizes_in(text):
    out = []
    for m in re.finditer(r"2\^\{?(\d+)\}?(?:\s*([+-])\s*(\d+)(?![\d.]))?", text):
        n = 2 ** int(m.group(1))
        if m.group(2):
            n = n + int(m.group(3)) if m.group(2) == "+" else n - int(m.group(3))
        out.append((m.group(0), n))
    return out


def manifest_numbers():
    bad, rows = [], 0
    for m in grade.all_manifests():
        path = os.path.join(ROOT, "labs", m["dir"], "README.md")
        if not os.path.exists(path):
            continue
        rel = os.path.relpath(path, ROOT)
        text = open(path).read()
        tests = {t["name"]: t for t in m["test"]}
        lab_thresholds = set()
        for t in m["test"]:
            lab_thresholds |= _manifest_values(m, t)[0]
        sec = re.search(r"^## Grading\n(.*?)(?=^## )", text, re.S | re.M)
        if not sec:
            bad.append(f"{rel}: no Grading section")
            continue
        body = sec.group(1)
        header = next((ln for ln in body.splitlines() if ln.startswith("| test")), None)
        if not header:
            bad.append(f"{rel}: the Grading section has no table starting with `| test`")
            continue
        cols = [c.strip() for c in header.strip("|").split("|")]
        seen = set()
        for ln in body.splitlines():
            cells = [c.strip() for c in ln.strip().strip("|").split("|")]
            if not ln.startswith("| `") or len(cells) != len(cols):
                continue
            name = cells[0].strip("`")
            t = tests.get(name)
            if t is None:
                bad.append(f"{rel}: the Grading table names `{name}`, which {m['path']} does not have")
                continue
            seen.add(name)
            rows += 1
            thresholds, sizes = _manifest_values(m, t)
            if "points" in cols and cells[cols.index("points")] != str(t["points"]):
                bad.append(f"{rel}: `{name}` is worth {t['points']} points in the manifest, "
                           f"not {cells[cols.index('points')]}")
            row = " ".join(cells[1:])
            for x in re.findall(r"(?<![\d.])(0\.\d\d?|\d\.\d+)(x|\b)", row):
                if round(float(x[0]), 4) not in thresholds and (x[1] == "x" or float(x[0]) < 1):
                    bad.append(f"{rel}: `{name}`'s row gives {x[0]}{x[1]}; its thresholds in the "
                               f"manifest are {sorted(thresholds) or 'none'}")
            for shown, n in _sizes_in(row):
                if n not in sizes:
                    bad.append(f"{rel}: `{name}`'s row gives the size {shown} = {n}, "
                               "which is not one of its sizes in the manifest")
        missing = set(tests) - seen
        if missing:
            bad.append(f"{rel}: the Grading table leaves out {sorted(missing)}")
        total = sum(int(t["points"]) for t in m["test"])
        for n in re.findall(r"\b(\d+) points\b", body):
            if int(n) != total:
                bad.append(f"{rel}: the Grading section says {n} points; the manifest's total is {total}")
        for x in re.findall(r"threshold(?:s)?(?: of| is| at| =)?\s*(\d+\.\d+)", text):
            if round(float(x), 4) not in lab_thresholds:
                bad.append(f"{rel}: a threshold of {x}; the manifest's are {sorted(lab_thresholds)}")
    # The grader page's manifest excerpt: every line of it is a line of lab 02's manifest.
    page = open(os.path.join(ROOT, "grader", "README.md")).read()
    ex = re.search(r"An\s+excerpt\s+of\s+lab (\d\d)'s:\n\n((?:    .*\n|\n)+)", page)
    if not ex:
        bad.append("grader/README.md: the manifest excerpt (`An excerpt of lab NN's:`) is gone")
    else:
        toml = os.path.join(ROOT, "grader", "manifests", f"lab{ex.group(1)}.toml")
        have = {" ".join(ln.split("#")[0].split()) for ln in open(toml)}
        for ln in ex.group(2).splitlines():
            want = " ".join(ln.split("#")[0].split())
            if want and "..." not in want and want not in have:
                bad.append(f"grader/README.md: the manifest excerpt's line `{want}` is not in "
                           f"{os.path.relpath(toml, ROOT)}")
    for deck in sorted(glob.glob(os.path.join(ROOT, "slides", "[0-9][0-9]-*.tex"))):
        for no, ln in enumerate(open(deck), 1):
            if re.search(r"(threshold|\\ge|at least)\s*\$?\s*\d+\.\d+", ln):
                bad.append(f"{os.path.relpath(deck, ROOT)}:{no}: a typed threshold; use "
                           "\\manifest{lab}{test}{key}")
    if bad:
        raise CheckFailed("\n    ".join(bad[:30]))
    return f"{rows} grading rows match the manifests; slides take theirs from them"


CHECKS = [
    ("no solution line in the student kit", no_solution_in_kit),
    ("quoted output matches real runs", quotes),
    ("handouts and slides quote the manifests' numbers", manifest_numbers),
]


# ---- 4./5. the docs in a real browser ---------------------------------------------------------
#
# Every handout page and the main page of the built docs, opened in headless Chromium at a
# laptop's width (1280 px): a probe script, put at the top of a copy of each page, records
# errors (console.error, uncaught exceptions, resources that fail to load), images that did
# not load, and code blocks wider than their box (text hidden behind a scroll bar), and reports
# each image's displayed and natural width, from which the smallest text of each SVG figure is
# computed at the size the page shows it (at least MIN_PX).
MIN_PX = 11
PAGES = re.compile(r"^(index|grader|lab\d\d|lab\d\d_perf)\.html$")
PROBE = """<script>
window.__scanlab = [];
window.addEventListener('error', function (e) {
  var t = e.target;
  if (t && t !== window && (t.src || t.href)) __scanlab.push('failed to load ' + (t.src || t.href));
  else __scanlab.push('uncaught error: ' + e.message);
}, true);
(function () { var ce = console.error; console.error = function () {
  __scanlab.push('console error: ' + Array.prototype.join.call(arguments, ' ')); ce.apply(console, arguments); }; })();
window.addEventListener('load', function () { setTimeout(function () {
  var imgs = [];
  document.querySelectorAll('img').forEach(function (i) {
    if (!i.complete || i.naturalWidth === 0) __scanlab.push('broken image ' + i.getAttribute('src'));
    else imgs.push([i.getAttribute('src'), i.getBoundingClientRect().width, i.naturalWidth]);
  });
  document.querySelectorAll('div.fragment, pre').forEach(function (f) {
    if (f.scrollWidth > f.clientWidth + 1)
      __scanlab.push('code block wider than the page (' + f.scrollWidth + ' px in ' + f.clientWidth + '): '
                     + f.textContent.trim().slice(0, 60));
  });
  var d = document.createElement('pre'); d.id = 'scanlab-probe';
  d.textContent = JSON.stringify({problems: __scanlab, images: imgs});
  document.body.appendChild(d);
}, 300); });
</script>"""


def _svg_min_font(path):
    """The smallest font size (user units) in an SVG, and its viewBox width."""
    text = open(path).read()
    sizes = [float(x) for x in re.findall(r'font-size[=:]\s*"?\s*([\d.]+)', text)]
    vb = re.search(r'viewBox="[\d.\s-]+?\s([\d.]+)\s+[\d.]+"', text)
    width = float(vb.group(1)) if vb else float(re.search(r'width="([\d.]+)', text).group(1))
    return (min(sizes) if sizes else None), width


def browser():
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        raise CheckFailed("chromium is not installed (grader/deps.sh check installs it)")
    html_dir = os.path.join(ROOT, "build", "docs", "html")
    if not os.path.exists(os.path.join(html_dir, "index.html")):
        code, out = sh(["make", "--no-print-directory", "docs"])
        if code:
            raise CheckFailed("make docs failed:\n" + out[-2000:])
    work = tempfile.mkdtemp(prefix="scanlab-browser-", dir=BUILD)
    bad, pages, figures = [], 0, set()
    try:
        copy = os.path.join(work, "html")
        shutil.copytree(html_dir, copy)
        for name in sorted(os.listdir(copy)):
            if not PAGES.match(name):
                continue
            page = os.path.join(copy, name)
            src = open(page, errors="replace").read()
            open(page, "w").write(src.replace("<head>", "<head>\n" + PROBE, 1))
            r = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                                "--window-size=1280,900", "--virtual-time-budget=5000",
                                "--user-data-dir=" + os.path.join(work, "profile"),
                                "--dump-dom", "file://" + page],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=120)
            dom = r.stdout.decode(errors="replace")
            m = re.search(r'<pre id="scanlab-probe">(.*?)</pre>', dom, re.S)
            if not m:
                bad.append(f"{name}: the page did not finish loading in the browser")
                continue
            pages += 1
            data = json.loads(html.unescape(m.group(1)))
            for p in data["problems"]:
                bad.append(f"{name}: {p}")
            for src_, shown, natural in data["images"]:
                svg = os.path.join(html_dir, src_)
                if not svg.endswith(".svg") or not os.path.exists(svg):
                    continue
                size, width = _svg_min_font(svg)
                if size is None or not width:
                    continue
                px = size * shown / width
                figures.add(src_)
                if px < MIN_PX:
                    bad.append(f"{name}: {src_}: its smallest text is {px:.1f} px as shown "
                               f"({size:g} units, {shown:.0f} of {width:g} wide); at least {MIN_PX} px")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if bad:
        raise CheckFailed(f"{len(bad)} problems in the browser:\n    " + "\n    ".join(bad[:40]))
    return f"{pages} pages in Chromium: no error, no broken image, no code block wider than the page; " \
           f"{len(figures)} figures' text at least {MIN_PX} px"


CHECKS.append(("the docs render in a browser", browser))
