#!/usr/bin/env python3
"""Draws the figures of lab 06 as SVG (Python standard library only).

    python3 labs/06-segmented-scan/figures/make_figures.py

Writes beside this script:
  lab06_segments.svg   values, head flags, segments, inclusive and exclusive results
  lab06_operator.svg   the segmented operator on (flag, value) pairs, and a scan of pairs
  lab06_warp.svg       data movement of the direct warp scan on 8 lanes (000 fig 1.12 redrawn)
  lab06_block.svg      a block scan from warp scans (000 fig 1.13 redrawn)
  lab06_lookback.svg   the look-back with flags: a tile with a head publishes its prefix at once
  lab06_sweep.svg      the work-efficient up-sweep / down-sweep with flags (seed 002)
  lab06_bench.svg      H100 measurements, from ../bench/h100_tune.log

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
    """Seed 002's work-efficient segmented exclusive scan: the (values, flags) after each level."""
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
    def __init__(self, w, h, title):
        self.w, self.h = w, h
        self.items = [f'<text x="16" y="24" font-size="15" font-weight="bold">{esc(title)}</text>']

    def rect(self, x, y, w, h, fill="white", stroke="#333333", dash=None, width=1.0, rx=0):
        d = f' stroke-dasharray="{dash}"' if dash else ""
        self.items.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="{rx}" '
                          f'fill="{fill}" stroke="{stroke}" stroke-width="{width}"{d}/>')

    def text(self, x, y, s, size=12, anchor="middle", color="#111111", weight="normal", italic=False):
        st = ' font-style="italic"' if italic else ""
        size = max(size, MIN_FONT)
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

def fig_segments():
    s = Svg(560, 270, "Segments from head flags, and their scans")
    x0, ids = 170, segment_ids(FLAGS)
    fills = [SEG_FILL[k] for k in ids]
    s.text(x0 + 4 * 38 - 2, 50, "element index", size=11, color=GRAY)
    for i in range(8):
        s.text(x0 + i * 38 + 17, 68, i, size=11, color=GRAY)
    row_of(s, x0, 78, VALUES, fills, "values")
    row_of(s, x0, 112, FLAGS, None, "head flags", colors=[RED if h else LIGHT for h in FLAGS])
    row_of(s, x0, 160, seg_inclusive(VALUES, FLAGS), fills, "inclusive", bold=True)
    row_of(s, x0, 194, seg_exclusive(VALUES, FLAGS), fills, "exclusive", bold=True)
    boundaries(s, x0, 74, 226, FLAGS)
    s.text(x0 + 4 * 38 - 2, 252, "[3 1] [7 0 4] [1 6] [3]: a head (flag 1) starts a segment; each scans on its own",
           size=11, color=GRAY)
    s.save("lab06_segments.svg")


def fig_operator():
    s = Svg(760, 300, "The segmented operator on (flag, value) pairs, and lab 04's scan on pairs")
    s.text(20, 56, "(fa, a) (+)s (fb, b) = (fa | fb,  fb ? b : a (+) b)", anchor="start", size=14, weight="bold",
           color=BLUE)
    s.text(20, 80, "A pair is a range of elements: does a segment start in it, and the value of its last segment.",
           anchor="start", size=11, color=GRAY)
    # two cases
    y = 100
    for k, (fa, a, fb, b) in enumerate([(1, 3, 0, 1), (0, 7, 1, 4)]):
        x = 20 + k * 370
        res = (fa | fb, b if fb else a + b)
        s.cell(x, y, f"({fa}, {a})", w=64, fill=SEG_FILL[0])
        s.text(x + 80, y + 18, "(+)s")
        s.cell(x + 96, y, f"({fb}, {b})", w=64, fill=SEG_FILL[1] if fb else SEG_FILL[0])
        s.text(x + 176, y + 18, "=")
        s.cell(x + 190, y, f"({res[0]}, {res[1]})", w=64, fill=SEG_FILL[1] if fb else SEG_FILL[0], bold=True)
        s.text(x + 262, y + 18, "b flagged: b alone" if fb else "b open: a + b", anchor="start", size=11,
               color=GRAY)
    # a scan of pairs
    x0 = 170
    pairs = [f"({h},{v})" for v, h in zip(VALUES, FLAGS)]
    scanned, acc = [], None
    for v, h in zip(VALUES, FLAGS):
        acc = (h, v) if acc is None else (acc[0] | h, v if h else acc[1] + v)
        scanned.append(f"({acc[0]},{acc[1]})")
    fills = [SEG_FILL[k] for k in segment_ids(FLAGS)]
    row_of(s, x0, 170, pairs, fills, "pairs (flag, x)", w=52, gap=6)
    for i in range(8):
        s.line(x0 + i * 58 + 26, 198, x0 + i * 58 + 26, 222, color=GRAY, arrow=True)
    row_of(s, x0, 226, scanned, fills, "scanIncWarp, (+)s", w=52, gap=6, bold=True)
    s.text(x0 + 4 * 58 - 3, 280, "the values of the scanned pairs are the segmented inclusive scan: "
           + " ".join(str(v) for v in seg_inclusive(VALUES, FLAGS)), size=11, color=GRAY)
    s.save("lab06_operator.svg")


