#!/usr/bin/env python3
"""Draws lab 02's figures (standard library only). Run from anywhere; writes beside this script:

    lab02_kogge_stone.svg     the Kogge-Stone data flow for n = 8
    lab02_double_buffer.svg   the same steps ping-ponging between two shared arrays
    lab02_race.svg            what a missing barrier between reads and writes does
    lab02_tiles.svg           the batched launch: one block per tile, a short last tile

and for the slides (slides/02-kogge-stone.tex), the same data with larger text and no notes (the
slide's text says it): lab02_kogge_stone_slide.svg, lab02_double_buffer_slide.svg,
lab02_race_slide.svg, lab02_tiles_slide.svg.
"""
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
IN = [3, 1, 7, 0, 4, 1, 6, 3]
CELL, PITCH = 46, 60          # cell width, distance between cell centres
BLUE, GREEN, ORANGE, GREY, RED = "#eef4fb", "#dcebd5", "#fbe9d0", "#f0f0f0", "#c0392b"

STYLE = ('<style>.lbl{font-size:14px;fill:#333}.val{font-size:16px;fill:#111}'
         '.small{font-size:12px;fill:#555}.note{font-size:12px;fill:#555}'
         '.title{font-size:14px;fill:#1f5fa8;font-weight:bold}'
         '.arr{stroke:#888;stroke-width:1.2;fill:none;marker-end:url(#h)}'
         '.hot{stroke:#c0392b;stroke-width:1.6;fill:none;marker-end:url(#hr)}'
         '.keep{stroke:#bbb;stroke-width:1.2;stroke-dasharray:4 3;fill:none;marker-end:url(#h)}'
         '.bar{stroke:#1f5fa8;stroke-width:1.5;stroke-dasharray:7 4}'
         '.op{fill:#fff;stroke:#555;stroke-width:1.2}</style>')
DEFS = ('<defs><marker id="h" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" '
        'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#777"/></marker>'
        '<marker id="hr" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" '
        'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#c0392b"/></marker></defs>')


# The two wide figures (over 1100 units) are shown shrunk to the handout's width (about 900 px):
# their small text is drawn larger, so that it is at least 11 px as shown.
WIDE_STYLE = STYLE.replace(".small{font-size:12px", ".small{font-size:16px").replace(
    ".note{font-size:12px", ".note{font-size:16px").replace(".lbl{font-size:14px", ".lbl{font-size:16px").replace(
    ".title{font-size:14px", ".title{font-size:16px")


def sized(px):
    """STYLE with every text at least px units (the values one more): for the slide variants,
    whose text must be 7 pt where the slide places them."""
    out = re.sub(r"font-size:(\d+)px", lambda m: f"font-size:{max(int(m.group(1)), px)}px", STYLE)
    return out.replace(".val{font-size:%dpx" % max(16, px), ".val{font-size:%dpx" % max(16, px + 1))


def svg(name, width, height, body, style=STYLE):
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif">',
           DEFS, style, '<rect width="100%" height="100%" fill="white"/>'] + body + ["</svg>"]
    with open(os.path.join(HERE, name), "w") as f:
        f.write("\n".join(out) + "\n")


def text(x, y, s, cls="lbl", anchor="start"):
    return f'<text x="{x}" y="{y}" text-anchor="{anchor}" class="{cls}">{s}</text>'


def cell(x, y, v, fill, stroke="#1f5fa8", h=36, cls="val", w=CELL):
    return [f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="4" fill="{fill}" stroke="{stroke}"/>',
            text(x + w / 2, y + h / 2 + 6, v, cls, "middle")]


def row(left, y, values, fill, label=None, fills=None, strokes=None):
    out = []
    if label:
        out.append(text(left - 12, y + 24, label, "lbl", "end"))
    for i, v in enumerate(values):
        f = fills[i] if fills else fill
        s = strokes[i] if strokes else "#1f5fa8"
        out += cell(left + i * PITCH, y, v, f, s)
    return out


def steps(values):
    """The rows of the Kogge-Stone scan: the input, then the array after each step."""
    rows, offset, cur = [list(values)], 1, list(values)
    while offset < len(values):
        cur = [cur[t] + cur[t - offset] if t >= offset else cur[t] for t in range(len(cur))]
        rows.append(cur)
        offset *= 2
    return rows


