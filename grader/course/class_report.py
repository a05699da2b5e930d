#!/usr/bin/env python3
"""The class report: build/class/report.html, one self-contained page (inline SVG, no script
from elsewhere, no network) that grade_class.py writes after every class run.

Per lab: the score distribution, each test's pass rate with its most common failure reason,
each timing test's figures across the class with the reference solution marked (on a GPU the
fraction of copy; on the emu the memory model's bytes per element, labelled as a model), and
the leaderboard of those figures (pseudonyms unless the course file says names). Then the
grading times, the late list, and the entries of CLASS that were not graded, with why.

The figures come from what the kit's test binaries reported (results.json's extra_data), never
from what a student's code printed. The data behind the page is also embedded in it as JSON
(<script type="application/json" id="report-data">), for the kit's self-test and for anyone
who wants the numbers.
"""
import collections
import html
import json
import os
import re

import course

W, H = 520, 230          # one figure's size in CSS pixels (the page shows two side by side at 1280)
FONT = 13                # the smallest text in a figure, in pixels
PAD_L, PAD_R, PAD_T, PAD_B = 52, 16, 30, 46


def esc(text):
    return html.escape(str(text), quote=True)


def _svg(body, title, label):
    return (f'<svg class="fig" width="{W}" height="{H}" viewBox="0 0 {W} {H}" role="img" aria-label="{esc(label)}" '
            f'xmlns="http://www.w3.org/2000/svg" font-family="sans-serif" font-size="{FONT}">'
            f'<text x="{PAD_L}" y="18" font-weight="bold">{esc(title)}</text>{body}</svg>')


def _nice_ticks(lo, hi, count=5):
    """Round tick values covering [lo, hi]."""
    if hi <= lo:
        hi = lo + 1
    raw = (hi - lo) / count
    mag = 10 ** len(str(int(raw))) / 10 if raw >= 1 else 10 ** -len(str(int(1 / raw)))
    step = min((m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw), default=raw)
    start = int(lo / step) * step
    if start > lo:
        start -= step
    ticks, t = [], start
    while True:
        ticks.append(round(t, 10))
        if t >= hi - step * 1e-9:
            return ticks
        t += step


def _fmt(v):
    return f"{v:g}" if abs(v) >= 1 or v == 0 else f"{v:.3g}"


def _tick_label(x, y, text):
    """A label under the x axis at `x`, centred unless that would carry it past the figure's
    right edge (a label as wide as "0.125" under the last tick did), where it ends at `x`, or
    into the y axis's labels on the left ("0.0125" under the first tick met the "0" there),
    where it starts at `x`."""
    half = len(text) * FONT * 0.32  # half a label's width, generously, in sans-serif digits
    anchor = "end" if x + half > W - 2 else "start" if x - half < PAD_L - 8 else "middle"
    return f'<text x="{x:.1f}" y="{y}" text-anchor="{anchor}">{esc(text)}</text>'


def histogram(values, lo, hi, bins, title, xlabel, ylabel="students", integers=False):
    """A histogram of `values` over [lo, hi] in `bins` equal bins; with `integers`, one bar per
    whole number lo..hi, labelled under its middle."""
    if integers:
        lo, hi, bins = lo - 0.5, hi + 0.5, int(hi - lo) + 1
    counts = [0] * bins
    width = (hi - lo) / bins if hi > lo else 1
    for v in values:
        counts[min(bins - 1, max(0, int((v - lo) / width)))] += 1
    ticks = [t for t in _nice_ticks(0, max(counts + [1]), 4) if t == int(t)]
    top = ticks[-1]
    pw, ph = W - PAD_L - PAD_R, H - PAD_T - PAD_B
    body = []
    for t in ticks:
        y = PAD_T + ph - ph * t / top
        body.append(f'<line x1="{PAD_L}" x2="{W - PAD_R}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>'
                    f'<text x="{PAD_L - 6}" y="{y + 4:.1f}" text-anchor="end">{int(t)}</text>')
    bw = pw / bins
    for i, c in enumerate(counts):
        h = ph * c / top
        body.append(f'<rect x="{PAD_L + i * bw + 1:.1f}" y="{PAD_T + ph - h:.1f}" width="{max(bw - 2, 1):.1f}" '
                    f'height="{h:.1f}" fill="#4c78a8"><title>{c}</title></rect>')
    every = max(1, int(bins / 10 + 0.999))
    for i in range(0, bins + (0 if integers else 1), every):
        x = PAD_L + (i + 0.5) * bw if integers else PAD_L + i * bw
        v = lo + 0.5 + i if integers else lo + i * width
        body.append(_tick_label(x, H - PAD_B + 17, _fmt(v)))
    body.append(f'<line x1="{PAD_L}" x2="{W - PAD_R}" y1="{PAD_T + ph}" y2="{PAD_T + ph}" stroke="#333"/>')
    body.append(f'<text x="{PAD_L + pw / 2:.1f}" y="{H - 8}" text-anchor="middle">{esc(xlabel)}</text>')
    body.append(f'<text x="14" y="{PAD_T + ph / 2:.1f}" text-anchor="middle" '
                f'transform="rotate(-90 14 {PAD_T + ph / 2:.1f})">{esc(ylabel)}</text>')
    return _svg("".join(body), title, f"{title}: {xlabel}")


