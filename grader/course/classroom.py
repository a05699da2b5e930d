#!/usr/bin/env python3
"""The GitHub workflow's grading step (.github/workflows/scanlab.yml): grades the student's
working copy (skeletons/) on emu and writes the points, per lab and per test, as a Markdown
table to the run's summary. Exits 0 whatever the score: the points are the result.

    classroom.py [--summary FILE] [--lab NN]...
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--summary", default="/dev/stdout")
    ap.add_argument("--lab", action="append", default=[])
    args = ap.parse_args()
    results = os.path.join(ROOT, "build", "classroom", "results.json")
    if os.path.exists(results):
        os.remove(results)
    cmd = [sys.executable, os.path.join(ROOT, "grader", "grading", "grade.py"), "--backend", "emu",
           "--submission", os.path.join(ROOT, "skeletons"), "--results", results]
    for lab in args.lab:
        cmd += ["--lab", lab]
    subprocess.call(cmd, cwd=ROOT, env=dict(os.environ, NO_COLOR="1"))
    lines = ["## ScanLab: points on the emu backend", ""]
    if not os.path.exists(results):
        lines.append("The grader did not finish: see the step's log.")
    else:
        data = json.load(open(results))
        lines += [f"**Score: {data['score']}/{data['max_score']}**", "", "| test | points | |", "|---|---|---|"]
        for t in data["tests"]:
            mark = "OK" if t["status"] == "passed" else "FAIL"
            first = (t["output"].splitlines() or [""])[0].replace("|", "\\|")[:160]
            lines.append(f"| {t['name'].split(':')[0]} | {t['score']}/{t['max_score']} | {mark} {first} |")
        lines += ["", "Timing tests are graded on a GPU only (`make grade` on a machine with one)."]
    with open(args.summary, "a") as f:
        f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