def step_arrows(left, y0, y1, offset, n, hot=None):
    """Arrows of one step: from row y0 (cell bottoms) to the + above row y1 (cell tops)."""
    out = []
    for t in range(n):
        xc = left + t * PITCH + CELL / 2
        if t < offset:
            out.append(f'<line x1="{xc}" y1="{y0 + 36}" x2="{xc}" y2="{y1 - 2}" class="keep"/>')
            continue
        cy = y1 - 18
        xs = left + (t - offset) * PITCH + CELL / 2
        cls = "hot" if hot == t else "arr"
        out.append(f'<line x1="{xc}" y1="{y0 + 36}" x2="{xc}" y2="{cy - 9}" class="arr"/>')
        out.append(f'<line x1="{xs}" y1="{y0 + 36}" x2="{xc - 7}" y2="{cy - 5}" class="{cls}"/>')
        out.append(f'<circle cx="{xc}" cy="{cy}" r="9" class="op"/>')
        out.append(text(xc, cy + 5, "+", "small", "middle"))
        out.append(f'<line x1="{xc}" y1="{cy + 9}" x2="{xc}" y2="{y1 - 2}" class="arr"/>')
    return out


# ---- figure 1: the data flow ---------------------------------------------------------------

def kogge_stone(slide=False):
    left, top, dy = 150, 50, 100
    rows = steps(IN)
    n = len(IN)
    body = [text(left - 12, top - 18, "thread t", "small", "end")]
    body += [text(left + t * PITCH + CELL / 2, top - 18, str(t), "small", "middle") for t in range(n)]
    labels = ["in"] + [f"offset {1 << k}" for k in range(len(rows) - 1)]
    for k, vals in enumerate(rows):
        y = top + k * dy
        fill = BLUE if k == 0 else (GREEN if k == len(rows) - 1 else "#ffffff")
        body += row(left, y, vals, fill, labels[k])
        if k > 0:
            offset = 1 << (k - 1)
            body += step_arrows(left, y - dy, y, offset, n)
            body.append(text(left + n * PITCH + 4, y - dy / 2 + 10,
                             f"{n - offset} additions", "small"))
    yb = top + (len(rows) - 1) * dy + 60
    if slide:  # text at 15 units of 740: 7 pt at the slide's 0.86 of its height
        svg("lab02_kogge_stone_slide.svg", left + n * PITCH + 110, yb - 14, body, sized(15))
        return
    adds = sum(n - (1 << k) for k in range(len(rows) - 1))
    body.append(text(left - 120, yb, f"log2 8 = 3 steps; {adds} additions in all (the serial scan "
                     "needs 7). Dashed: the value stays.", "note"))
    body.append(text(left - 120, yb + 18, "After the step with offset d, element t holds the sum "
                     "of the 2d elements ending at t (fewer at the left edge).", "note"))
    svg("lab02_kogge_stone.svg", left + n * PITCH + 110, yb + 34, body)


# ---- figure 2: double buffer ---------------------------------------------------------------

def double_buffer(slide=False):
    n = len(IN)
    left0, gapx, top, dy = 130, 40, 62, 86
    w = n * PITCH - (PITCH - CELL)
    left1 = left0 + w + gapx + 20
    rows = steps(IN)
    body = [text(left0 + w / 2, top - 26, "buffer 0: s[0 .. B-1]", "title", "middle"),
            text(left1 + w / 2, top - 26, "buffer 1: s[B .. 2B-1]", "title", "middle")]
    bufs = [list(IN), ["?"] * n]
    labels = ["load"] + [f"offset {1 << k}" for k in range(len(rows) - 1)]
    for k in range(len(rows)):
        y = top + k * dy
        if k > 0:
            bufs[k % 2] = rows[k]
        written = 0 if k == 0 else k % 2
        for b, left in ((0, left0), (1, left1)):
            fresh = b == written
            fill = (GREEN if k == len(rows) - 1 else (BLUE if b == 0 else ORANGE)) if fresh else GREY
            stroke = "#1f5fa8" if fresh else "#bbb"
            body += row(left, y, [str(v) for v in bufs[b]], fill, None,
                        strokes=[stroke] * n)
        body.append(text(left0 - 12, y + 24, labels[k], "lbl", "end"))
        if k > 0:
            src, dst = (left0, left1) if written == 1 else (left1, left0)
            xa = src + w / 2 + (30 if written == 1 else -30)
            xb = dst + w / 2 + (-30 if written == 1 else 30)
            body.append(f'<line x1="{xa}" y1="{y - dy + 40}" x2="{xb}" y2="{y - 3}" class="hot"/>')
            body.append(text((left0 + w + left1) / 2, y - 10, f"read {'0' if written == 1 else '1'}, "
                             f"write {written}", "small", "middle").replace(
                                 "<text", '<text style="paint-order:stroke;stroke:#fff;stroke-width:5px"' if slide else "<text"))
            body.append(f'<line x1="{left0 - 110}" y1="{y + 48}" x2="{left1 + w}" y2="{y + 48}" class="bar"/>')
            if not slide:
                body.append(text(left1 + w, y + 62, "__syncthreads()", "small", "end"))
        elif k == 0:
            body.append(f'<line x1="{left0 - 110}" y1="{y + 48}" x2="{left1 + w}" y2="{y + 48}" class="bar"/>')
            if not slide:
                body.append(text(left1 + w, y + 62, "__syncthreads()", "small", "end"))
    yb = top + len(rows) * dy + 14
    if slide:  # text at 21 units of 1142: 7.3 pt across the slide's width
        body.append(text(left1 + w, yb - 8, "dashed: __syncthreads()", "small", "end"))
        svg("lab02_double_buffer_slide.svg", left1 + w + 20, yb + 2, body, sized(21))
        return
    body.append(text(left0 - 110, yb, "Each step reads one buffer and writes the other (coloured: "
                     "just written; grey: stale). Nobody writes the buffer being read,", "note"))
    body.append(text(left0 - 110, yb + 18, "so one barrier per step suffices: it ends the writes "
                     "that the next step reads, and the reads of the buffer it overwrites.", "note"))
    svg("lab02_double_buffer.svg", left1 + w + 20, yb + 34, body, WIDE_STYLE)


