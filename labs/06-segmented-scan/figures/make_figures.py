#!/usr/bin/env python3
"""Draws the figures of lab 06 as SVG (Python standard library only).

    python3 labs/06-segmented-scan/figures/make_figures.py

Writes beside this script:
  lab06_segments.svg   values, head flags, segments, inclusive and exclusive results
  lab06_operator.svg   the segmented operator on (flag, value) pairs, and a scan of pairs
  lab06_warp.svg       data movement of the direct warp scan on 8 lanes (Sengupta et al., figure 1.12, redrawn)
  lab06_block.svg      a block scan from warp scans (Sengupta et al., figure 1.13, redrawn)
  lab06_lookback.svg   the look-back with flags: a tile with a head publishes its prefix at once
  lab06_sweep.svg      the work-efficient up-sweep / down-sweep with flags
  lab06_bench.svg      H100 measurements, from ../bench/h100_tune.log
and their slide variants lab06_*_slide.svg (the same data, larger text, shorter labels, no notes).

Every number drawn is computed here from the example data, so the drawings cannot disagree
with the definitions; the bench plot reads the measurement log.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
LOG = os.path.join(HERE, "..", "bench", "h100_tune.log")

VALUES = [3, 1, 7, 0, 4, 1, 6, 3]
FLAGS = [1, 0, 1, 0, 0, 1, 0, 1]
SEG_FILL = ["#dbe8f7", "#fde3c8", "#d9f0d3", "#eadcf2", "#f7f3c6", "#f2d6d6"]
BLUE, GRAY, RED, GREEN, LIGHT = "#1f5fa8", "#555555", "#c0392b", "#2e7d32", "#bbbbbb"


# ---- the definitions --------------------------------------------------------------------------

def seg_inclusive(x, f):
    out, acc = [], 0
    for i, (v, h) in enumerate(zip(x, f)):
        acc = v if (h or i == 0) else acc + v
        out.append(acc)
    return out


def seg_exclusive(x, f):
    out, acc = [], 0
    for i, (v, h) in enumerate(zip(x, f)):
        if h or i == 0:
            acc = 0
        out.append(acc)
        acc += v
    return out


def segment_ids(f):
    ids, s = [], -1
    for i, h in enumerate(f):
        if h or i == 0:
            s += 1
        ids.append(s)
    return ids


def mindex(f):
    """The lane of each lane's head (0 when none at or below): segHeadLane."""
    out, m = [], 0
    for lane, h in enumerate(f):
        if h:
            m = lane
        out.append(m)
    return out


def direct_steps(x, f):
    """The values after each step d = 1, 2, 4 of the direct warp scan, and which lanes took
    a value (lane >= mindex + d) or would have in an unsegmented scan (lane >= d)."""
    m = mindex(f)
    cur, steps = list(x), []
    d = 1
    while d < len(x):
        took = [lane >= m[lane] + d for lane in range(len(x))]
        blocked = [lane >= d and not took[lane] for lane in range(len(x))]
        cur = [cur[l - d] + cur[l] if took[l] else cur[l] for l in range(len(x))]
        steps.append((d, list(cur), took, blocked))
        d *= 2
    return steps


def sweep_states(x, f):
    """The work-efficient segmented exclusive scan: the (values, flags) after each level."""
    n = len(x)
    x, fo, f = list(x), list(f), list(f)
    states = [("input", list(x), list(f), set())]
    d = 1
    while d < n:
        changed = set()
        for k in range(0, n, 2 * d):
            r, l = k + 2 * d - 1, k + d - 1
            if not f[r]:
                x[r] = x[l] + x[r]
            f[r] = f[l] or f[r]
            changed.add(r)
        states.append((f"up-sweep, d = {d}", list(x), list(f), changed))
        d *= 2
    x[n - 1] = 0
    states.append(("root := 0", list(x), list(f), {n - 1}))
    d = n // 2
    while d >= 1:
        changed = set()
        for k in range(0, n, 2 * d):
            r, l = k + 2 * d - 1, k + d - 1
            t = x[l]
            x[l] = x[r]
            if fo[k + d]:
                x[r] = 0
            elif f[l]:
                x[r] = t
            else:
                x[r] = t + x[r]
            f[l] = 0
            changed |= {l, r}
        states.append((f"down-sweep, d = {d}", list(x), list(f), changed))
        d //= 2
    return states