def strip(values, reference, title, xlabel, higher_better):
    """The class's figures of one timing test as dots on one axis, the reference solution as a
    red line; the better end is labelled."""
    allv = list(values) + ([reference] if reference is not None else [])
    lo, hi = min(allv + [0.0]), max(allv + [0.0])
    if hi <= lo:
        hi = lo + 1
    ticks = _nice_ticks(lo, hi * 1.05, 5)
    lo, hi = min(lo, ticks[0]), max(hi, ticks[-1])
    pw = W - PAD_L - PAD_R
    y0, y1 = PAD_T + 34, H - PAD_B - 6

    def x(v):
        return PAD_L + pw * (v - lo) / (hi - lo)
    body = [f'<line x1="{PAD_L}" x2="{W - PAD_R}" y1="{y1}" y2="{y1}" stroke="#333"/>']
    for t in ticks:
        body.append(f'<line x1="{x(t):.1f}" x2="{x(t):.1f}" y1="{y0 - 6}" y2="{y1}" stroke="#eee"/>' +
                    _tick_label(x(t), y1 + 17, _fmt(t)))
    for i, v in enumerate(sorted(values)):
        jitter = y0 + 8 + (i * 37 % 11) / 10 * (y1 - y0 - 16)
        body.append(f'<circle cx="{x(v):.1f}" cy="{jitter:.1f}" r="4.5" fill="#4c78a8" fill-opacity="0.75">'
                    f'<title>{_fmt(v)}</title></circle>')
    if reference is not None:
        rx = x(reference)
        anchor = "end" if rx > W / 2 else "start"
        dx = -5 if anchor == "end" else 5
        body.append(f'<line x1="{rx:.1f}" x2="{rx:.1f}" y1="{y0 - 10}" y2="{y1}" stroke="#d62728" stroke-width="2"/>'
                    f'<text x="{rx + dx:.1f}" y="{y0 - 1}" text-anchor="{anchor}" fill="#d62728">'
                    f'reference {_fmt(reference)}</text>')
    better = "higher is better" if higher_better else "lower is better"
    body.append(f'<text x="{W - PAD_R}" y="18" text-anchor="end" fill="#555">{better}</text>')
    body.append(f'<text x="{PAD_L + pw / 2:.1f}" y="{H - 8}" text-anchor="middle">{esc(xlabel)}</text>')
    return _svg("".join(body), title, f"{title}: {xlabel}")


def failure_reason(output):
    """A failed test's first reason line, and the same with its numbers taken out (to count
    the failures that happened the same way together)."""
    first = next((line for line in output.splitlines() if line.strip()), "failed")[:200]
    return first, re.sub(r"-?\d+(?:\.\d+)?", "#", first)


def pseudonym_key(out_dir, course_):
    if course_ and course_.get("key"):
        return course_["key"].encode()
    path = os.path.join(out_dir, "pseudonym.key")
    if not os.path.exists(path):
        with open(path, "wb") as f:
            f.write(os.urandom(32).hex().encode())
        os.chmod(path, 0o600)
    return open(path, "rb").read().strip()