# ---- figure 3: the race --------------------------------------------------------------------

def race(slide=False):
    vals = IN[:4]
    # the slide's variant: narrower columns, cells "read s[0]=3", text at 21 units of 1158
    colw, left, top = (176, 170, 70) if slide else (190, 200, 70)
    body = []

    def panel(x0, title, events, barrier_after=None):
        out = [text(x0 + 1.5 * colw, top - 40, title, "title", "middle")]
        for c, t in enumerate((1, 2, 3)):
            out.append(text(x0 + c * colw + colw / 2, top - 14, f"thread {t}", "lbl", "middle"))
        for r, (t, what, bad) in enumerate(events):
            y = top + r * 40 + (22 if barrier_after is not None and r > barrier_after else 0)
            x = x0 + (t - 1) * colw + 8
            fill = "#f9d6d2" if bad else (BLUE if what.startswith("read") else GREEN)
            stroke = RED if bad else "#1f5fa8"
            if slide:
                what = what.replace(" = ", "=")
            out += cell(x, y, what, fill, stroke, h=30, cls="small", w=colw - 16)
        if barrier_after is not None:
            y = top + (barrier_after + 1) * 40 + 4
            out.append(f'<line x1="{x0}" y1="{y}" x2="{x0 + 3 * colw}" y2="{y}" class="bar"/>')
            out.append(text(x0 + 3 * colw, y + 14, "__syncthreads()", "small", "end"))
        return out

    # in place, offset 1, on s = {3, 1, 7, 0}: the right answer is {3, 4, 8, 7}
    good = [(1, f"read s[0] = {vals[0]}", False), (2, f"read s[1] = {vals[1]}", False),
            (3, f"read s[2] = {vals[2]}", False),
            (1, f"write s[1] = {vals[1] + vals[0]}", False), (2, f"write s[2] = {vals[2] + vals[1]}", False),
            (3, f"write s[3] = {vals[3] + vals[2]}", False)]
    good_out = [vals[0]] + [vals[t] + vals[t - 1] for t in (1, 2, 3)]
    s = list(vals)
    bad = []
    for t in (1, 2, 3):  # thread order of the emu's forward schedule, no barrier in between
        left_v = s[t - 1]
        bad.append((t, f"read s[{t - 1}] = {left_v}", t > 1))
        s[t] += left_v
        bad.append((t, f"write s[{t}] = {s[t]}", t > 1))
    body += panel(left - 120, "with the barrier", good, barrier_after=2)
    body += panel(left - 120 + 3 * colw + 60, "without it: one thread after another" if slide else
                  "without it (threads run one after another)", bad)
    body.append(f'<line x1="{left - 130}" y1="{top - 10}" x2="{left - 130}" y2="{top + 250}" class="arr"/>')
    if slide:  # the label along the axis, in the narrow margin
        body.append(f'<text x="{left - 136}" y="{top + 120}" text-anchor="middle" class="small" '
                    f'transform="rotate(-90 {left - 136} {top + 120})">time</text>')
    else:
        body.append(text(left - 136, top + 120, "time", "small", "end"))
    yb = top + 6 * 40 + 50
    if slide:
        body.append(text(left - 120, yb, f"Right: {{{', '.join(map(str, good_out))}}}. Without the barrier: "
                         f"{{{', '.join(map(str, s))}}}.", "note"))
        svg("lab02_race_slide.svg", left - 120 + 6 * colw + 80, yb + 16, body, sized(21))
        return
    body.append(text(left - 120, yb, f"One step (offset 1) on s = {{3, 1, 7, 0}}. Right: {{3, 4, 8, 7}}. "
                     f"Without the barrier, thread 2 reads s[1] after thread 1 overwrote it: "
                     f"{{{', '.join(map(str, s))}}}.", "note"))
    body.append(text(left - 120, yb + 18, "The emu's forward schedule runs threads in this order and "
                     "exposes it; reverse order hides it, but exposes a missing barrier after the writes.",
                     "note"))
    svg("lab02_race.svg", left - 120 + 6 * colw + 80, yb + 34, body, WIDE_STYLE)


