#!/usr/bin/env python3
"""Draws the figures of lab 05 as SVG (Python standard library only).

    python3 labs/05-global-scan/figures/make_figures.py

Writes lab05_block_scan.svg, lab05_anylength.svg, lab05_propagate.svg,
lab05_reduce_then_scan.svg and lab05_lookback.svg beside this script, and their slide variants
(lab05_*_slide.svg: the same data, larger text, shorter labels, no notes). lab05_bench.svg is not
drawn here: it is the plot `make bench` wrote on an H100 (build/bench/bench.svg), copied; the
slide's lab05_bench_slide.svg is drawn here from the handout's table of the same run.

The example data is the kit's worked example, extended to 12 elements:
in {3,1,7,0, 4,1,6,3, 2,5,1,2} -> inclusive {3,4,11,11, 15,16,22,25, 27,32,33,35}.
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))

IN = [3, 1, 7, 0, 4, 1, 6, 3, 2, 5, 1, 2]
GROUP = 4  # elements per warp / tile / range in the drawings
WARP_FILL = ["#dbe8f7", "#fde3c8", "#d9f0d3", "#eadcf2"]
BLUE, GRAY, RED, GREEN = "#1f5fa8", "#555555", "#c0392b", "#2e7d32"


def inclusive(a):
    out, run = [], 0
    for x in a:
        run += x
        out.append(run)
    return out


def exclusive(a):
    out, run = [], 0
    for x in a:
        out.append(run)
        run += x
    return out


def groups(a, g=GROUP):
    return [a[i:i + g] for i in range(0, len(a), g)]


class Svg:
    def __init__(self, w, h, title, floor=0):
        """floor: the smallest text size (the slide variants, whose text must be 7 pt as placed)."""
        self.w, self.h, self.floor = w, h, floor
        self.items = [f'<text x="16" y="24" font-size="{max(15, floor)}" font-weight="bold">{esc(title)}</text>']

    def rect(self, x, y, w, h, fill="white", stroke="#333333", rx=0, dash=None, width=1):
        d = f' stroke-dasharray="{dash}"' if dash else ""
        self.items.append(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="{rx}" fill="{fill}" '
                          f'stroke="{stroke}" stroke-width="{width}"{d}/>')

    def text(self, x, y, s, size=12, anchor="middle", color="#111111", weight="normal", family=None):
        f = f' font-family="{family}"' if family else ""
        size = max(size, self.floor)
        self.items.append(f'<text x="{x}" y="{y}" font-size="{size}" text-anchor="{anchor}" fill="{color}" '
                          f'font-weight="{weight}"{f}>{esc(str(s))}</text>')

    def arrow(self, x1, y1, x2, y2, color=GRAY, width=1.3, dash=None):
        d = f' stroke-dasharray="{dash}"' if dash else ""
        mid = {GRAY: "a-gray", BLUE: "a-blue", RED: "a-red", GREEN: "a-green"}.get(color, "a-gray")
        self.items.append(f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{color}" '
                          f'stroke-width="{width}" marker-end="url(#{mid})"{d}/>')

    def cells(self, x, y, values, cw=30, ch=24, fills=None, gap=0, group=None, bold=False, color="#111111"):
        """A row of boxes with numbers; a gap of `gap` pixels after every `group` cells."""
        xs = []
        cx = x
        for i, v in enumerate(values):
            if group and i and i % group == 0:
                cx += gap
            fill = fills[i] if fills else "white"
            self.rect(cx, y, cw, ch, fill=fill)
            self.text(cx + cw / 2, y + ch / 2 + 4.5, v, weight="bold" if bold else "normal", color=color)
            xs.append(cx)
            cx += cw
        return xs

    def save(self, name):
        defs = "".join(
            f'<marker id="{i}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
            f'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="{c}"/></marker>'
            for i, c in (("a-gray", GRAY), ("a-blue", BLUE), ("a-red", RED), ("a-green", GREEN)))
        body = "\n".join(self.items)
        svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.w}" height="{self.h}" '
               f'viewBox="0 0 {self.w} {self.h}" font-family="Helvetica, Arial, sans-serif">\n'
               f'<defs>{defs}</defs>\n<rect width="{self.w}" height="{self.h}" fill="white"/>\n{body}\n</svg>\n')
        with open(os.path.join(HERE, name), "w") as f:
            f.write(svg)


def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def fills_by_group(n, g=GROUP):
    return [WARP_FILL[(i // g) % len(WARP_FILL)] for i in range(n)]


# ---- 1. the block scan -------------------------------------------------------------------------

def block_scan(slide=False):
    # the slide's variant: text at least 18 units of 400 high (7.4 pt at 0.68 of the slide's
    # height), short step names (the slide's text says the rest), no note
    s = Svg(760, 352, "3 warps, drawn with 4 lanes each", floor=18) if slide else \
        Svg(760, 400, "scanIncBlock: a block scan from warp scans (3 warps, drawn with 4 lanes each)")
    name = (lambda full, short: short) if slide else (lambda full, short: full)
    x0, cw, gap = 250, 34, 18
    fills = fills_by_group(len(IN))
    warp_scans = sum((inclusive(g) for g in groups(IN)), [])
    totals = [inclusive(g)[-1] for g in groups(IN)]
    scanned = inclusive(totals)
    final = inclusive(IN)
    s.text(16, 60 + 16, name("x: one value per thread", "x"), anchor="start")
    s.cells(x0, 60, IN, cw=cw, fills=fills, group=GROUP, gap=gap)
    for w in range(3):
        s.text(x0 + w * (GROUP * cw + gap) + GROUP * cw / 2, 52, f"warp {w}", size=11, color=GRAY)
    s.text(16, 120 + 16, name("1. scanIncWarp in every warp", "1. warp scans"), anchor="start")
    xs = s.cells(x0, 120, warp_scans, cw=cw, fills=fills, group=GROUP, gap=gap)
    for i in range(len(IN)):
        s.arrow(xs[i] + cw / 2, 86, xs[i] + cw / 2, 118)
    s.text(16, 196, name("2. lane 31 of warp w writes", "2. lane 31 writes"), anchor="start")
    s.text(16, 216 if slide else 212, name("    its total to s_tmp[w]", "    the warp's total"), anchor="start")
    tx = 560
    ts = s.cells(tx, 185, totals, cw=cw, fills=[WARP_FILL[i] for i in range(3)])
    s.text(tx + 3 * cw + 10, 201, "s_tmp", anchor="start", color=GRAY, family="monospace")
    for w in range(3):
        last = xs[w * GROUP + GROUP - 1] + cw / 2
        s.arrow(last, 146, ts[w] + cw / 2, 183, color=BLUE)
    s.text(16, 262, name("3. warp 0 scans s_tmp", "3. warp 0 scans"), anchor="start")
    ss = s.cells(tx, 250, scanned, cw=cw, fills=[WARP_FILL[i] for i in range(3)])
    for w in range(3):
        s.arrow(ts[w] + cw / 2, 211, ss[w] + cw / 2, 248)
    s.text(tx + 3 * cw + 10, 266, "s_tmp", anchor="start", color=GRAY, family="monospace")
    s.text(16, 330, name("4. warp w > 0 adds s_tmp[w-1]", "4. warps w > 0 add"), anchor="start")
    xf = s.cells(x0, 318, final, cw=cw, fills=fills, group=GROUP, gap=gap, bold=True)
    for w in (1, 2):
        s.arrow(ss[w - 1] + cw / 2, 276, xf[w * GROUP] + cw * 2, 316, color=BLUE, dash="4 3")
    for i in range(GROUP):
        s.arrow(xs[i] + cw / 2, 146, xs[i] + cw / 2, 316, color="#bbbbbb", width=0.8)
    if slide:
        s.save("lab05_block_scan_slide.svg")
        return
    s.text(16, 380, "Three barriers per call, whatever the block size: after steps 2 and 3, and one at "
           "the end so that s_tmp can be reused.", anchor="start", size=11, color=GRAY)
    s.save("lab05_block_scan.svg")


# ---- 2. one block, any length -----------------------------------------------------------------

def anylength(slide=False):
    # the slide's variant: text at least 17 units of 380 high (7.3 pt at 0.66 of the slide's
    # height), short labels, no note
    s = Svg(780, 380, "4 threads, chunks of 3: one tile", floor=17) if slide else \
        Svg(780, 430, "One block, any length: tiles staged through shared memory, a carry from tile to tile")
    name = (lambda full, short: short) if slide else (lambda full, short: full)
    T = 4  # threads drawn
    chunk = 3
    tile = IN  # 12 elements = one tile of 4 threads x chunk 3
    cw, x0 = (40, 230) if slide else (34, 230)
    thread_fill = ["#dbe8f7", "#fde3c8", "#d9f0d3", "#eadcf2"]
    # global memory, colored by the thread that loads each element (coalesced: j = k*T + t)
    s.text(16, 76, name("global: thread t loads", "global: thread t"), anchor="start")
    s.text(16, 92 + (4 if slide else 0), name("j = t, t+T, t+2T (coalesced)", "loads t, t+T, ..."), anchor="start")
    gx = s.cells(x0, 66, tile, cw=cw, fills=[thread_fill[j % T] for j in range(len(tile))])
    for j in range(len(tile)):
        s.text(gx[j] + cw / 2, 60, f"t{j % T}", size=11, color=GRAY)
    s.text(16, 156, name("shared tile (padded index)", "shared tile"), anchor="start")
    sx = s.cells(x0, 140, tile, cw=cw, fills=[thread_fill[j // chunk] for j in range(len(tile))], group=chunk, gap=10)
    for j in range(len(tile)):
        s.arrow(gx[j] + cw / 2, 92, sx[j] + cw / 2, 138, width=0.9)
    for t in range(T):
        s.text(sx[t * chunk] + cw * chunk / 2, 182 if slide else 180, name(f"chunk of t{t}", f"t{t}'s chunk"),
               size=11, color=GRAY)
    # chunk scans, block scan of chunk totals, carry
    chunk_tot = [sum(tile[t * chunk:(t + 1) * chunk]) for t in range(T)]
    s.text(16, 224, name("scanIncBlock(chunk totals)", "scan chunk totals"), anchor="start")
    cx = s.cells(x0 + 40, 210, chunk_tot, cw=cw, fills=thread_fill)
    s.arrow(cx[-1] + cw + 8, 222, cx[-1] + cw + 58, 222, color=BLUE)
    s.cells(cx[-1] + cw + 62, 210, inclusive(chunk_tot), cw=cw, fills=thread_fill)
    s.text(cx[-1] + cw + 62 + 2 * cw, 256 if slide else 252,
           name("each thread: its offset = inclusive - own total", "offset = inclusive - own total"),
           size=11, color=GRAY)
    carry = 100
    res = [carry + v for v in inclusive(tile)]
    s.text(16, 302, name(f"scanned, + carry ({carry}), stored", f"+ carry ({carry}),"), anchor="start")
    s.text(16, 318 + (4 if slide else 0), name("coalesced through shared", "stored"), anchor="start")
    s.cells(x0, 290, res, cw=cw, fills=[thread_fill[j % T] for j in range(len(tile))], bold=True)
    s.text(16, 372 if slide else 370, f"next tile: carry = {carry} + tile total {sum(tile)} = {carry + sum(tile)}",
           anchor="start", color=BLUE)
    s.rect(x0 - 6, 50, len(tile) * cw + 3 * 10 + 12, 290, fill="none", stroke=GRAY, dash="5 4")
    if slide:
        s.save("lab05_anylength_slide.svg")
        return
    s.text(x0 + len(tile) * cw / 2, 356, "one tile of T x CHUNK elements (GS_RANGE_TILE)", size=11, color=GRAY)
    s.text(16, 405, "The same loop scans (b)'s ranges: each block starts from its range's offset instead of 0.",
           anchor="start", size=11, color=GRAY)
    s.save("lab05_anylength.svg")


# ---- 3. scan-then-propagate ----------------------------------------------------------------------

def propagate(slide=False):
    # the slide's variant: text at least 14 units of 360 high (7.2 pt at 0.76 of the slide's
    # height), no note
    s = Svg(780, 360, "three kernels, the middle one recursive", floor=14) if slide else \
        Svg(780, 420, "(a) Scan-then-propagate: three kernels, the middle one recursive")
    cw, gap, x0 = 34, 18, 270
    fills = fills_by_group(len(IN))
    tile_scans = sum((inclusive(g) for g in groups(IN)), [])
    totals = [sum(g) for g in groups(IN)]
    offsets = exclusive(totals)
    s.text(16, 72, "input, tiles of B elements", anchor="start")
    xi = s.cells(x0, 58, IN, cw=cw, fills=fills, group=GROUP, gap=gap)
    s.text(16, 132, "kernel 1: scan every tile,", anchor="start")
    s.text(16, 148, "write each tile's total", anchor="start")
    xs = s.cells(x0, 118, tile_scans, cw=cw, fills=fills, group=GROUP, gap=gap)
    for i in range(len(IN)):
        s.arrow(xi[i] + cw / 2, 84, xi[i] + cw / 2, 116, width=0.8)
    s.text(16, 212, "kernel 2: exclusive scan of", anchor="start")
    s.text(16, 228, "the totals (recursive when", anchor="start")
    s.text(16, 244, "more than B tiles)", anchor="start")
    tx = 420
    tt = s.cells(tx, 190, totals, cw=cw, fills=WARP_FILL[:3])
    for w in range(3):
        s.arrow(xs[w * GROUP + GROUP - 1] + cw / 2, 144, tt[w] + cw / 2, 188, color=BLUE)
    to = s.cells(tx, 244, offsets, cw=cw, fills=WARP_FILL[:3])
    for w in range(3):
        s.arrow(tt[w] + cw / 2, 216, to[w] + cw / 2, 242)
    s.text(tx + 3 * cw + 12, 206, "tile totals", anchor="start", size=11, color=GRAY)
    s.text(tx + 3 * cw + 12, 260, "offsets", anchor="start", size=11, color=GRAY)
    s.text(16, 322, "kernel 3: add tile b's offset", anchor="start")
    s.text(16, 338, "to each of its elements", anchor="start")
    xf = s.cells(x0, 310, inclusive(IN), cw=cw, fills=fills, group=GROUP, gap=gap, bold=True)
    for w in (1, 2):
        s.arrow(to[w] + cw / 2, 270, xf[w * GROUP] + 2 * cw, 308, color=BLUE, dash="4 3")
    if slide:
        s.save("lab05_propagate_slide.svg")
        return
    s.text(16, 392, "Memory traffic: kernel 1 reads and writes the array, kernel 3 reads and writes it again: "
           "16 bytes per int, twice a copy's 8.", anchor="start", size=11, color=GRAY)
    s.save("lab05_propagate.svg")


# ---- 4. reduce-then-scan ----------------------------------------------------------------------

def reduce_then_scan(slide=False):
    # the slide's variant: text at least 15 units of 322 high (7.3 pt at 0.64 of the slide's
    # height), no note
    s = Svg(780, 322, "a fixed number of blocks, each owning a contiguous range", floor=15) if slide else \
        Svg(780, 400, "(b) Reduce-then-scan: a fixed number of blocks, each owning a contiguous range")
    cw, gap, x0 = 34, 18, 270
    fills = fills_by_group(len(IN))
    sums = [sum(g) for g in groups(IN)]
    offs = exclusive(sums)
    s.text(16, 72, "input, one range per block", anchor="start")
    xi = s.cells(x0, 58, IN, cw=cw, fills=fills, group=GROUP, gap=gap)
    for w in range(3):
        s.text(xi[w * GROUP] + GROUP * cw / 2, 50, f"block {w}", size=11, color=GRAY)
    s.text(16, 142, "kernel 1: every block reduces", anchor="start")
    s.text(16, 158, "its range (reads it once)", anchor="start")
    tx = 420
    ts = s.cells(tx, 130, sums, cw=cw, fills=WARP_FILL[:3])
    for w in range(3):
        s.arrow(xi[w * GROUP] + GROUP * cw / 2, 84, ts[w] + cw / 2, 128, color=BLUE)
    s.text(16, 212, "kernel 2: one block scans the", anchor="start")
    s.text(16, 228, "block sums (exclusive)", anchor="start")
    to = s.cells(tx, 200, offs, cw=cw, fills=WARP_FILL[:3])
    for w in range(3):
        s.arrow(ts[w] + cw / 2, 156, to[w] + cw / 2, 198)
    s.text(16, 292, "kernel 3: every block scans its", anchor="start")
    s.text(16, 308, "range again, from its offset", anchor="start")
    xf = s.cells(x0, 282, inclusive(IN), cw=cw, fills=fills, group=GROUP, gap=gap, bold=True)
    for w in range(3):
        s.arrow(to[w] + cw / 2, 226, xf[w * GROUP] + cw / 2, 280, color=BLUE, dash="4 3")
    if slide:
        s.save("lab05_reduce_then_scan_slide.svg")
        return
    s.text(16, 356, "Memory traffic: read (kernel 1), read and write (kernel 3): 12 bytes per int. Each thread "
           "takes a chunk of", anchor="start", size=11, color=GRAY)
    s.text(16, 372, "consecutive elements, staged through shared memory so that the global loads and stores "
           "stay coalesced.", anchor="start", size=11, color=GRAY)
    s.save("lab05_reduce_then_scan.svg")


# ---- 5. decoupled look-back ------------------------------------------------------------------

def lookback(slide=False):
    # the slide's variant: text at least 15 units of 350 high (7.3 pt at 0.70 of the slide's
    # height), wider tiles, shorter sentences, without the status word (the next slides' text)
    s = Svg(800, 350, "tile 7 finds its offset", floor=15) if slide else \
        Svg(800, 470, "(c) Single pass with decoupled look-back: tile 7 finds its offset")
    # tiles 0..7 with sums; status when tile 7 looks back
    sums = [11, 14, 10, 9, 6, 8, 12, 7]
    incl = inclusive(sums)
    status = ["P", "P", "P", "A", "A", "X", "A", "?"]
    # (tile 5 not yet published in the first read; published A 8 in the second)
    me = status.index("?")
    lane_of = {t: me - 1 - t for t in range(me)}  # lane l reads tile me - 1 - l
    prefix = max(t for t in range(me) if status[t] == "P")  # the nearest PREFIX
    late = [t for t in range(prefix + 1, me) if status[t] == "X"][0]
    parts = [sums[t] for t in range(me - 1, prefix, -1)] + [incl[prefix]]
    excl = sum(parts)
    assert excl == incl[me - 1]
    cw, ch, x0, y0 = (94, 50, 10, 70) if slide else (74, 50, 80, 70)
    pitch = cw + (4 if slide else 10)
    color = {"P": "#cfe8cf", "A": "#fde3c8", "X": "#f4cccc", "?": "#dbe8f7"}
    for t in range(8):
        x = x0 + t * pitch
        s.rect(x, y0, cw, ch, fill=color[status[t]], rx=4)
        s.text(x + cw / 2, y0 - 8, f"tile {t}", size=11, color=GRAY)
        if status[t] == "P":
            s.text(x + cw / 2, y0 + 22, "PREFIX", size=11, weight="bold")
            s.text(x + cw / 2, y0 + 42 if slide else y0 + 40, str(incl[t]), size=13)
        elif status[t] == "A":
            s.text(x + cw / 2, y0 + 22, "AGGREGATE", size=11, weight="normal" if slide else "bold")
            s.text(x + cw / 2, y0 + 42 if slide else y0 + 40, str(sums[t]), size=13)
        elif status[t] == "X":
            s.text(x + cw / 2, y0 + 22, "INVALID", size=11, weight="bold", color=RED)
            s.text(x + cw / 2, y0 + 42 if slide else y0 + 40, "(loading)", size=11, color=GRAY)
        else:
            s.text(x + cw / 2, y0 + 22, "me", size=12, weight="bold")
            s.text(x + cw / 2, y0 + 42 if slide else y0 + 40, f"sum {sums[t]}", size=12)
    # look-back window, lanes
    wy = 170
    if not slide:
        s.text(16, wy - 6, f"Warp 0 of tile {me} reads the window, lane l reading tile {me - 1} - l (nearest first):",
               anchor="start", size=12)
    for lane, t in enumerate(range(me - 1, -1, -1)):
        x = x0 + t * pitch + cw / 2
        s.text(x, y0 + ch + 18, f"lane {lane}", size=11, color=BLUE)
    terms = " + ".join(str(v) for v in parts)
    if slide:
        s.text(16, wy + 6, f"1st read: tile {late} INVALID, before the nearest PREFIX (tile {prefix}): read again.",
               anchor="start")
        s.text(16, wy + 30, f"2nd read: tile {late} is AGGREGATE {sums[late]}. Lanes 0..{lane_of[prefix]}: "
               f"{terms} = {excl}.", anchor="start")
        s.text(16, wy + 54, f"Tile {me} publishes PREFIX {excl} + {sums[me]} = {excl + sums[me]}, stores "
               f"its elements + {excl}.", anchor="start")
    else:
        s.text(16, wy + 22, f"1st read: lane {lane_of[late]} (tile {late}) is INVALID and lies before the nearest "
               f"PREFIX (lane {lane_of[prefix]}, tile {prefix}): read the window again.", anchor="start", size=12)
        s.text(16, wy + 44, f"2nd read: tile {late} is AGGREGATE {sums[late]}. Add lanes 0..{lane_of[prefix]}:  "
               f"{terms} = {excl}  = tile {me}'s exclusive prefix.", anchor="start", size=12)
        s.text(16, wy + 66, f"Tile {me} publishes PREFIX {excl} + {sums[me]} = {excl + sums[me]} and stores its "
               f"elements plus {excl}.", anchor="start", size=12)
    # sequence for one tile
    sy = 255 if slide else 285
    s.text(16, sy, "Each tile, in its own block:", anchor="start", size=12, weight="bold")
    steps = ["tile id =\natomicAdd", "load tile,\nscan it", "publish\nAGGREGATE", "look back\n(warp 0)",
             "publish\nPREFIX", "store\n+ offset"]
    bx = 16
    bh, lh, ly = (52, 18, 32) if slide else (44, 15, 30)
    for i, st in enumerate(steps):
        s.rect(bx, sy + 12, 112, bh, fill="#f3f6fb", rx=6)
        for k, line in enumerate(st.split("\n")):
            s.text(bx + 56, sy + ly + lh * k, line, size=11)
        if i < len(steps) - 1:
            s.arrow(bx + 112, sy + 12 + bh // 2, bx + 128, sy + 12 + bh // 2)
        bx += 130
    if slide:
        s.save("lab05_lookback_slide.svg")
        return
    # the status word
    wy2 = 385
    s.text(16, wy2, "A status word: one 64-bit store, one 64-bit load, so a flag never arrives without its value.",
           anchor="start", size=12, weight="bold")
    s.rect(16, wy2 + 12, 300, 34, fill="#eadcf2")
    s.text(166, wy2 + 34, "tag: 2*epoch (AGGREGATE), 2*epoch+1 (PREFIX)", size=11)
    s.rect(316, wy2 + 12, 200, 34, fill="#dbe8f7")
    s.text(416, wy2 + 34, "value (32-bit sum)", size=11)
    s.text(16, wy2 + 66, "bits 63..32", anchor="start", size=11, color=GRAY)
    s.text(316, wy2 + 66, "bits 31..0", anchor="start", size=11, color=GRAY)
    s.text(540, wy2 + 28, "A tag from another launch (another", anchor="start", size=11, color=GRAY)
    s.text(540, wy2 + 43, "epoch), or zero, reads as INVALID.", anchor="start", size=11, color=GRAY)
    s.save("lab05_lookback.svg")


# ---- 6. the measurements, for the slide --------------------------------------------------------

README = os.path.join(HERE, "..", "README.md")
BENCH_LINES = [  # (row of the handout's table, label on the slide, color, dash)
    ("device copy (cudaMemcpy)", "copy", "#000000", "6 4"),
    ("CUB DeviceScan::InclusiveSum", "CUB", "#d62728", None),
    ("Thrust inclusive_scan", "Thrust", "#ff7f0e", None),
    ("05a scan-then-propagate", "(a) propagate", "#9467bd", None),
    ("05b reduce-then-scan", "(b) reduce-then-scan", "#2ca02c", None),
    ("05c decoupled look-back", "(c) look-back", BLUE, None),
]


def bench_table():
    """{variant: {log2 n: fraction of copy}} from the handout's table of the H100 run."""
    sizes, rows = None, {}
    for line in open(README):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| variant | bytes moved per int"):
            sizes = [int(c[2:]) for c in cells[2:]]
        elif sizes and line.startswith("|") and len(cells) == len(sizes) + 2 and cells[0] != "---":
            rows[cells[0]] = {lg: float(v) for lg, v in zip(sizes, cells[2:]) if v not in ("-", "")}
        elif sizes and not line.startswith("|"):
            break
    if not rows:
        raise SystemExit("make_figures: no bench table in " + README)
    return rows


