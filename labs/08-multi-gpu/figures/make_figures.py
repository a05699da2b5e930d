#!/usr/bin/env python3
"""Draws the figures of lab 08 as SVG (Python standard library only).

    python3 labs/08-multi-gpu/figures/make_figures.py

Writes beside this script:
  lab08_shards.svg   the header's worked example, three ranks: shards, totals, the all-gather,
                     carries, and each rank's part of the scan
  lab08_stream.svg   reduce-then-scan in stream order: each rank's host thread queues its work
                     and returns; the streams, joined by the all-gather, do the rest
  lab08_bytes.svg    bytes an element of each scan across ranks, beside a copy, and the
                     fraction of the copy's bandwidth each can reach at best

The handout and the slides show the same files, so every text is at least 16 units in a figure
800 wide and at most 410 high (7.5 pt or more on a 16:9 slide, placed at 0.8 of its text height or
its full text width). Every number drawn is computed
here from the example data, so the drawings cannot disagree with the definitions.
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))

SHARDS = [[3, 1, 7], [], [0, 4, 1]]  # the worked example of multi_gpu.h, G = 3
RANK_FILL = ["#dbe8f7", "#fde3c8", "#d9f0d3"]
BLUE, GRAY, RED, GREEN = "#1f5fa8", "#555555", "#c0392b", "#2e7d32"
READ_FILL, WRITE_FILL = "#dbe8f7", "#fde3c8"
FONT = 16  # the smallest text of every figure


def esc(s):
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class Figure:
    """An SVG drawing: boxes, texts and arrows, written in one go by save()."""

    def __init__(self, width, height, title):
        self.width, self.height, self.parts = width, height, []
        self.text(16, 26, title, size=18, anchor="start", weight="bold")

    def box(self, x, y, w, h, fill="white", stroke="#333333", dash=None, rx=0, width=1):
        d = f' stroke-dasharray="{dash}"' if dash else ""
        self.parts.append(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="{rx}" fill="{fill}" '
                          f'stroke="{stroke}" stroke-width="{width}"{d}/>')

    def text(self, x, y, s, size=FONT, anchor="middle", color="#111111", weight="normal", family=None):
        assert size >= FONT, f"text '{s}' smaller than {FONT}"
        f = f' font-family="{family}"' if family else ""
        self.parts.append(f'<text x="{x}" y="{y}" font-size="{size}" text-anchor="{anchor}" fill="{color}" '
                          f'font-weight="{weight}"{f}>{esc(s)}</text>')

    def arrow(self, x1, y1, x2, y2, color=GRAY, width=1.4, dash=None):
        d = f' stroke-dasharray="{dash}"' if dash else ""
        marker = {GRAY: "m-gray", BLUE: "m-blue", RED: "m-red", GREEN: "m-green"}[color]
        self.parts.append(f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{color}" stroke-width="{width}" '
                          f'marker-end="url(#{marker})"{d}/>')

    def cells(self, x, y, values, w=40, h=30, fill="white", bold=False, color="#111111"):
        """A row of numbered boxes; returns the x of each box's centre."""
        centres = []
        for i, v in enumerate(values):
            self.box(x + i * w, y, w, h, fill=fill)
            self.text(x + i * w + w / 2, y + h / 2 + 5.5, v, weight="bold" if bold else "normal", color=color)
            centres.append(x + i * w + w / 2)
        return centres

    def save(self, name):
        markers = "".join(
            f'<marker id="{i}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
            f'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="{c}"/></marker>'
            for i, c in (("m-gray", GRAY), ("m-blue", BLUE), ("m-red", RED), ("m-green", GREEN)))
        with open(os.path.join(HERE, name), "w") as f:
            f.write(f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}" '
                    f'viewBox="0 0 {self.width} {self.height}" font-family="Helvetica, Arial, sans-serif">\n'
                    f'<defs>{markers}</defs>\n<rect width="{self.width}" height="{self.height}" fill="white"/>\n'
                    + "\n".join(self.parts) + "\n</svg>\n")


def inclusive_from(carry, values):
    out, run = [], carry
    for v in values:
        run += v
        out.append(run)
    return out


# ---- 1. shards, totals, the all-gather, carries ---------------------------------------------