# ---- drawing ---------------------------------------------------------------------------------

# The docs show these figures at their own width: no text below 11 px there (make check's
# browser test measures it).
MIN_FONT = 11


def esc(s):
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class Svg:
    def __init__(self, w, h, title, floor=0):
        """floor: the smallest text size (the slide variants, whose text must be 7 pt as placed);
        no title when title is None."""
        self.w, self.h, self.floor = w, h, floor
        self.items = [] if title is None else \
            [f'<text x="16" y="24" font-size="{max(15, floor)}" font-weight="bold">{esc(title)}</text>']

    def rect(self, x, y, w, h, fill="white", stroke="#333333", dash=None, width=1.0, rx=0):
        d = f' stroke-dasharray="{dash}"' if dash else ""
        self.items.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="{rx}" '
                          f'fill="{fill}" stroke="{stroke}" stroke-width="{width}"{d}/>')

    def text(self, x, y, s, size=12, anchor="middle", color="#111111", weight="normal", italic=False):
        st = ' font-style="italic"' if italic else ""
        size = max(size, MIN_FONT, self.floor)
        self.items.append(f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
                          f'fill="{color}" font-weight="{weight}"{st}>{esc(s)}</text>')

    def line(self, x1, y1, x2, y2, color=GRAY, width=1.2, dash=None, arrow=False):
        d = f' stroke-dasharray="{dash}"' if dash else ""
        m = f' marker-end="url(#{self.marker(color)})"' if arrow else ""
        self.items.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{color}" '
                          f'stroke-width="{width}"{d}{m}/>')

    def path(self, d, color=GRAY, width=1.2, dash=None, arrow=False, fill="none"):
        ds = f' stroke-dasharray="{dash}"' if dash else ""
        m = f' marker-end="url(#{self.marker(color)})"' if arrow else ""
        self.items.append(f'<path d="{d}" fill="{fill}" stroke="{color}" stroke-width="{width}"{ds}{m}/>')

    def marker(self, color):
        return "m" + color.lstrip("#")

    def cell(self, x, y, v, w=34, h=26, fill="white", bold=False, color="#111111", stroke="#333333"):
        self.rect(x, y, w, h, fill=fill, stroke=stroke)
        self.text(x + w / 2, y + h / 2 + 4.5, v, weight="bold" if bold else "normal", color=color)

    def save(self, name):
        colors = sorted({c for c in (BLUE, GRAY, RED, GREEN, LIGHT, "#111111")})
        defs = "".join(
            f'<marker id="{self.marker(c)}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
            f'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{c}"/></marker>'
            for c in colors)
        body = "\n".join(self.items)
        svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.w}" height="{self.h}" '
               f'viewBox="0 0 {self.w} {self.h}" font-family="Helvetica, Arial, sans-serif" font-size="12">\n'
               f'<defs>{defs}</defs>\n<rect width="{self.w}" height="{self.h}" fill="white"/>\n{body}\n</svg>\n')
        with open(os.path.join(HERE, name), "w") as f:
            f.write(svg)


def row_of(s, x0, y, values, fills=None, label=None, w=34, gap=4, bold=False, colors=None):
    if label:
        s.text(x0 - 12, y + 17, label, anchor="end")
    for i, v in enumerate(values):
        s.cell(x0 + i * (w + gap), y, v, w=w, fill=fills[i] if fills else "white", bold=bold,
               color=colors[i] if colors else "#111111")


def boundaries(s, x0, y1, y2, f, w=34, gap=4):
    for i, h in enumerate(f):
        if h and i > 0:
            x = x0 + i * (w + gap) - gap / 2
            s.line(x, y1, x, y2, color=RED, width=1.6, dash="5 3")