# ---- figure 4: tiles -----------------------------------------------------------------------

def tiles(slide=False):
    data = [3, 1, 7, 0, 4, 1, 6, 3, 5, 2]
    B, n = 4, len(data)
    ntiles = (n + B - 1) // B
    left, top, gap = 120, 60, 26
    body = []

    def x_of(j):
        return left + j * PITCH + (j // B) * gap

    loads, outs = [], []
    for b in range(ntiles):
        acc = 0
        for t in range(B):
            j = b * B + t
            v = data[j] if j < n else 0
            acc += v
            loads.append((j, v, j < n))
            outs.append((j, acc, j < n))
    for b in range(ntiles):
        x0, x1 = x_of(b * B) - 6, x_of(b * B + B - 1) + CELL + 6
        body.append(f'<rect x="{x0}" y="{top - 34}" width="{x1 - x0}" height="{230}" rx="8" '
                    f'fill="none" stroke="#1f5fa8" stroke-dasharray="3 3"/>')
        body.append(text((x0 + x1) / 2, top - 14, f"block {b}: tile {b}", "title", "middle"))
    body.append(text(left - 12, top + 24, "in", "lbl", "end"))
    body.append(text(left - 12, top + 134, "out", "lbl", "end"))
    for j, v, live in loads:
        body += cell(x_of(j), top, str(v) if live else "0", BLUE if live else GREY,
                     "#1f5fa8" if live else "#bbb")
    for j, v, live in outs:
        body += cell(x_of(j), top + 110, str(v), GREEN if live else GREY, "#1f5fa8" if live else "#bbb")
        xc = x_of(j) + CELL / 2
        cls = "arr" if live else "keep"
        body.append(f'<line x1="{xc}" y1="{top + 40}" x2="{xc}" y2="{top + 106}" class="{cls}"/>')
    for j in range(n):
        body.append(text(x_of(j) + CELL / 2, top + 172, f"[{j}]", "small", "middle"))
    xm = (x_of(n) + x_of(ntiles * B - 1) + CELL) / 2
    body.append(text(xm, top + 172, "load 0," if slide else "past n: load 0,", "small", "middle"))
    body.append(text(xm, top + 190 if slide else top + 188, "no store" if slide else "store nothing",
                     "small", "middle"))
    yb = top + 230
    if slide:  # text at 17 units of 918: 7.4 pt across the slide's width
        svg("lab02_tiles_slide.svg", x_of(ntiles * B - 1) + CELL + 40, yb - 14, body, sized(17))
        return
    body.append(text(left, yb, f"n = {n}, blockSize B = {B}: ceil(n / B) = {ntiles} blocks. Block b "
                     "scans elements b*B .. b*B + B-1 on its own; the last tile is short.", "note"))
    body.append(text(left, yb + 18, "Each output is the sum within its tile only: lab 05 adds the "
                     "totals of the tiles before it.", "note"))
    svg("lab02_tiles.svg", x_of(ntiles * B - 1) + CELL + 40, yb + 34, body)


def main():
    kogge_stone()
    double_buffer()
    race()
    tiles()
    kogge_stone(slide=True)
    double_buffer(slide=True)
    race(slide=True)
    tiles(slide=True)


if __name__ == "__main__":
    main()