def shards():
    g = len(SHARDS)
    totals = [sum(s) for s in SHARDS]
    carries = [sum(totals[:r]) for r in range(g)]
    outputs = [inclusive_from(c, s) for c, s in zip(carries, SHARDS)]
    fig = Figure(800, 410, "Three ranks, one shard each: the header's worked example")
    x0, col, cw = 228, 190, 40  # the first rank's column, a column's width, a cell's width
    rows = {"shard": 74, "total": 132, "gathered": 206, "carry": 290, "out": 360}
    labels = [("shard (on its GPU)", None, "shard"),
              ("1. reduce: its total", None, "total"),
              ("2. ncclAllGather:", "every rank, every total", "gathered"),
              ("3. carry: the totals", "of the lower ranks", "carry"),
              ("4. scan from the carry", None, "out")]
    for first, second, key in labels:
        y = rows[key] + 20
        fig.text(16, y if second is None else y - 9, first, anchor="start")
        if second:
            fig.text(16, y + 10, second, anchor="start", color=GRAY)
    for r in range(g):
        left = x0 + r * col
        fig.box(left - 8, 40, col - 16, 362, fill="none", stroke=GRAY, dash="5 4", rx=8)
        fig.text(left + (col - 32) / 2, 62, f"rank {r}, GPU {r}", color=GRAY)
        mid = left + (col - 32) / 2
        # the shard, or the word "empty"
        if SHARDS[r]:
            fig.cells(mid - cw * len(SHARDS[r]) / 2, rows["shard"], SHARDS[r], fill=RANK_FILL[r])
        else:
            fig.box(mid - cw * 1.5, rows["shard"], cw * 3, 30, fill="white", stroke=GRAY, dash="3 3")
            fig.text(mid, rows["shard"] + 20.5, "empty", color=GRAY)
        # its total
        tx = fig.cells(mid - cw / 2, rows["total"], [totals[r]], fill=RANK_FILL[r], bold=True)[0]
        fig.arrow(tx, rows["shard"] + 31, tx, rows["total"] - 2)
        # the gathered totals: the same words on every rank
        gx = mid - cw * g / 2
        for s in range(g):
            fig.cells(gx + s * cw, rows["gathered"], [totals[s]], fill=RANK_FILL[s])
        # the carry: the gathered words of the lower ranks summed
        cx = fig.cells(mid - cw / 2, rows["carry"], [carries[r]], fill="white", bold=True, color=BLUE)[0]
        for s in range(r):
            fig.arrow(gx + s * cw + cw / 2, rows["gathered"] + 31, cx, rows["carry"] - 2, color=BLUE)
        # the scanned shard
        if outputs[r]:
            fig.cells(mid - cw * len(outputs[r]) / 2, rows["out"], outputs[r], fill=RANK_FILL[r], bold=True)
            fig.arrow(cx, rows["carry"] + 31, cx, rows["out"] - 2, color=BLUE)
        else:
            fig.text(mid, rows["out"] + 20.5, "nothing to write", color=GRAY)
    # the all-gather: every total to every rank
    left, right = x0 - 8, x0 + (g - 1) * col + col - 24
    fig.box(left, rows["gathered"] - 12, right - left, 54, fill="none", stroke=GREEN, rx=6, width=1.6)
    for r in range(g):
        src = x0 + r * col + (col - 32) / 2
        for s in range(g):
            dst = x0 + s * col + (col - 32) / 2 - cw * g / 2 + r * cw + cw / 2
            fig.arrow(src, rows["total"] + 31, dst, rows["gathered"] - 2, color=GREEN, width=1.0)
    fig.save("lab08_shards.svg")


# ---- 2. stream order ---------------------------------------------------------------------