def gather(rows, outcomes, reference, manifests, backend, course_, out_dir):
    """Everything the page shows, as plain data (also embedded in the page)."""
    names = sorted({o["student"] for o in outcomes})
    pseudo = course.pseudonyms(names, pseudonym_key(out_dir, course_))
    show = (lambda s: s) if (course_ or {}).get("names") == "names" else (lambda s: pseudo[s])
    course.write_csv(os.path.join(out_dir, "pseudonyms.csv"), ["student", "pseudonym"],
                     [{"student": s, "pseudonym": pseudo[s]} for s in names])
    ref_figs = ((reference or {}).get("results") or {}).get("extra_data", {}).get("figures", {})
    labs = []
    for m in manifests:
        lab_rows = [r for r in rows if r["lab"] == m["lab"]]
        # students whose code never ran: their failures (does not compile, missing) would be
        # every test's most common one; they are counted apart
        unbuilt = {r["student"] for r in lab_rows if r["note"] in ("did not build", "missing")
                   or r["note"].startswith("handed in without")}
        tests = []
        for t in m["test"]:
            key = f"lab{m['lab']} {t['name']}"
            runs = [(o["student"], x) for o in outcomes for x in (o["results"] or {}).get("tests", [])
                    if x["name"].split(":")[0] == key]
            built = [x for who, x in runs if who not in unbuilt]
            runs = [x for _, x in runs]
            if not runs:
                continue  # not run in this class's grading (T=)
            counted = [x for x in runs if x.get("max_score", 0) > 0]
            passed = sum(1 for x in counted if x["status"] == "passed")
            reasons = collections.Counter()
            example = {}
            for x in (x for x in built if x.get("max_score", 0) > 0):
                if x["status"] == "failed":
                    first, shape = failure_reason(x.get("output", ""))
                    reasons[shape] += 1
                    example.setdefault(shape, first)
            common = reasons.most_common(1)
            tests.append({"name": t["name"], "title": t.get("title", t["name"]), "timing": bool(t.get("timing")),
                          "graded": len(counted), "passed": passed,
                          "reason": example[common[0][0]] if common else "", "reason_count": common[0][1] if common else 0,
                          "unbuilt": sum(1 for x in counted if x["status"] == "failed") - sum(reasons.values())})
        timing = []
        for t in m["test"]:
            if not t.get("timing"):
                continue
            key = f"lab{m['lab']} {t['name']}"
            figs = {o["student"]: ((o["results"] or {}).get("extra_data") or {}).get("figures", {}).get(key)
                    for o in outcomes}
            figs = {s: f for s, f in figs.items() if f}
            ref = ref_figs.get(key)
            kinds = {f["kind"] for f in figs.values()} | ({ref["kind"]} if ref else set())
            if not figs and not ref:
                continue
            kind = "model" if "model" in kinds else "timed"
            unit = next(iter(figs.values()), ref)["unit"]
            board = sorted(figs.items(), key=lambda kv: kv[1]["value"], reverse=kind == "timed")
            timing.append({"test": t["name"], "kind": kind, "unit": unit,
                           "values": {s: f["value"] for s, f in figs.items()},
                           "reference": ref["value"] if ref else None,
                           "leaderboard": [[show(s), f["value"]] for s, f in board]})
        labs.append({"lab": m["lab"], "title": m["title"], "max": lab_rows[0]["max"] if lab_rows else 0,
                     "scores": [r["score"] for r in lab_rows], "finals": [r["final"] for r in lab_rows],
                     "tests": tests, "timing": timing})
    late = [{"student": r["student"], "lab": r["lab"], "arrived": r["arrived"], "due": r["due"],
             "late": r["late"], "score": r["score"], "final": r["final"]} for r in rows
            if r["late"] and not r["late"].startswith(course.UNJUDGED)]
    return {"backend": backend, "students": len(names), "labs": labs, "late": late,
            "seconds": {o["student"]: round(o["seconds"], 1) for o in outcomes},
            "course": os.path.basename(course_["path"]) if course_ else None,
            "names": (course_ or {}).get("names", "pseudonyms")}


