#!/usr/bin/env python3
"""Similarity across a class: `make similarity CLASS=dir [LAB=NN]` (or grade-class SIMILARITY=1).

Compares the students' own code only: for each student and lab, the lines inside the STUDENT
regions of the lab's files, less the lines the skeleton gives there (its TODO comments and
stubs), so the kit's code and the skeleton's boilerplate match nothing. The comparison is
Dolos's (dolos.ugent.be: a maintained, published similarity engine that parses the code with
tree-sitter and matches fingerprints of its syntax tokens, so renamed identifiers, changed
comments, moved functions and changed layout do not hide a copy), run by
grader/course/dolos/compare.mjs with the library that `grader/deps.sh similarity` installs.

Writes under build/class/similarity/ (or --out):
    pairs.csv         the most similar pairs of each lab, most similar first: similarity, the
                      longest shared run (in tokens), and the matching lines of each file
    similarity.html   one self-contained page: the ranking, and each top pair side by side with
                      its matching lines marked
    src/labNN/        the code that was compared, one file per student

    similarity.py --class DIR [--lab NN]... [--out DIR] [--top N]
"""
import argparse
import html
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "grading"))
import grade  # noqa: E402
import course  # noqa: E402

ROOT = grade.ROOT
LOCK = os.path.join(ROOT, "grader", "course", "dolos", "package-lock.json")
COMPARE = os.path.join(ROOT, "grader", "course", "dolos", "compare.mjs")


def dolos_dir():
    """Where grader/deps.sh installs the engine: one folder per version of the lock file."""
    if os.environ.get("SCANLAB_DOLOS"):
        return os.environ["SCANLAB_DOLOS"]
    import hashlib
    tools = os.environ.get("SCANLAB_TOOLS") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "scanlab")
    digest = hashlib.sha256(open(LOCK, "rb").read()).hexdigest()[:12]
    return os.path.join(tools, f"dolos-{digest}")


def region_lines(path, lab):
    """[(line number, text)] of the lines inside the lab's student regions, and the number of
    regions. Damaged markers raise grade.SubmissionError."""
    out, inside, count = [], False, 0
    with open(path, errors="replace") as f:
        for no, line in enumerate(f, 1):
            b, e = grade.BEGIN.search(line), grade.END.search(line)
            if b:
                if inside:
                    raise grade.SubmissionError(f"line {no}: STUDENT-BEGIN inside a student region")
                inside, count = True, count + 1
            elif e:
                if not inside:
                    raise grade.SubmissionError(f"line {no}: STUDENT-END without STUDENT-BEGIN")
                inside = False
            elif inside:
                out.append((no, line.rstrip("\n")))
    if inside:
        raise grade.SubmissionError("STUDENT-BEGIN without STUDENT-END")
    return out, count


def given_lines(manifest, name):
    """The skeleton's own lines in the regions of a student file (stripped): a student who
    leaves them matches nobody through them."""
    lines, _ = region_lines(os.path.join(ROOT, "skeletons", manifest["dir"], name), manifest["lab"])
    return {text.strip() for _, text in lines if text.strip()}


def student_code(sub_dir, manifest, given):
    """The student's own lines of a lab (in file order, skeleton lines and blank lines left
    out) as [(file, line number, text)], or a reason why there are none."""
    out = []
    for name in manifest["student_files"]:
        try:
            path = grade.find_student_file(sub_dir, manifest, name)
        except grade.SubmissionError as e:
            return f"{e}"
        if not path:
            continue
        try:
            lines, _ = region_lines(path, manifest["lab"])
        except grade.SubmissionError as e:
            return f"{name}: {e}"
        out += [(name, no, text) for no, text in lines if text.strip() and text.strip() not in given[name]]
    return out or "no code of their own (missing, or the skeleton as given)"


def unpack(entry, scratch):
    """The folder to read a student's files from: the entry, or its handin tarball unpacked."""
    if os.path.isfile(entry):
        return grade.unpack_tarball(entry, tempfile.mkdtemp(dir=scratch))
    tars = [e for e in sorted(os.listdir(entry)) if e.endswith(grade.HANDIN_ARCHIVES)
            and os.path.isfile(os.path.join(entry, e))]
    if len(tars) == 1:
        try:
            if not any(grade.find_student_file(entry, m, f) for m in grade.all_manifests() for f in m["student_files"]):
                return grade.unpack_tarball(os.path.join(entry, tars[0]), tempfile.mkdtemp(dir=scratch))
        except grade.SubmissionError:
            pass
    return entry