# ---- the figures -------------------------------------------------------------------------------

def fig_segments(slide=False):
    # the slide's variant: text at least 17 units of 236 high (7.3 pt at 0.42 of the slide's
    # height), the index labelled on the left, no note
    s = Svg(560, 236, "Segments from head flags, and their scans", floor=17) if slide else \
        Svg(560, 270, "Segments from head flags, and their scans")
    x0, ids = 170, segment_ids(FLAGS)
    fills = [SEG_FILL[k] for k in ids]
    if slide:
        s.text(x0 - 12, 68, "index", anchor="end", color=GRAY)
    else:
        s.text(x0 + 4 * 38 - 2, 50, "element index", size=11, color=GRAY)
    for i in range(8):
        s.text(x0 + i * 38 + 17, 68, i, size=11, color=GRAY)
    row_of(s, x0, 78, VALUES, fills, "values")
    row_of(s, x0, 112, FLAGS, None, "head flags", colors=[RED if h else LIGHT for h in FLAGS])
    row_of(s, x0, 160, seg_inclusive(VALUES, FLAGS), fills, "inclusive", bold=True)
    row_of(s, x0, 194, seg_exclusive(VALUES, FLAGS), fills, "exclusive", bold=True)
    boundaries(s, x0, 74, 226, FLAGS)
    if slide:
        s.save("lab06_segments_slide.svg")
        return
    s.text(x0 + 4 * 38 - 2, 252, "[3 1] [7 0 4] [1 6] [3]: a head (flag 1) starts a segment; each scans on its own",
           size=11, color=GRAY)
    s.save("lab06_segments.svg")


def fig_operator(slide=False):
    # the slide's variant: the two cases and the scan of pairs without the formula (the slide
    # writes it) and the notes; text at least 14 units of 680 wide (8 pt at the slide's width)
    if slide:
        s = Svg(680, 170, None, floor=14)
        y, dx, x00, yp = 8, 335, 10, 62
    else:
        s = Svg(760, 300, "The segmented operator on (flag, value) pairs, and lab 04's scan on pairs")
        s.text(20, 56, "(fa, a) (+)s (fb, b) = (fa | fb,  fb ? b : a (+) b)", anchor="start", size=14,
               weight="bold", color=BLUE)
        s.text(20, 80, "A pair is a range of elements: does a segment start in it, and the value of its last "
               "segment.", anchor="start", size=11, color=GRAY)
        y, dx, x00, yp = 100, 370, 20, 170
    # two cases
    for k, (fa, a, fb, b) in enumerate([(1, 3, 0, 1), (0, 7, 1, 4)]):
        x = x00 + k * dx
        res = (fa | fb, b if fb else a + b)
        s.cell(x, y, f"({fa}, {a})", w=64, fill=SEG_FILL[0])
        s.text(x + 80, y + 18, "(+)s")
        s.cell(x + 96, y, f"({fb}, {b})", w=64, fill=SEG_FILL[1] if fb else SEG_FILL[0])
        s.text(x + 176, y + 18, "=")
        s.cell(x + 190, y, f"({res[0]}, {res[1]})", w=64, fill=SEG_FILL[1] if fb else SEG_FILL[0], bold=True)
        s.text(x + 262, y + 18, ("b flagged" if fb else "b open") if slide else
               ("b flagged: b alone" if fb else "b open: a + b"), anchor="start", size=11, color=GRAY)
    # a scan of pairs
    x0 = 170
    pairs = [f"({h},{v})" for v, h in zip(VALUES, FLAGS)]
    scanned, acc = [], None
    for v, h in zip(VALUES, FLAGS):
        acc = (h, v) if acc is None else (acc[0] | h, v if h else acc[1] + v)
        scanned.append(f"({acc[0]},{acc[1]})")
    fills = [SEG_FILL[k] for k in segment_ids(FLAGS)]
    row_of(s, x0, yp, pairs, fills, "pairs (flag, x)", w=52, gap=6)
    for i in range(8):
        s.line(x0 + i * 58 + 26, yp + 28, x0 + i * 58 + 26, yp + 52, color=GRAY, arrow=True)
    row_of(s, x0, yp + 56, scanned, fills, "scanIncWarp, (+)s", w=52, gap=6, bold=True)
    if slide:
        s.save("lab06_operator_slide.svg")
        return
    s.text(x0 + 4 * 58 - 3, 280, "the values of the scanned pairs are the segmented inclusive scan: "
           + " ".join(str(v) for v in seg_inclusive(VALUES, FLAGS)), size=11, color=GRAY)
    s.save("lab06_operator.svg")