CSS = """
body { font-family: sans-serif; margin: 0 auto; max-width: 1100px; padding: 16px 24px; color: #222; }
h1 { font-size: 26px; } h2 { font-size: 21px; border-bottom: 1px solid #ccc; margin-top: 34px; }
h3 { font-size: 17px; margin: 20px 0 6px; }
.figs { display: flex; flex-wrap: wrap; gap: 16px; }
.fig { border: 1px solid #e4e4e4; background: #fff; }
table { border-collapse: collapse; margin: 6px 0 12px; font-size: 14px; }
td, th { border: 1px solid #ddd; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.when { white-space: nowrap; }
.bar { display: inline-block; height: 10px; background: #54a24b; vertical-align: middle; }
.note { color: #555; font-size: 14px; max-width: 900px; }
.reason { font-family: monospace; font-size: 13px; max-width: 620px; overflow-wrap: anywhere; }
"""


def page(data, skipped, warnings):
    backend = data["backend"]
    out = [f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
           f"<title>ScanLab class report</title><style>{CSS}</style></head><body>",
           "<h1>ScanLab class report</h1>",
           f"<p class=\"note\">{data['students']} students graded on the <b>{esc(backend)}</b> backend"
           + (f"; deadlines from {esc(data['course'])}" if data["course"] else "; no course file (no deadlines)")
           + ". Scores are raw (before any late penalty) unless marked final.</p>"]
    if backend == "emu":
        out.append("<p class=\"note\">On the emu backend kernels are not timed: a timing test's figure is the emu's "
                   "memory model (bytes moved per element, as Nsight Compute would count them), <b>a model, not a "
                   "timing</b>: fewer bytes is better. Lab 01 runs on the CPU, where its timing test is a real "
                   "timing (fraction of memcpy).</p>")
    for lab in data["labs"]:
        out.append(f"<h2>Lab {lab['lab']}: {esc(lab['title'])}</h2><div class=\"figs\">")
        mx = lab["max"]
        whole = mx <= 40
        if not mx:
            out.append("<p class=\"note\">No test graded here carries points (on the emu, timing tests are "
                       "not graded): no score distribution.</p>")
        else:
            out.append(histogram(lab["scores"], 0, mx, 20, f"Lab {lab['lab']}: scores",
                                 f"raw score (out of {mx})", integers=whole))
        if mx and any(f != s for f, s in zip(lab["finals"], lab["scores"])):
            out.append(histogram([round(f) for f in lab["finals"]] if whole else lab["finals"], 0, mx, 20,
                                 f"Lab {lab['lab']}: final scores (after late penalties)",
                                 f"final score, rounded (out of {mx})", integers=whole))
        out.append("</div><h3>Tests</h3><table><tr><th>test</th><th>passed</th><th>most common failure</th></tr>")
        for t in lab["tests"]:
            if not t["graded"]:
                why = "timing: not graded on the emu" if t["timing"] and backend == "emu" else "not run"
                out.append(f"<tr><td>{esc(t['name'])}</td><td class=\"note\">{why}</td><td></td></tr>")
                continue
            rate = t["passed"] / t["graded"]
            out.append(f"<tr><td title=\"{esc(t['title'])}\">{esc(t['name'])}</td><td class=\"num\">"
                       f"<span class=\"bar\" style=\"width:{rate * 80:.0f}px\"></span> {t['passed']}/{t['graded']}"
                       f" ({rate:.0%})</td><td class=\"reason\">"
                       + (f"{t['reason_count']}&times;: {esc(t['reason'])}" if t["reason"] else "")
                       + (f"{'; ' if t['reason'] else ''}{t['unbuilt']} whose code did not build or was not handed in"
                          if t.get("unbuilt") else "") + "</td></tr>")
        out.append("</table>")
        if lab["timing"]:
            out.append("<h3>Timing tests across the class</h3><div class=\"figs\">")
            for tm in lab["timing"]:
                model = tm["kind"] == "model"
                xlabel = f"emu model: {tm['unit']} (a model, not a timing)" if model else f"fraction {tm['unit']}"
                out.append(strip(list(tm["values"].values()), tm["reference"], f"{tm['test']}", xlabel, not model))
            out.append("</div><h3>Leaderboard</h3>")
            out.append(f"<p class=\"note\">Students are shown by {'name' if data['names'] == 'names' else 'pseudonym'}. "
                       + ("Ranked by the emu's model of bytes moved per element (fewest first): a model, not a timing."
                          if any(tm["kind"] == "model" for tm in lab["timing"])
                          else "Ranked by the fraction of copy bandwidth reached, measured in the same run (for "
                               "lab 01, on the CPU: of memcpy).") + "</p>")
            out.append("<div class=\"figs\">")
            for tm in lab["timing"]:
                unit = f"{tm['unit']} (model)" if tm["kind"] == "model" else f"fraction {tm['unit']}"
                values = {v for _, v in tm["leaderboard"]}
                if tm["kind"] == "model" and len(values) == 1 and len(tm["leaderboard"]) > 1:
                    # the model's figure of every right kernel of one design: a ranking of ties says nothing
                    out.append(f"<p class=\"note\">{esc(tm['test'])}: all {len(tm['leaderboard'])} students at "
                               f"{_fmt(next(iter(values)))} {esc(unit)}: the model does not rank them.</p>")
                    continue
                out.append(f"<table><tr><th colspan=\"3\">{esc(tm['test'])}</th></tr>"
                           f"<tr><th>#</th><th>student</th><th>{esc(unit)}</th></tr>")
                for i, (who, v) in enumerate(tm["leaderboard"][:10], 1):
                    out.append(f"<tr><td class=\"num\">{i}</td><td>{esc(who)}</td><td class=\"num\">{_fmt(v)}</td></tr>")
                if tm["reference"] is not None:
                    out.append(f"<tr><td></td><td><i>reference solution</i></td>"
                               f"<td class=\"num\">{_fmt(tm['reference'])}</td></tr>")
                out.append("</table>")
            out.append("</div>")
    secs = list(data["seconds"].values())
    out.append("<h2>Grading times</h2><div class=\"figs\">")
    if secs:
        ticks = _nice_ticks(0, max(secs) or 1, 10)
        out.append(histogram(secs, 0, ticks[-1], len(ticks) - 1, "Time to grade one student",
                             "seconds (build and every test)"))
    out.append("</div>")
    out.append(f"<h2>Late submissions ({len(data['late'])})</h2>")
    if data["late"]:
        out.append("<table><tr><th>student</th><th>lab</th><th>arrived</th><th>due</th><th>late</th>"
                   "<th>score</th><th>final</th></tr>")
        for r in data["late"]:
            out.append(f"<tr><td>{esc(r['student'])}</td><td>{esc(r['lab'])}</td>"
                       f"<td class=\"when\">{esc(r['arrived'].replace('T', ' '))}</td>"
                       f"<td class=\"when\">{esc(r['due'].replace('T', ' '))}</td><td>{esc(r['late'])}</td><td class=\"num\">{esc(r['score'])}</td>"
                       f"<td class=\"num\">{esc(r['final'])}</td></tr>")
        out.append("</table>")
    else:
        out.append("<p class=\"note\">None" + ("" if data["course"] else " (no course file: no deadlines)") + ".</p>")
    if skipped or warnings:
        out.append("<h2>Entries of the class folder</h2><table><tr><th>entry</th><th>what happened</th></tr>")
        for e, why in skipped:
            out.append(f"<tr><td>{esc(e)}</td><td>not graded: {esc(why)}</td></tr>")
        for e, w in warnings:
            out.append(f"<tr><td>{esc(e)}</td><td>{esc(w)}</td></tr>")
        out.append("</table>")
    blob = json.dumps(data, sort_keys=True).replace("</", "<\\/")
    out.append(f'<script type="application/json" id="report-data">{blob}</script></body></html>')
    return "\n".join(out)


def write(out_dir, rows, outcomes, reference, manifests, backend, course_, skipped=(), warnings=()):
    data = gather(rows, outcomes, reference, manifests, backend, course_, out_dir)
    path = os.path.join(out_dir, "report.html")
    with open(path + ".tmp", "w") as f:
        f.write(page(data, skipped, warnings))
    os.replace(path + ".tmp", path)
    return path