def compare(files, language, template):
    """Runs the engine; {"pairs": [...]} as compare.mjs prints it."""
    if not shutil.which("node"):
        raise RuntimeError("node is not installed: run `grader/deps.sh similarity` (or make deps)")
    cmd = ["node", COMPARE, "--dolos", dolos_dir(), "--language", language] + \
        (["--ignore", template] if template else []) + files
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=1800)
    if r.returncode:
        raise RuntimeError(r.stderr.strip()[-600:] or f"compare.mjs ended with exit code {r.returncode}")
    return json.loads(r.stdout)


def ranges(rows, numbers):
    """Fragment rows (0-based, inclusive) of a compared file as the original files' line
    numbers: 'file.cu:12-20, file.cu:31' (gaps of up to 3 lines, the skeleton's, are bridged)."""
    parts = []
    for fname, no in numbers[max(0, rows[0]):rows[1] + 1]:
        if parts and parts[-1][0] == fname and no <= parts[-1][2] + 3:
            parts[-1][2] = no
        else:
            parts.append([fname, no, no])
    return ", ".join(f"{f}:{a}-{b}" if a != b else f"{f}:{a}" for f, a, b in parts)


CELL_MAX = 32000  # a spreadsheet cell holds at most 32,767 characters
REFERENCE = "(reference solution)"
EARLIER = "earlier:"  # the names of an earlier term's entries


def cell(text):
    """A CSV cell a spreadsheet opens whole: cut at CELL_MAX, saying so."""
    return text if len(text) <= CELL_MAX else text[:CELL_MAX - 60].rsplit("; ", 1)[0] + "; ... (cut: see similarity.html)"