def fig_warp(slide=False):
    # the slide's variant, for a column of 0.48 of the slide: 384 wide, text at least 15 units
    # (7.5 pt), short row names, heads shown by the boundaries only, no note
    steps = direct_steps(VALUES, FLAGS)
    if slide:
        s = Svg(384, 118 + 56 * len(steps), None, floor=15)
        x0, w, gap, top = 76, 34, 4, -24
    else:
        s = Svg(700, 222 + 56 * len(steps), "Direct warp scan on 8 lanes: shuffles never cross a head")
        x0, w, gap, top = 190, 40, 8, 0
    pitch = w + gap
    ids = segment_ids(FLAGS)
    fills = [SEG_FILL[k] for k in ids]
    if slide:
        s.text(x0 - 12, 52 + top, "lane", anchor="end", color=GRAY)
    for i in range(8):
        s.text(x0 + i * pitch + w / 2, 52 + top, i if slide else f"lane {i}", size=10, color=GRAY)
    row_of(s, x0, 58 + top, mindex(FLAGS), None, "mindex" if slide else "mindex (segHeadLane)", w=w, gap=gap,
           colors=[BLUE] * 8)
    row_of(s, x0, 90 + top, VALUES, fills, "x" if slide else "x (h: head)", w=w, gap=gap)
    if not slide:
        for i, h in enumerate(FLAGS):
            if h:
                s.text(x0 + i * pitch + w - 5, 100, "h", size=9, color=RED, weight="bold")
    y = 122 + top
    prev_y = 58 + top
    for d, cur, took, blocked in steps:
        y += 40
        for lane in range(8):
            xa = x0 + (lane - d) * pitch + w / 2
            xb = x0 + lane * pitch + w / 2
            if took[lane]:
                s.line(xa, y - 36, xb, y - 2, color=BLUE, width=1.6, arrow=True)
            elif blocked[lane]:
                s.line(xa, y - 36, xb, y - 2, color=LIGHT, width=1.2, dash="3 3")
        row_of(s, x0, y, cur, fills, f"d = {d}" if slide else f"after d = {d}", w=w, gap=gap,
               colors=[BLUE if took[l] else "#111111" for l in range(8)], bold=False)
        prev_y = y
        y += 16
    boundaries(s, x0, 54 + top, prev_y + 30, FLAGS, w=w, gap=gap)
    if slide:
        s.save("lab06_warp_slide.svg")
        return
    s.text(350, prev_y + 52, "solid: lane >= mindex + d takes the value of lane - d; dotted: what an "
           "unsegmented scan", size=11, color=GRAY)
    s.text(350, prev_y + 68, "would move across a head. With 8 lanes the steps d = 8, 16 move nothing; the "
           "lanes hold", size=11, color=GRAY)
    s.text(350, prev_y + 84, "the inclusive result " + " ".join(str(v) for v in seg_inclusive(VALUES, FLAGS))
           + ".", size=11, color=GRAY)
    s.save("lab06_warp.svg")


BLOCK_X = [3, 1, 7, 2, 4, 1, 6, 3, 2, 5, 1, 2]
BLOCK_F = [1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0]