def stream():
    fig = Figure(800, 400, "Reduce-then-scan in stream order: no host thread waits")
    x0 = 176  # where time starts
    lane_h, gap = 34, 104  # a stream's lane, the distance between ranks
    # each rank's work on its stream, in time units (pixels): the reduction follows the shard's
    # length, the scan twice that (it reads and writes); rank 1's shard is empty
    reduce = [90, 0, 130]
    joined = x0 + max(reduce) + 96  # the all-gather ends when the last rank has joined it
    for r in range(3):
        y = 52 + r * gap
        fig.text(16, y + 17, f"rank {r} host", anchor="start", color=GRAY)
        fig.text(16, y + 59, f"rank {r} stream", anchor="start")
        # the host thread queues its steps and returns at once
        fig.box(x0, y + 2, 66, 22, fill="#eeeeee", stroke=GRAY)
        fig.text(x0 + 33, y + 19, "queue", color=GRAY)
        fig.text(x0 + 76, y + 19, "returns", anchor="start", color=GRAY)
        sy = y + 38
        t = x0
        if reduce[r]:
            fig.box(t, sy, reduce[r], lane_h, fill=READ_FILL)
            fig.text(t + reduce[r] / 2, sy + 23, "reduce")
            t += reduce[r]
        fig.box(t, sy, joined - t, lane_h, fill="#e4f2e1", stroke=GREEN)
        fig.text((t + joined) / 2, sy + 23, "all-gather", color=GREEN)
        fig.box(joined, sy, 26, lane_h, fill="white", stroke=BLUE)
        fig.text(joined + 13, sy + 23, "c", color=BLUE, weight="bold")
        scan = 2 * reduce[r]
        if scan:
            fig.box(joined + 26, sy, scan, lane_h, fill=WRITE_FILL)
            fig.text(joined + 26 + scan / 2, sy + 23, "scan from the carry")
        else:
            fig.text(joined + 36, sy + 23, "(empty: no scan)", anchor="start", color=GRAY)
    # the all-gather ends together on every stream
    top, bottom = 52 + 38 - 8, 52 + 2 * gap + 38 + lane_h + 8
    fig.parts.append(f'<line x1="{joined}" y1="{top}" x2="{joined}" y2="{bottom}" stroke="{GREEN}" '
                     f'stroke-width="2" stroke-dasharray="6 4"/>')
    fig.text(joined + 6, bottom + 16, "every rank has joined", anchor="start", color=GREEN)
    fig.arrow(x0, bottom + 8, x0 + 150, bottom + 8)
    fig.text(x0 + 158, bottom + 13, "time", anchor="start", color=GRAY)
    fig.text(16, 392, "c: a one-thread kernel sums the lower ranks' totals into the carry, on the device.",
             anchor="start", color=GRAY)
    fig.save("lab08_stream.svg")


# ---- 3. bytes an element ---------------------------------------------------------------------

def bytes_per_element():
    rows = [("copy", [("read", 4), ("write", 4)], [None]),
            ("reduce-then-scan", [("read", 4), ("read", 4), ("write", 4)], ["reduce", "scan from the carry"]),
            ("scan-then-propagate", [("read", 4), ("write", 4), ("read", 4), ("write", 4)],
             ["scan", "add the carry"])]
    fig = Figure(800, 350, "Bytes an element, and the best fraction of copy each scan can reach")
    x0, px, h = 224, 24, 34  # bars start; pixels a byte; bar height
    for i, (name, parts, passes) in enumerate(rows):
        y = 78 + i * 82
        fig.text(16, y + 22, name, anchor="start", weight="bold" if i else "normal")
        x = x0
        for kind, b in parts:
            fig.box(x, y, b * px, h, fill=READ_FILL if kind == "read" else WRITE_FILL)
            fig.text(x + b * px / 2, y + 22, f"{kind} {b}")
            x += b * px
        total = sum(b for _, b in parts)
        fig.text(x + 12, y + 16, f"{total} bytes", anchor="start", weight="bold")
        best = "the yardstick" if name == "copy" else f"at most {8 / total:.2f} of copy"
        fig.text(x + 12, y + 34, best, anchor="start", color=BLUE)
        # the passes over the shard, named under the bar
        if passes[0]:
            x = x0
            first = 1 if name == "reduce-then-scan" else 2
            spans = [parts[:first], parts[first:]]
            for label, span in zip(passes, spans):
                w = sum(b for _, b in span) * px
                fig.parts.append(f'<line x1="{x + 2}" y1="{y + h + 8}" x2="{x + w - 2}" y2="{y + h + 8}" '
                                 f'stroke="{GRAY}" stroke-width="1.4"/>')
                fig.text(x + w / 2, y + h + 26, label, color=GRAY)
                x += w
    fig.text(16, 338, "The all-gather moves one int a rank: nothing beside 12 bytes an element.",
             anchor="start", color=GRAY)
    fig.save("lab08_bytes.svg")


if __name__ == "__main__":
    shards()
    stream()
    bytes_per_element()