def fig_warp():
    steps = direct_steps(VALUES, FLAGS)
    s = Svg(700, 222 + 56 * len(steps), "Direct warp scan on 8 lanes: shuffles never cross a head")
    x0, w, gap = 190, 40, 8
    pitch = w + gap
    ids = segment_ids(FLAGS)
    fills = [SEG_FILL[k] for k in ids]
    for i in range(8):
        s.text(x0 + i * pitch + w / 2, 52, f"lane {i}", size=10, color=GRAY)
    row_of(s, x0, 58, mindex(FLAGS), None, "mindex (segHeadLane)", w=w, gap=gap, colors=[BLUE] * 8)
    row_of(s, x0, 90, VALUES, fills, "x (h: head)", w=w, gap=gap)
    for i, h in enumerate(FLAGS):
        if h:
            s.text(x0 + i * pitch + w - 5, 100, "h", size=9, color=RED, weight="bold")
    y = 122
    prev_y = 58
    for d, cur, took, blocked in steps:
        y += 40
        for lane in range(8):
            xa = x0 + (lane - d) * pitch + w / 2
            xb = x0 + lane * pitch + w / 2
            if took[lane]:
                s.line(xa, y - 36, xb, y - 2, color=BLUE, width=1.6, arrow=True)
            elif blocked[lane]:
                s.line(xa, y - 36, xb, y - 2, color=LIGHT, width=1.2, dash="3 3")
        row_of(s, x0, y, cur, fills, f"after d = {d}", w=w, gap=gap,
               colors=[BLUE if took[l] else "#111111" for l in range(8)], bold=False)
        prev_y = y
        y += 16
    boundaries(s, x0, 54, prev_y + 30, FLAGS, w=w, gap=gap)
    s.text(350, prev_y + 52, "solid: lane >= mindex + d takes the value of lane - d; dotted: what an "
           "unsegmented scan", size=11, color=GRAY)
    s.text(350, prev_y + 68, "would move across a head. With 8 lanes the steps d = 8, 16 move nothing; the "
           "lanes hold", size=11, color=GRAY)
    s.text(350, prev_y + 84, "the inclusive result " + " ".join(str(v) for v in seg_inclusive(VALUES, FLAGS))
           + ".", size=11, color=GRAY)
    s.save("lab06_warp.svg")


BLOCK_X = [3, 1, 7, 2, 4, 1, 6, 3, 2, 5, 1, 2]
BLOCK_F = [1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0]


def fig_block():
    lanes = 4
    warps = len(BLOCK_X) // lanes
    s = Svg(820, 420, "Block scan from warp scans: the carry reaches only each warp's first segment")
    x0, w, gap, wgap = 150, 36, 4, 22
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
        s.cell(cx - 32, 205, f"({wflags[wi]}, {totals[wi]})", w=64, fill="#f4f4f4")
        s.line(X(wi * lanes + lanes - 1) + w / 2, 170, cx, 203, color=GRAY, arrow=True)
        s.cell(cx - 32, 265, scanned[wi], w=64, fill="#f4f4f4", bold=True)
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
    s.text(410, 400, "dashed green: the open first segment of a warp (no head at or before the lane); "
           "only it takes the carry", size=11, color=GRAY)
    s.save("lab06_block.svg")


