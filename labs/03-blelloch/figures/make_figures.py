#!/usr/bin/env python3
"""Draws lab 03's figures (standard library only); writes the SVG files beside this script.

    lab03_upsweep.svg     the up-sweep (reduce) on the worked example, step by step
    lab03_downsweep.svg   the down-sweep that turns the sums into the exclusive scan
    lab03_banks.svg       which banks one warp touches at stride 16, unpadded and padded
    lab03_degrees.svg     the n-way conflict degree of every step at block = 512

and for the slides (slides/03-blelloch.tex), the same data with larger text and less of it:
    lab03_upsweep_slide.svg, lab03_downsweep_slide.svg, lab03_banks_slide.svg,
    lab03_degrees_slide.svg
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
IN = [3, 1, 7, 0, 4, 1, 6, 3]
FONT = 'font-family="DejaVu Sans, Arial, sans-serif"'
STYLE = ('<style>.lbl{font-size:14px;fill:#333}.val{font-size:16px;fill:#111}'
         '.idx{font-size:11px;fill:#777}.note{font-size:12px;fill:#555}'
         '.add{stroke:#1f5fa8;stroke-width:1.6;fill:none;marker-end:url(#hb)}'
         '.copy{stroke:#c0392b;stroke-width:1.6;fill:none;stroke-dasharray:5,3;marker-end:url(#hr)}'
         '.keep{stroke:#bbb;stroke-width:1;fill:none}</style>')
# The slide variants: drawn to be shown about 230 pt wide (a column of a 16:9 slide), where text
# must be at least 7 pt, so no text under 3 % of the figure's width.
SLIDE_STYLE = (STYLE.replace(".lbl{font-size:14px", ".lbl{font-size:21px").replace(".val{font-size:16px", ".val{font-size:22px")
               .replace(".idx{font-size:11px", ".idx{font-size:20px").replace(".note{font-size:12px", ".note{font-size:20px"))
DEFS = ('<defs><marker id="hb" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" '
        'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#1f5fa8"/></marker>'
        '<marker id="hr" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" '
        'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#c0392b"/></marker></defs>')

CELL, GAP, LEFT = 46, 12, 170
ROW = 86


def svg(width, height, body, style=STYLE):
    return "\n".join([f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
                      f'viewBox="0 0 {width} {height}" {FONT}>', DEFS, style,
                      '<rect width="100%" height="100%" fill="white"/>'] + body + ["</svg>"]) + "\n"


def write(name, text):
    with open(os.path.join(HERE, name), "w") as f:
        f.write(text)


def cx(i, left=LEFT):
    return left + i * (CELL + GAP) + CELL / 2


def row(y, values, label, highlight=(), fill="#eef4fb", hot="#fbe9d0", left=LEFT):
    out = [f'<text x="{left - 14}" y="{y + 25}" text-anchor="end" class="lbl">{label}</text>']
    for i, v in enumerate(values):
        x = left + i * (CELL + GAP)
        f = hot if i in highlight else fill
        out.append(f'<rect x="{x}" y="{y}" width="{CELL}" height="36" rx="4" fill="{f}" stroke="#1f5fa8"/>')
        out.append(f'<text x="{x + CELL / 2}" y="{y + 24}" text-anchor="middle" class="val">{v}</text>')
    return out


def index_row(y, left=LEFT):
    return [f'<text x="{cx(i, left)}" y="{y}" text-anchor="middle" class="idx">[{i}]</text>'
            for i in range(len(IN))]


def upsweep_steps():
    """[(stride, values after the step, [(a, b)])]"""
    x, n, steps, s = list(IN), len(IN), [], 1
    while s < n:
        pairs = [(s * (2 * t + 1) - 1, s * (2 * t + 2) - 1) for t in range(n // (2 * s))]
        for a, b in pairs:
            x[b] += x[a]
        steps.append((s, list(x), pairs))
        s *= 2
    return steps


def downsweep_steps(x):
    n, steps, s = len(x), [], len(x) // 2
    while s >= 1:
        pairs = [(s * (2 * t + 1) - 1, s * (2 * t + 2) - 1) for t in range(n // (2 * s))]
        for a, b in pairs:
            x[a], x[b] = x[b], x[a] + x[b]
        steps.append((s, list(x), pairs))
        s //= 2
    return steps


SLIDE_LEFT = 110  # room for the slide variants' row labels


def upsweep(slide=False):
    left = SLIDE_LEFT if slide else LEFT
    body, y = [], 30
    body += index_row(y - 8, left)
    body += row(y, IN, "in", left=left)
    prev = IN
    for s, vals, pairs in upsweep_steps():
        y0, y = y + 36, y + ROW
        y1 = y
        for i in range(len(IN)):
            if i not in [b for _, b in pairs]:
                body.append(f'<line x1="{cx(i, left)}" y1="{y0}" x2="{cx(i, left)}" y2="{y1}" class="keep"/>')
        for a, b in pairs:
            body.append(f'<path d="M{cx(a, left)},{y0} C{cx(a, left)},{y0 + 30} {cx(b, left)},{y1 - 30} '
                        f'{cx(b, left) - 4},{y1 - 2}" class="add"/>')
            body.append(f'<line x1="{cx(b, left)}" y1="{y0}" x2="{cx(b, left)}" y2="{y1 - 2}" class="add"/>')
        body += row(y, vals, f"stride {s}", highlight=[b for _, b in pairs], left=left)
        prev = vals
    if slide:  # the notes are the slide's text
        write("lab03_upsweep_slide.svg", svg(left + len(IN) * (CELL + GAP), y + 48, body, SLIDE_STYLE))
        return
    t = len(upsweep_steps())
    body.append(f'<text x="{LEFT}" y="{y + 62}" class="note">blue: x[b] = x[a] + x[b] with a = s(2t+1)-1, '
                f'b = s(2t+2)-1; {t} steps, {len(IN) - 1} additions.</text>')
    body.append(f'<text x="{LEFT}" y="{y + 80}" class="note">orange: the elements written in that step. '
                f'The last element ends with the sum of the tile ({prev[-1]}).</text>')
    width = max(LEFT + len(IN) * (CELL + GAP) + 20, 780)
    write("lab03_upsweep.svg", svg(width, y + 96, body))


def downsweep(slide=False):
    left = SLIDE_LEFT if slide else LEFT
    x = list(upsweep_steps()[-1][1])
    body, y = [], 30
    body += index_row(y - 8, left)
    body += row(y, x, "up-swept" if slide else "after up-sweep", left=left)
    x[-1] = 0
    y0, y = y + 36, y + ROW
    for i in range(len(IN)):
        body.append(f'<line x1="{cx(i, left)}" y1="{y0}" x2="{cx(i, left)}" y2="{y}" class="keep"/>')
    body += row(y, x, "last := 0", highlight=[len(IN) - 1], left=left)
    for s, vals, pairs in downsweep_steps(list(x)):
        y0, y = y + 36, y + ROW
        touched = {a for a, _ in pairs} | {b for _, b in pairs}
        for i in range(len(IN)):
            if i not in touched:
                body.append(f'<line x1="{cx(i, left)}" y1="{y0}" x2="{cx(i, left)}" y2="{y}" class="keep"/>')
        for a, b in pairs:
            # right child b: old left + parent (blue, both arrows); left child a: parent's value (red)
            body.append(f'<path d="M{cx(b, left)},{y0} C{cx(b, left)},{y0 + 30} {cx(a, left)},{y - 30} '
                        f'{cx(a, left) + 4},{y - 2}" class="copy"/>')
            body.append(f'<path d="M{cx(a, left)},{y0} C{cx(a, left)},{y0 + 30} {cx(b, left)},{y - 30} '
                        f'{cx(b, left) - 4},{y - 2}" class="add"/>')
            body.append(f'<line x1="{cx(b, left)}" y1="{y0}" x2="{cx(b, left)}" y2="{y - 2}" class="add"/>')
        body += row(y, vals, f"stride {s}", highlight=sorted(touched), left=left)
    if slide:
        write("lab03_downsweep_slide.svg", svg(left + len(IN) * (CELL + GAP), y + 48, body, SLIDE_STYLE))
        return
    body.append(f'<text x="{LEFT}" y="{y + 62}" class="note">red (dashed): x[a] = x[b], the parent\'s '
                'value goes to the left child.</text>')
    body.append(f'<text x="{LEFT}" y="{y + 80}" class="note">blue: x[b] = old x[a] + x[b], the right '
                'child gets the parent plus the left subtree\'s sum.</text>')
    body.append(f'<text x="{LEFT}" y="{y + 98}" class="note">The last row is the exclusive scan of '
                '{' + ','.join(map(str, IN)) + '}.</text>')
    width = max(LEFT + len(IN) * (CELL + GAP) + 20, 780)
    write("lab03_downsweep.svg", svg(width, y + 114, body))


def bank_panel(y, words, title):
    """32 bank columns; each touched word stacked as a small box in its bank. Returns (svg, bottom)."""
    out = [f'<text x="20" y="{y}" class="lbl">{title}</text>']
    per_bank = {}
    for w in words:
        per_bank.setdefault(w % 32, []).append(w)
    tallest = max(len(v) for v in per_bank.values())
    bw, left, base = 24, 60, y + 24 + 6 * tallest + 12
    for b in range(32):
        x = left + b * bw
        out.append(f'<rect x="{x}" y="{base}" width="{bw - 2}" height="16" fill="#eef4fb" stroke="#1f5fa8"/>')
        out.append(f'<text x="{x + bw / 2 - 1}" y="{base + 12}" text-anchor="middle" class="idx">{b}</text>')
        for k, w in enumerate(per_bank.get(b, [])):
            out.append(f'<rect x="{x + 2}" y="{base - 6 - (k + 1) * 6}" width="{bw - 6}" height="5" '
                       f'fill="#c0392b"/>')
    deg = max(len(v) for v in per_bank.values())
    out.append(f'<text x="{left}" y="{base + 34}" class="note">banks 0..31; each red box is one word '
               f'the warp reads: {deg}-way ' + (f'({deg} passes instead of 1)' if deg > 1 else '(one pass: no conflict)') + '</text>')
    return out, base + 60


def banks():
    s = 16
    a = [s * (2 * t + 1) - 1 for t in range(32)]
    body, y = bank_panel(24, a, "unpadded: warp 0 reads x[16(2t+1)-1] = x[15], x[47], x[79], ... "
                         "(block 512, up-sweep stride 16)")
    more, y = bank_panel(y, [i + (i >> 5) for i in a],
                         "padded: the same elements at words i + (i >> 5) = 15, 48, 81, ...: one per bank")
    write("lab03_banks.svg", svg(860, y - 20, body + more))


def banks_slide():
    """The two panels of lab03_banks.svg for a slide's full width: bank numbers at 16 units of
    872, a title per panel with its degree, the stacks half as tall."""
    s, bw, left, body, y = 16, 26, 20, [], 0
    a = [s * (2 * t + 1) - 1 for t in range(32)]
    for words, what in ((a, "unpadded, x[s(2t+1)-1] at stride 16"), ([i + (i >> 5) for i in a], "padded, i + (i >> 5)")):
        per_bank = {}
        for w in words:
            per_bank.setdefault(w % 32, []).append(w)
        deg = max(len(v) for v in per_bank.values())
        y += 22
        body.append(f'<text x="{left}" y="{y}" class="lbl">{what.replace(">", "&gt;")}: '
                    f'{deg}-way ({deg} pass{"es" if deg > 1 else ""})</text>')
        base = y + 8 + 4 * deg + 6
        for b in range(32):
            x = left + b * bw
            out_fill = "#fbe9d0" if b in per_bank else "#eef4fb"
            body.append(f'<rect x="{x}" y="{base}" width="{bw - 2}" height="20" fill="{out_fill}" stroke="#1f5fa8"/>')
            body.append(f'<text x="{x + bw / 2 - 1}" y="{base + 15}" text-anchor="middle" class="idx">{b}</text>')
            for k in range(len(per_bank.get(b, []))):
                body.append(f'<rect x="{x + 2}" y="{base - 4 - (k + 1) * 4}" width="{bw - 6}" height="3" fill="#c0392b"/>')
        y = base + 34
    style = STYLE.replace(".lbl{font-size:14px", ".lbl{font-size:18px").replace(".idx{font-size:11px", ".idx{font-size:16px")
    write("lab03_banks_slide.svg", svg(left + 32 * bw + 20, y - 6, body, style))


def degree(words):
    per = {}
    for w in set(words):
        per.setdefault(w % 32, set()).add(w)
    return max((len(v) for v in per.values()), default=0)


def step_degrees(block, pad):
    steps = []

    def instr(elems):
        worst = 0
        for w0 in range(0, block, 32):
            ws = [pad(e) for e in (elems(t) for t in range(w0, min(w0 + 32, block))) if e is not None]
            if ws:
                worst = max(worst, degree(ws))
        return worst
    steps.append(("load", max(instr(lambda t: t), instr(lambda t: t + block))))
    s = 1
    while s <= block:
        a = instr(lambda t, s=s: s * (2 * t + 1) - 1 if t < block // s else None)
        b = instr(lambda t, s=s: s * (2 * t + 2) - 1 if t < block // s else None)
        steps.append((f"up {s}", max(a, b)))
        s *= 2
    s = block
    while s >= 1:
        a = instr(lambda t, s=s: s * (2 * t + 1) - 1 if t < block // s else None)
        b = instr(lambda t, s=s: s * (2 * t + 2) - 1 if t < block // s else None)
        steps.append((f"down {s}", max(a, b)))
        s //= 2
    steps.append(("store", steps[0][1]))
    return steps


def degrees():
    block = 512
    before = step_degrees(block, lambda i: i)
    after = step_degrees(block, lambda i: i + (i >> 5))
    left, top, h, bw = 60, 40, 260, 32
    body = [f'<text x="{left}" y="22" class="lbl">n-way degree per step, block = {block}: '
            f'unpadded (red), padded with i + (i &gt;&gt; 5) (blue)</text>']
    for k in (1, 4, 8, 16, 32):
        y = top + h - h * k / 32
        body.append(f'<line x1="{left}" y1="{y}" x2="{left + len(before) * bw}" y2="{y}" stroke="#eee"/>')
        body.append(f'<text x="{left - 6}" y="{y + 4}" text-anchor="end" class="idx">{k}</text>')
    for j, ((label, d0), (_, d1)) in enumerate(zip(before, after)):
        x = left + j * bw
        body.append(f'<rect x="{x + 3}" y="{top + h - h * d0 / 32}" width="{bw / 2 - 3}" '
                    f'height="{h * d0 / 32}" fill="#c0392b"/>')
        body.append(f'<rect x="{x + bw / 2}" y="{top + h - h * d1 / 32}" width="{bw / 2 - 3}" '
                    f'height="{h * d1 / 32}" fill="#1f5fa8"/>')
        body.append(f'<text x="{x + bw / 2}" y="{top + h + 14}" text-anchor="end" class="idx" '
                    f'transform="rotate(-60 {x + bw / 2} {top + h + 14})">{label}</text>')
    body.append(f'<text x="{left}" y="{top + h + 78}" class="note">The stride-16 steps put all 32 '
                'threads of a warp in one bank (32-way); padding makes every step 1-way.</text>')
    write("lab03_degrees.svg", svg(left + len(before) * bw + 30, top + h + 96, body))


def degrees_slide():
    """lab03_degrees.svg for a slide's column: the same bars, narrower, each step named by its
    stride under an up / down bracket, text at 20 units of 594."""
    block = 512
    before = step_degrees(block, lambda i: i)
    after = step_degrees(block, lambda i: i + (i >> 5))
    left, top, h, bw = 44, 40, 240, 24
    right = left + len(before) * bw
    body = [f'<text x="{left}" y="24" class="lbl"><tspan fill="#c0392b">unpadded</tspan>, '
            f'<tspan fill="#1f5fa8">padded</tspan>; block {block}</text>']
    for k in (1, 8, 16, 32):
        y = top + h - h * k / 32
        body.append(f'<line x1="{left}" y1="{y}" x2="{right}" y2="{y}" stroke="#eee"/>')
        body.append(f'<text x="{left - 6}" y="{y + 7}" text-anchor="end" class="idx">{k}</text>')
    groups = {}
    for j, ((label, d0), (_, d1)) in enumerate(zip(before, after)):
        x = left + j * bw
        body.append(f'<rect x="{x + 2}" y="{top + h - h * d0 / 32}" width="{bw / 2 - 2}" '
                    f'height="{h * d0 / 32}" fill="#c0392b"/>')
        body.append(f'<rect x="{x + bw / 2}" y="{top + h - h * d1 / 32}" width="{bw / 2 - 2}" '
                    f'height="{h * d1 / 32}" fill="#1f5fa8"/>')
        kind, _, stride = label.partition(" ")
        groups.setdefault(kind, []).append(x)
        body.append(f'<text x="{x + bw / 2 + 7}" y="{top + h + 6}" text-anchor="end" class="idx" '
                    f'transform="rotate(-90 {x + bw / 2 + 7} {top + h + 6})">{stride or kind}</text>')
    for kind in ("up", "down"):
        x0, x1 = groups[kind][0] + 2, groups[kind][-1] + bw - 2
        body.append(f'<path d="M{x0},{top + h + 58} v6 H{x1} v-6" stroke="#555" fill="none"/>')
        body.append(f'<text x="{(x0 + x1) / 2}" y="{top + h + 86}" text-anchor="middle" class="lbl">{kind}-sweep</text>')
    style = (STYLE.replace(".lbl{font-size:14px", ".lbl{font-size:21px")
             .replace(".idx{font-size:11px;fill:#777", ".idx{font-size:20px;fill:#555"))
    write("lab03_degrees_slide.svg", svg(right + 14, top + h + 96, body, style))


def main():
    upsweep()
    downsweep()
    banks()
    degrees()
    upsweep(slide=True)
    downsweep(slide=True)
    banks_slide()
    degrees_slide()


if __name__ == "__main__":
    main()