def bench_slide():
    """The slide's plot of the run the handout's table holds: its six device-wide lines, text at
    least 16 units of 420 high (7.2 pt at 0.78 of the slide's height); lab05_bench.svg, the plot
    `make bench` wrote, stays in the handout."""
    rows = bench_table()
    W, H, L, T, B, R = 800, 420, 64, 44, 62, 232
    pw, ph = W - L - R, H - T - B
    lgs = sorted({lg for name, *_ in BENCH_LINES for lg in rows[name]})
    ymax = 1.1
    s = Svg(W, H, "fraction of copy bandwidth, H100", floor=16)

    def X(lg):
        return L + (lg - lgs[0]) / (lgs[-1] - lgs[0]) * pw

    def Y(v):
        return T + ph - v / ymax * ph

    for k in range(0, 6):
        v = k * 0.2
        s.items.append(f'<line x1="{L}" y1="{Y(v):.1f}" x2="{L + pw}" y2="{Y(v):.1f}" stroke="#e5e5e5"/>')
        s.text(L - 8, Y(v) + 5, f"{v:.1f}", anchor="end")
    for lg in lgs[::2]:
        s.text(X(lg), T + ph + 22, f"2^{lg}")
    s.text(L + pw / 2, H - 10, "N (32-bit ints)")
    s.rect(L, T, pw, ph, fill="none")
    ends = []
    for name, label, color, dash in BENCH_LINES:
        pts = sorted(rows[name].items())
        d = f' stroke-dasharray="{dash}"' if dash else ""
        s.items.append(f'<polyline points="{" ".join(f"{X(lg):.1f},{Y(v):.1f}" for lg, v in pts)}" '
                       f'fill="none" stroke="{color}" stroke-width="2.2"{d}/>')
        for lg, v in pts:
            s.items.append(f'<circle cx="{X(lg):.1f}" cy="{Y(v):.1f}" r="3" fill="{color}"/>')
        ends.append([Y(pts[-1][1]), label, color, pts[-1][1]])
    # labels at the lines' right ends, moved apart where they would overlap
    ends.sort()
    for i in range(1, len(ends)):
        ends[i][0] = max(ends[i][0], ends[i - 1][0] + 19)
    for y, label, color, v in ends:
        s.text(L + pw + 8, y + 5, f"{label} {v:.2f}", anchor="start", color=color)
    s.save("lab05_bench_slide.svg")


if __name__ == "__main__":
    block_scan()
    anylength()
    propagate()
    reduce_then_scan()
    lookback()
    block_scan(slide=True)
    anylength(slide=True)
    propagate(slide=True)
    reduce_then_scan(slide=True)
    lookback(slide=True)
    bench_slide()
    print("wrote", ", ".join(sorted(f for f in os.listdir(HERE) if f.endswith(".svg"))))