def run(klass, labs, out_dir, students=None, top=50, reference=True, earlier=None):
    """Compares the class's code lab by lab; writes pairs.csv, reference.csv and similarity.html.
    0 if done. `reference` (where solutions/ exists): the reference solution's code is taken out
    of every pair, as the skeleton's is (code that any right answer shares says nothing of
    copying: in a short lab, every honest pair looks alike through it), and each student is
    compared with it apart (reference.csv). `earlier`: a class folder of an earlier term, whose
    entries are compared with this term's (never with each other)."""
    if students is None:
        students, skipped, _ = course.class_entries(klass)
        for e, why in skipped:
            print(f"similarity: not compared: {e}: {why}")
    reference = reference and os.path.isdir(os.path.join(ROOT, "solutions"))
    before = {}
    if earlier:
        found, skipped, _ = course.class_entries(earlier)
        before = {EARLIER + name: entry for name, entry in found.items()}
        for e, why in skipped:
            print(f"similarity: not compared (earlier term): {e}: {why}")
    manifests = [m for m in grade.all_manifests() if not labs or m["lab"] in labs]
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    scratch = tempfile.mkdtemp(prefix="similarity-", dir=os.path.join(ROOT, "build"))
    all_pairs, code, notes, against = [], {}, [], []
    try:
        folders = {}
        for name, entry in sorted(list(students.items()) + list(before.items())):
            try:
                folders[name] = unpack(entry, scratch)
            except grade.SubmissionError as e:
                notes.append(f"{name}: not compared: {e}")
        for m in manifests:
            given = {f: given_lines(m, f) for f in m["student_files"]}
            ext = ".c" if all(f.endswith(".c") for f in m["student_files"]) else ".cpp"
            src = os.path.join(out_dir, "src", f"lab{m['lab']}")
            os.makedirs(src)
            files, numbers = [], {}
            for name, folder in sorted(folders.items()):
                lines = student_code(folder, m, given)
                if isinstance(lines, str):
                    if not name.startswith(EARLIER):
                        notes.append(f"lab {m['lab']}: {name}: not compared: {lines}")
                    continue
                path = os.path.join(src, course.safe_name(name) + ext)
                with open(path, "w") as f:
                    f.write("".join(text + "\n" for _, _, text in lines))
                files.append(path)
                numbers[path] = [(fname, no) for fname, no, _ in lines]
                code[(m["lab"], name)] = lines
            if len(files) < 2 or all(os.path.basename(f_).startswith("earlier_") for f_ in files):
                notes.append(f"lab {m['lab']}: fewer than two students with code of their own: nothing to compare")
                continue
            template = os.path.join(scratch, f"template{m['lab']}{ext}")
            with open(template, "w") as f:
                for name in m["student_files"]:
                    lines, _ = region_lines(os.path.join(ROOT, "skeletons", m["dir"], name), m["lab"])
                    f.write("".join(text + "\n" for _, text in lines))
            language = "c" if ext == ".c" else "cpp"
            who = {path: name for (lab, name), path in
                   ((k, os.path.join(src, course.safe_name(k[1]) + ext)) for k in code) if lab == m["lab"]}
            subtract = template
            if reference:
                ref_lines = student_code(os.path.join(ROOT, "solutions"), m, given)
                if not isinstance(ref_lines, str):
                    ref_path = os.path.join(scratch, f"reference{m['lab']}{ext}")
                    with open(ref_path, "w") as f:
                        f.write("".join(text + "\n" for _, _, text in ref_lines))
                    code[(m["lab"], REFERENCE)] = ref_lines
                    numbers[ref_path], who[ref_path] = [(fn, no) for fn, no, _ in ref_lines], REFERENCE
                    mine = [f_ for f_ in files if not who[f_].startswith(EARLIER)]
                    # the skeleton's lines are out of every file already (student_code): no template,
                    # so that a student who wrote the reference scores 1
                    for p in compare(mine + [ref_path], language, None)["pairs"]:
                        if REFERENCE in (who[p["left"]], who[p["right"]]):
                            # the share of the student's own k-grams that the reference holds too
                            # (the reference covers every part of the lab; a student may write one)
                            side = "left" if who[p["right"]] == REFERENCE else "right"
                            shared, total = p["cover"][side]
                            against.append({"lab": m["lab"], "student": who[p[side]], "longest": p["longest"],
                                            "similarity": round(shared / max(1, total), 4)})
                    subtract = os.path.join(scratch, f"subtract{m['lab']}{ext}")
                    with open(subtract, "w") as f:
                        f.write(open(template).read() + open(ref_path).read())
            result = compare(files, language, subtract)
            for p in result["pairs"]:
                if who[p["left"]].startswith(EARLIER) and who[p["right"]].startswith(EARLIER):
                    continue  # an earlier term with itself
                a, b = sorted([(who[p["left"]], p["left"], "left"), (who[p["right"]], p["right"], "right")])
                frags = sorted(p["fragments"], key=lambda fr: -(fr[a[2]][1] - fr[a[2]][0]))
                matching = [(ranges(fr[a[2]], numbers[a[1]]), ranges(fr[b[2]], numbers[b[1]])) for fr in frags]
                all_pairs.append({"lab": m["lab"], "a": a[0], "b": b[0], "similarity": round(p["similarity"], 4),
                                  "longest": p["longest"], "matching": [x for x in matching if x[0] and x[1]],
                                  "rows": [(fr[a[2]], fr[b[2]]) for fr in frags]})
    except RuntimeError as e:
        print(f"similarity: the engine failed: {e}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    all_pairs.sort(key=lambda p: (p["lab"], -p["similarity"], -p["longest"], p["a"], p["b"]))
    shown = []
    for lab in sorted({p["lab"] for p in all_pairs}):
        for rank, p in enumerate([p for p in all_pairs if p["lab"] == lab][:top], 1):
            p["rank"] = rank
            shown.append(p)
    course.write_csv(os.path.join(out_dir, "pairs.csv"),
                     ["lab", "rank", "student_a", "student_b", "similarity", "longest_tokens", "matching_lines"],
                     [[p["lab"], p["rank"], p["a"], p["b"], f"{p['similarity']:.3f}", p["longest"],
                       cell("; ".join(f"{x} ~ {y}" for x, y in p["matching"]))] for p in shown])
    against.sort(key=lambda r: (r["lab"], -r["similarity"], r["student"]))
    course.write_csv(os.path.join(out_dir, "reference.csv"), ["lab", "student", "share_in_reference",
                                                               "longest_tokens"],
                     [[r["lab"], r["student"], f"{r['similarity']:.3f}", r["longest"]] for r in against])
    with open(os.path.join(out_dir, "similarity.html"), "w") as f:
        f.write(page(shown, code, notes, manifests, against, all_pairs, reference))
    for n in notes:
        print(f"similarity: {n}")
    for lab in sorted({p["lab"] for p in shown}):
        best = [p for p in shown if p["lab"] == lab][:3]
        print(f"similarity: lab {lab}: most similar " +
              ", ".join(f"{p['a']} ~ {p['b']} {p['similarity']:.2f}" for p in best))
    print(f"similarity: {os.path.relpath(os.path.join(out_dir, 'similarity.html'), ROOT)} and pairs.csv "
          f"({len(shown)} pairs)")
    return 0


def page(pairs, code, notes, manifests, against=(), every=(), reference=False):
    import class_report  # noqa: E402  (grader/course/class_report.py: its histogram)
    esc = html.escape
    out = ["<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>ScanLab similarity</title><style>",
           "body{font-family:sans-serif;max-width:1200px;margin:0 auto;padding:16px}table{border-collapse:collapse}"
           "td,th{border:1px solid #ddd;padding:3px 8px;font-size:14px}th{background:#f3f3f3}"
           ".side{display:flex;gap:12px}.side pre{flex:1;min-width:0;overflow-x:auto;font-size:12px;background:#fafafa;"
           "border:1px solid #ddd;padding:6px;margin:4px 0}mark{background:#ffe08a}.n{color:#888}"
           "</style></head><body><h1>Similarity of the students' own code</h1>",
           "<p>Only the lines inside the STUDENT regions count, less the lines the skeleton gives there"
           + (" and the code the reference solution shares (every right answer has it; each student's likeness to "
              "the reference is listed apart, below each lab's pairs)" if reference else "") + ". "
           "Engine: Dolos (fingerprints of syntax tokens: renamed identifiers and changed comments do not hide a copy). "
           "A high score is a reason to look, not a verdict: read the pair.</p>"]
    for n in notes:
        out.append(f"<p>{esc(n)}</p>")
    for m in manifests:
        lab_pairs = [p for p in pairs if p["lab"] == m["lab"]]
        if not lab_pairs:
            continue
        scores = [p["similarity"] for p in every if p["lab"] == m["lab"]]
        out.append(f"<h2>Lab {m['lab']}: {esc(m['title'])}</h2>")
        if scores:  # the gap between the few pairs that copied and the many that did not
            out.append(class_report.histogram(scores, 0, 1, 20, f"Lab {m['lab']}: every pair's similarity",
                                              "similarity (1: the same code)"))
        out.append("<table><tr><th>#</th><th>students</th><th>similarity</th><th>longest shared run</th></tr>")
        for i, p in enumerate(lab_pairs, 1):
            out.append(f"<tr><td>{i}</td><td><a href=\"#p{m['lab']}-{i}\">{esc(p['a'])} ~ {esc(p['b'])}</a></td>"
                       f"<td>{p['similarity']:.3f}</td><td>{p['longest']} tokens</td></tr>")
        out.append("</table>")
        for i, p in enumerate(lab_pairs, 1):
            out.append(f"<details id=\"p{m['lab']}-{i}\"><summary>#{i} {esc(p['a'])} ~ {esc(p['b'])}: "
                       f"{p['similarity']:.3f}</summary><div class=\"side\">")
            for side, who in ((0, p["a"]), (1, p["b"])):
                marked = set()
                for rows in p["rows"]:
                    marked |= set(range(rows[side][0], rows[side][1] + 1))
                lines = code.get((m["lab"], who), [])
                body = "".join((f"<mark>" if k in marked else "") + f"<span class=\"n\">{no:4d}</span> {esc(text)}"
                               + ("</mark>" if k in marked else "") + "\n" for k, (_, no, text) in enumerate(lines))
                out.append(f"<pre><b>{esc(who)}</b>\n{body}</pre>")
            out.append("</div></details>")
        mine = [r for r in against if r["lab"] == m["lab"]]
        if mine:
            out.append(f"<h3>Lab {m['lab']}: each student against the reference solution</h3><table><tr><th>student"
                       "</th><th>share of their lines in the reference</th><th>longest shared run</th></tr>")
            out += [f"<tr><td>{esc(r['student'])}</td><td>{r['similarity']:.3f}</td><td>{r['longest']} tokens</td></tr>"
                    for r in mine]
            out.append("</table>")
    out.append("</body></html>")
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Similarity of the students' own code across a class (Dolos).")
    ap.add_argument("--class", dest="klass", required=True)
    ap.add_argument("--lab", action="append", default=[])
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "class", "similarity"))
    ap.add_argument("--top", type=int, default=50, help="pairs shown per lab (default 50)")
    ap.add_argument("--earlier", default=None, help="an earlier term's class folder, compared with this one")
    ap.add_argument("--keep-reference", action="store_true",
                    help="do not take the reference solution's code out of the pairs")
    args = ap.parse_args(argv)
    if args.earlier and not os.path.isdir(args.earlier):
        print(f"similarity: EARLIER={args.earlier} is not a folder", file=sys.stderr)
        return 2
    if not os.path.isdir(args.klass):
        print(f"similarity: CLASS={args.klass} is not a folder", file=sys.stderr)
        return 2
    labs = []
    for item in args.lab:
        labs += [f"{int(x):02d}" for x in item.replace(",", " ").split() if x.strip().isdigit()]
    known = {m["lab"] for m in grade.all_manifests()}
    if set(labs) - known:
        print(f"similarity: no lab {', '.join(sorted(set(labs) - known))}", file=sys.stderr)
        return 2
    return run(args.klass, labs, os.path.abspath(args.out), top=args.top, reference=not args.keep_reference,
               earlier=args.earlier)


if __name__ == "__main__":
    sys.exit(main())