def fig_lookback():
    tiles = 8
    has_head = [1, 0, 1, 0, 1, 0, 0, 0]
    status = ["P", "P", "P", "I", "P", "A", "A", "me"]
    s = Svg(860, 300, "Look-back with flags: a tile that holds a head publishes its prefix at once")
    x0, w, gap = 40, 86, 12
    colors = {"P": GREEN, "A": BLUE, "I": GRAY, "me": RED}
    names = {"P": "PREFIX", "A": "AGGREGATE", "I": "INVALID", "me": "looking back"}
    for t in range(tiles):
        x = x0 + t * (w + gap)
        s.rect(x, 60, w, 56, fill="#f7f7f7" if status[t] != "me" else "#fdecea", stroke="#333333")
        s.text(x + w / 2, 78, f"tile {t}", size=12, weight="bold")
        s.text(x + w / 2, 96, "head inside" if has_head[t] else "no head", size=10,
               color=RED if has_head[t] else GRAY)
        s.text(x + w / 2, 140, names[status[t]], size=11, color=colors[status[t]], weight="bold")
    # tile 4 published before tile 3
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
    s.text(430, 270, "tile 7: carry = p4 (+) a5 (+) a6, the farthest on the left; the window's nearest "
           "PREFIX (tile 4) ends the look-back, even though tile 3 is INVALID", size=11, color=GRAY)
    s.text(430, 288, "then tile 7 (no head) publishes PREFIX = carry (+) a7; a tile with a head would have "
                     "published before looking back", size=11, color=GRAY)
    s.save("lab06_lookback.svg")


def fig_sweep():
    states = sweep_states(VALUES, FLAGS)
    s = Svg(700, 90 + 44 * len(states), "Work-efficient segmented scan (up-sweep, down-sweep) with flags")
    x0, w, gap = 200, 48, 6
    for i in range(8):
        s.text(x0 + i * (w + gap) + w / 2, 50, i, size=10, color=GRAY)
    y = 58
    for label, xs, fs, changed in states:
        s.text(x0 - 12, y + 19, label, anchor="end", size=11)
        for i in range(8):
            fill = "#fff3cd" if i in changed else "white"
            s.cell(x0 + i * (w + gap), y, f"{xs[i]}", w=w - 14, fill=fill)
            s.cell(x0 + i * (w + gap) + w - 14, y, fs[i], w=14, fill=fill, color=RED if fs[i] else LIGHT)
        y += 44
    assert states[-1][1] == seg_exclusive(VALUES, FLAGS)
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


def fig_bench():
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

    copy_ms = get(ours, "06 single pass, inclusive", 32)["copy_ms"]
    copy_rate = (1 << lg) / (copy_ms * 1e-3) * 8 / 9 * 1e-9  # elements/s at 9 bytes each, in G
    W, H, L, T, B = 900, 470, 70, 50, 70
    pw, ph = 560, H - T - B
    ymax = 360.0
    s = Svg(W, H, f"Segmented scans of 2^{lg} ints on an {dev['name']}: G elements per second")

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
        s.text(gx + (gw - 20) / 2, T + ph + 18, f"mean segment {mean if mean < 1 << 20 else '2^20'}", size=11)
        for k, (label, rows, name, color) in enumerate(series):
            r = get(rows, name, mean)
            if r is None:
                continue
            v = r["gelem_s"]
            s.rect(gx + k * bw, Y(v), bw - 1, T + ph - Y(v), fill=color, stroke="none")
    s.line(L, Y(copy_rate), L + pw, Y(copy_rate), color="#000000", width=1.5, dash="6 4")
    s.text(L + pw - 4, Y(copy_rate) - 6, f"copy at 9 bytes/element: {copy_rate:.0f}", anchor="end", size=11)
    s.text(18, T + ph / 2, "", size=11)
    for k, (label, _, _, color) in enumerate(series):
        y = T + 10 + k * 22
        s.rect(L + pw + 20, y - 9, 14, 12, fill=color, stroke="none")
        s.text(L + pw + 40, y + 1, label, anchor="start", size=11)
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
    print("wrote", ", ".join(sorted(f for f in os.listdir(HERE) if f.endswith(".svg"))))