def fig_block(slide=False):
    # the slide's variant: text at least 18 units of 372 high (7.3 pt at 0.62 of the slide's
    # height), wider pair cells, a short title, no note
    lanes = 4
    warps = len(BLOCK_X) // lanes
    if slide:
        s = Svg(700, 372, "3 warps of 4 lanes", floor=18)
        x0, w, gap, wgap, pw = 160, 36, 4, 22, 80
    else:
        s = Svg(820, 420, "Block scan from warp scans: the carry reaches only each warp's first segment")
        x0, w, gap, wgap, pw = 150, 36, 4, 22, 64
    ids = segment_ids(BLOCK_F)
    fills = [SEG_FILL[k] for k in ids]

    def X(i):
        return x0 + i * (w + gap) + (i // lanes) * wgap

    for wi in range(warps):
        s.text(X(wi * lanes) + 2 * (w + gap) - gap / 2, 52, f"warp {wi}", size=11, color=GRAY)
    for i in range(len(BLOCK_X)):
        s.cell(X(i), 60, BLOCK_X[i], w=w, fill=fills[i])
        s.cell(X(i), 92, BLOCK_F[i], w=w, color=RED if BLOCK_F[i] else LIGHT)
    s.text(x0 - 12, 77, "x", anchor="end")
    s.text(x0 - 12, 109, "head", anchor="end")
    # step 1: each warp on its own
    local, totals, wflags, first_seg = [], [], [], []
    for wi in range(warps):
        xs, fs = BLOCK_X[wi * lanes:(wi + 1) * lanes], BLOCK_F[wi * lanes:(wi + 1) * lanes]
        sc = seg_inclusive(xs, [1] + fs[1:])
        local += sc
        totals.append(sc[-1])
        wflags.append(int(any(fs)))
        seen = False
        for h in fs:
            seen = seen or bool(h)
            first_seg.append(not seen)
    s.text(x0 - 12, 157, "1: warp scans", anchor="end")
    for i, v in enumerate(local):
        s.cell(X(i), 140, v, w=w, fill=fills[i])
        if first_seg[i] and i >= lanes:
            s.rect(X(i) - 2, 138, w + 4, 30, fill="none", stroke=GREEN, width=2, dash="4 2")
    # step 2/3: warp totals and their segmented scan
    s.text(x0 - 12, 222, "2: (flag, total)", anchor="end")
    s.text(x0 - 12, 282, "3: scanned", anchor="end")
    scanned = seg_inclusive(totals, [1] + wflags[1:])
    for wi in range(warps):
        cx = X(wi * lanes) + 2 * (w + gap) - gap / 2
        s.cell(cx - pw / 2, 205, f"({wflags[wi]}, {totals[wi]})", w=pw, fill="#f4f4f4")
        s.line(X(wi * lanes + lanes - 1) + w / 2, 170, cx, 203, color=GRAY, arrow=True)
        s.cell(cx - pw / 2, 265, scanned[wi], w=pw, fill="#f4f4f4", bold=True)
        s.line(cx, 233, cx, 263, color=GRAY, arrow=True)
    # step 4: carry into the first segment of warps 1..
    final = list(local)
    for wi in range(1, warps):
        for l in range(lanes):
            i = wi * lanes + l
            if first_seg[i]:
                final[i] = scanned[wi - 1] + local[i]
    s.text(x0 - 12, 352, "4: + carry", anchor="end")
    for i, v in enumerate(final):
        s.cell(X(i), 335, v, w=w, fill=fills[i], bold=True, color=GREEN if (first_seg[i] and i >= lanes) else "#111111")
    for wi in range(1, warps):
        src = X((wi - 1) * lanes) + 2 * (w + gap) - gap / 2
        dst = X(wi * lanes) + w / 2
        s.path(f"M{src + 20:.1f},{295} C{src + 60:.1f},{320} {dst - 30:.1f},{300} {dst:.1f},{333}", color=GREEN,
               width=1.6, arrow=True)
    assert final == seg_inclusive(BLOCK_X, BLOCK_F)
    for i, h in enumerate(BLOCK_F):
        if h and i > 0:
            xb = X(i) - gap / 2
            s.line(xb, 56, xb, 172, color=RED, width=1.6, dash="5 3")
            s.line(xb, 331, xb, 365, color=RED, width=1.6, dash="5 3")
    if slide:
        s.save("lab06_block_slide.svg")
        return
    s.text(410, 400, "dashed green: the open first segment of a warp (no head at or before the lane); "
           "only it takes the carry", size=11, color=GRAY)
    s.save("lab06_block.svg")


def fig_lookback(slide=False):
    # the slide's variant: text at least 16 units of 860 wide (7.4 pt at the slide's width),
    # shorter labels, no notes (the slide's text says it)
    tiles = 8
    has_head = [1, 0, 1, 0, 1, 0, 0, 0]
    status = ["P", "P", "P", "I", "P", "A", "A", "me"]
    title = "Look-back with flags: a tile that holds a head publishes its prefix at once"
    s = Svg(860, 244, title, floor=16) if slide else Svg(860, 300, title)
    x0, w, gap = (20, 96, 6) if slide else (40, 86, 12)
    colors = {"P": GREEN, "A": BLUE, "I": GRAY, "me": RED}
    names = {"P": "PREFIX", "A": "AGGREGATE", "I": "INVALID", "me": "looking back"}
    for t in range(tiles):
        x = x0 + t * (w + gap)
        s.rect(x, 60, w, 56, fill="#f7f7f7" if status[t] != "me" else "#fdecea", stroke="#333333")
        s.text(x + w / 2, 78, f"tile {t}", size=12, weight="bold")
        s.text(x + w / 2, 98 if slide else 96, ("head" if slide else "head inside") if has_head[t] else "no head",
               size=10, color=RED if has_head[t] else GRAY)
        s.text(x + w / 2, 140, names[status[t]], size=11, color=colors[status[t]],
               weight="normal" if slide else "bold")
    if not slide:  # tile 4 published before tile 3
        s.text(x0 + 4 * (w + gap) + w / 2, 154, "published at once,", size=10, color=GREEN)
        s.text(x0 + 4 * (w + gap) + w / 2, 167, "tile 3 not yet", size=10, color=GREEN)
    # look-back window of tile 7: lanes 0.. read tiles 6, 5, 4, ...
    for lane, t in enumerate([6, 5, 4, 3, 2]):
        x = x0 + t * (w + gap) + w / 2
        used = t >= 4
        s.path(f"M{x0 + 7 * (w + gap) + w / 2:.1f},{190} Q{(x + x0 + 7 * (w + gap) + w / 2) / 2:.1f},"
               f"{230 + 8 * lane} {x:.1f},{192}", color=RED if used else LIGHT, width=1.5 if used else 1,
               dash=None if used else "3 3", arrow=True)
        s.text(x, 184, f"lane {lane}", size=9, color=RED if used else LIGHT)  # above the arrowhead
    if slide:
        s.save("lab06_lookback_slide.svg")
        return
    s.text(430, 270, "tile 7: carry = p4 (+) a5 (+) a6, the farthest on the left; the window's nearest "
           "PREFIX (tile 4) ends the look-back, even though tile 3 is INVALID", size=11, color=GRAY)
    s.text(430, 288, "then tile 7 (no head) publishes PREFIX = carry (+) a7; a tile with a head would have "
                     "published before looking back", size=11, color=GRAY)
    s.save("lab06_lookback.svg")


def fig_sweep(slide=False):
    # the slide's variant, for half the slide's width: 424 wide, text at least 16 units (7.5 pt),
    # short level names (up 1: the up-sweep's d = 1), no notes
    states = sweep_states(VALUES, FLAGS)
    if slide:
        s = Svg(424, 20 + 38 * len(states), None, floor=16)
        x0, w, fw, gap, top, dy = 72, 41, 15, 3, -30, 38
    else:
        s = Svg(700, 90 + 44 * len(states), "Work-efficient segmented scan (up-sweep, down-sweep) with flags")
        x0, w, fw, gap, top, dy = 200, 48, 14, 6, 0, 44
    for i in range(8):
        s.text(x0 + i * (w + gap) + w / 2, 50 + top, i, size=10, color=GRAY)
    y = 58 + top
    for label, xs, fs, changed in states:
        if slide:
            label = label.replace("up-sweep, d = ", "up ").replace("down-sweep, d = ", "down ").replace(
                "root := 0", "root")
        s.text(x0 - 8 if slide else x0 - 12, y + 19, label, anchor="end", size=11)
        for i in range(8):
            fill = "#fff3cd" if i in changed else "white"
            s.cell(x0 + i * (w + gap), y, f"{xs[i]}", w=w - fw, fill=fill)
            s.cell(x0 + i * (w + gap) + w - fw, y, fs[i], w=fw, fill=fill, color=RED if fs[i] else LIGHT)
        y += dy
    assert states[-1][1] == seg_exclusive(VALUES, FLAGS)
    if slide:
        s.save("lab06_sweep_slide.svg")
        return
    s.text(30, y + 8, "Each cell: value | flag; shaded: written at that level. The last row is the exclusive "
           "segmented scan.", size=11, color=GRAY, anchor="start")
    s.text(30, y + 26, "The down-sweep also reads the original flags: the right child of a split at a head "
           "gets 0 (the identity).", size=11, color=GRAY, anchor="start")
    s.save("lab06_sweep.svg")


def read_log():
    blocks, cur = [], None
    with open(LOG) as f:
        for line in f:
            word, _, rest = line.partition(" ")
            if word == "DEVICE":
                cur = [json.loads(rest), []]
                blocks.append(cur)
            elif word == "RESULT":
                cur[1].append(json.loads(rest))
    return blocks


def solution_block(blocks):
    """The shape the solution uses (seg_scan.h): 128 threads x 64, at most 128 registers."""
    for dev, rows in blocks:
        if dev["threads"] == 128 and dev["items"] == 64 and dev["min_blocks"] == 4:
            return dev, rows
    raise SystemExit("make_figures: the solution's shape is not in " + LOG)


def fig_bench(slide=False):
    """slide: the slide's variant, four series (the single pass and the libraries), text at least
    16 units of 400 high (7.4 pt at 0.76 of the slide's height), no notes."""
    blocks = read_log()
    dev, ours = solution_block(blocks)
    libs = blocks[0][1]  # the first binary timed the libraries too
    lg = 28
    means = [1, 32, 1000, 1048576]
    series = [
        ("06 single pass, inclusive", ours, "06 single pass, inclusive", BLUE),
        ("06 single pass, exclusive", ours, "06 single pass, exclusive", "#6a9fd8"),
        ("CUB InclusiveSumByKey (int keys)", libs, "CUB InclusiveSumByKey (int keys)", "#d62728"),
        ("Thrust inclusive_scan_by_key", libs, "Thrust inclusive_scan_by_key (int keys)", "#ff7f0e"),
        ("CUB InclusiveScan, (flag, value) pairs", libs, "CUB InclusiveScan, (flag, value) pairs", "#8c564b"),
        ("06 warp tiles of 32, operator form", libs, "06 warp tiles, operator form", "#9467bd"),
        ("06 warp tiles of 32, direct form", libs, "06 warp tiles, direct form", "#2ca02c"),
    ]

    def get(rows, name, mean):
        for r in rows:
            if r["variant"] == name and r["log2n"] == lg and r["mean"] == mean:
                return r
        return None

    if slide:
        keep = ("06 single pass, inclusive", "CUB InclusiveSumByKey (int keys)", "Thrust inclusive_scan_by_key",
                "CUB InclusiveScan, (flag, value) pairs")
        short = {"06 single pass, inclusive": "06 single pass", "CUB InclusiveSumByKey (int keys)": "CUB by key",
                 "Thrust inclusive_scan_by_key": "Thrust by key", "CUB InclusiveScan, (flag, value) pairs":
                 "CUB scan of pairs"}
        series = [(short[label], rows, name, color) for label, rows, name, color in series if label in keep]
    copy_ms = get(ours, "06 single pass, inclusive", 32)["copy_ms"]
    copy_rate = (1 << lg) / (copy_ms * 1e-3) * 8 / 9 * 1e-9  # elements/s at 9 bytes each, in G
    if slide:
        W, H, L, T, B = 720, 400, 60, 44, 56
        pw, ph = 470, H - T - B
        s = Svg(W, H, f"G elements per second, 2^{lg} ints", floor=16)
    else:
        W, H, L, T, B = 900, 470, 70, 50, 70
        pw, ph = 560, H - T - B
        s = Svg(W, H, f"Segmented scans of 2^{lg} ints on an {dev['name']}: G elements per second")
    ymax = 360.0

    def Y(v):
        return T + ph - v / ymax * ph

    for k in range(0, int(ymax) + 1, 50):
        s.line(L, Y(k), L + pw, Y(k), color="#e5e5e5", width=1)
        s.text(L - 8, Y(k) + 4, k, anchor="end", size=11)
    s.rect(L, T, pw, ph, fill="none")
    gw = pw / len(means)
    bw = (gw - 20) / len(series)
    for g, mean in enumerate(means):
        gx = L + g * gw + 10
        m = mean if mean < 1 << 20 else f"2^{mean.bit_length() - 1}"
        s.text(gx + (gw - 20) / 2, T + ph + (20 if slide else 18), m if slide else f"mean segment {m}", size=11)
        for k, (label, rows, name, color) in enumerate(series):
            r = get(rows, name, mean)
            if r is None:
                continue
            v = r["gelem_s"]
            s.rect(gx + k * bw, Y(v), bw - 1, T + ph - Y(v), fill=color, stroke="none")
    s.line(L, Y(copy_rate), L + pw, Y(copy_rate), color="#000000", width=1.5, dash="6 4")
    s.text(L + pw - 4, Y(copy_rate) - 6, f"copy{', 9 B' if slide else ' at 9 bytes/element'}: {copy_rate:.0f}",
           anchor="end", size=11)
    if not slide:
        s.text(18, T + ph / 2, "", size=11)
    for k, (label, _, _, color) in enumerate(series):
        y = T + 10 + k * (26 if slide else 22)
        s.rect(L + pw + 20, y - 9, 14, 12, fill=color, stroke="none")
        s.text(L + pw + 40, y + 1 + (2 if slide else 0), label, anchor="start", size=11)
    if slide:
        s.text(L + pw / 2, H - 10, "mean segment length")
        s.save("lab06_bench_slide.svg")
        return
    s.text(L + pw + 20, T + 10 + len(series) * 22 + 14, "by key: int keys, 12 bytes per element;", anchor="start",
           size=10, color=GRAY)
    s.text(L + pw + 20, T + 10 + len(series) * 22 + 28, "the rest: 9 (4 in, 1 flag, 4 out);", anchor="start",
           size=10, color=GRAY)
    s.text(L + pw + 20, T + 10 + len(series) * 22 + 42, "warp tiles scan each 32 on their own.", anchor="start",
           size=10, color=GRAY)
    s.text(L + pw / 2, H - 18, "median of 20 calls each (CUDA events), labs/06-segmented-scan/bench/h100_tune.log",
           size=10, color=GRAY)
    s.save("lab06_bench.svg")


if __name__ == "__main__":
    fig_segments()
    fig_operator()
    fig_warp()
    fig_block()
    fig_lookback()
    fig_sweep()
    fig_bench()
    fig_segments(slide=True)
    fig_operator(slide=True)
    fig_warp(slide=True)
    fig_block(slide=True)
    fig_lookback(slide=True)
    fig_sweep(slide=True)
    fig_bench(slide=True)
    print("wrote", ", ".join(sorted(f for f in os.listdir(HERE) if f.endswith(".svg"))))
