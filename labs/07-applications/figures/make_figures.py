#!/usr/bin/env python3
"""Draws the figures of lab 07 as SVG (Python standard library only).

    python3 labs/07-applications/figures/make_figures.py

Writes beside this script:
  lab07_compact.svg   compaction of the handout's example: values, flags, exclusive sums, output
  lab07_sight.svg     line of sight: altitudes, slopes, the exclusive max-scan, visibility
  lab07_spmv.svg      a CSR product as a segmented sum: products, heads, sums, row totals

Every number drawn is computed here from the example data, so the drawings cannot disagree
with the definitions.
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
BLUE, GRAY, RED, GREEN, FILL, KEEP = "#1f5fa8", "#444444", "#c0392b", "#2e7d32", "#eef3fa", "#d9f0d3"
CELL, H, FONT = 58, 40, 20


def svg(name, width, height, body):
    """Writes the figure, wide enough for its longest caption (about 0.52 em a character)."""
    import re
    for m in re.finditer(r'<text x="([0-9.]+)"[^>]*>([^<]*)</text>', "\n".join(body)):
        if 'text-anchor' not in m.group(0):
            width = max(width, int(float(m.group(1)) + 0.52 * FONT * len(m.group(2))) + 10)
    with open(os.path.join(HERE, name), "w") as f:
        f.write(f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
                f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif" '
                f'font-size="{FONT}">\n<rect width="{width}" height="{height}" fill="white"/>\n')
        f.write("\n".join(body) + "\n</svg>\n")


def row(body, y, label, cells, x0=230, fills=None, color="black"):
    body.append(f'<text x="{x0 - 12}" y="{y + H / 2 + 7}" text-anchor="end" fill="{GRAY}">{label}</text>')
    for i, c in enumerate(cells):
        fill = fills[i] if fills else FILL
        body.append(f'<rect x="{x0 + i * CELL}" y="{y}" width="{CELL - 4}" height="{H}" fill="{fill}" '
                    f'stroke="{GRAY}" stroke-width="1"/>')
        body.append(f'<text x="{x0 + i * CELL + (CELL - 4) / 2}" y="{y + H / 2 + 7}" text-anchor="middle" '
                    f'fill="{color}">{c}</text>')


def compact():
    a = [1, 3, 2, 4, 8, 6, 5, 4, 9, 7, 3]           # the handout's example: keep the odd numbers
    flags = [x % 2 for x in a]
    sums, acc = [], 0
    for f in flags:
        sums.append(acc)
        acc += f
    out = [x for x in a if x % 2]
    body, y = [], 20
    fills = [KEEP if f else FILL for f in flags]
    row(body, y, "A", a, fills=fills)
    row(body, y + 56, "flag (odd?)", flags, fills=fills)
    row(body, y + 112, "exclusive sum", sums, fills=fills, color=BLUE)
    row(body, y + 214, "output", out, fills=[KEEP] * len(out))
    x0 = 230
    for i, (f, s) in enumerate(zip(flags, sums)):
        if f:
            body.append(f'<line x1="{x0 + i * CELL + 27}" y1="{y + 154}" x2="{x0 + s * CELL + 27}" '
                        f'y2="{y + 212}" stroke="{GREEN}" stroke-width="1.6" marker-end="url(#a)"/>')
    body.insert(0, '<defs><marker id="a" markerWidth="8" markerHeight="8" refX="7" refY="4" '
                   f'orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="{GREEN}"/></marker></defs>')
    svg("lab07_compact.svg", x0 + len(a) * CELL + 20, 280, body)


def sight():
    alt = [10, 11, 14, 12, 18, 15, 22, 21]            # altitudes along the ray; point 0 observes
    slope = [None] + [(alt[i] - alt[0]) / i for i in range(1, len(alt))]
    best, before, vis = float("-inf"), [], []
    for s in slope:
        before.append(best)
        v = s is not None and s > best
        vis.append(1 if v else 0)
        if s is not None and s > best:
            best = s
    fmt = lambda v: "-inf" if v is None or v == float("-inf") else (f"{v:.2f}".rstrip("0").rstrip("."))
    body, y, x0 = [], 20, 200
    fills = [KEEP if v else FILL for v in vis]
    row(body, y, "altitude", alt, x0=x0)
    row(body, y + 56, "slope", [fmt(s) for s in slope], x0=x0, fills=fills)
    row(body, y + 112, "max before", [fmt(b) for b in before], x0=x0, color=BLUE)
    row(body, y + 168, "visible", vis, x0=x0, fills=fills, color=GREEN)
    svg("lab07_sight.svg", x0 + len(alt) * CELL + 20, 230, body)


def spmv():
    # 4 rows: [2 1], [], [3], [1 4 2]; x = [1 2 3]
    row_ptr = [0, 2, 2, 3, 6]
    col = [0, 2, 1, 0, 1, 2]
    val = [2, 1, 3, 1, 4, 2]
    x = [1, 2, 3]
    prod = [v * x[c] for v, c in zip(val, col)]
    heads = [0] * len(val)
    for r in range(4):
        if row_ptr[r] < row_ptr[r + 1]:
            heads[row_ptr[r]] = 1
    inc, acc = [], 0
    for p, h in zip(prod, heads):
        acc = p if h else acc + p
        inc.append(acc)
    y_out = [inc[row_ptr[r + 1] - 1] if row_ptr[r + 1] > row_ptr[r] else 0 for r in range(4)]
    body, y, x0 = [], 20, 200
    fills = ["#dbe8f7", "#dbe8f7", "#fde3c8", "#d9f0d3", "#d9f0d3", "#d9f0d3"]
    row(body, y, "val * x[col]", [f"{v}*{x[c]}" for v, c in zip(val, col)], x0=x0, fills=fills)
    row(body, y + 56, "product", prod, x0=x0, fills=fills)
    row(body, y + 112, "head", heads, x0=x0, fills=fills, color=RED)
    row(body, y + 168, "segmented sum", inc, x0=x0, fills=fills, color=BLUE)
    row(body, y + 250, "y (rows 0-3)", y_out, x0=x0, fills=["#dbe8f7", "white", "#fde3c8", "#d9f0d3"], color=GREEN)
    for r in range(4):
        if row_ptr[r + 1] > row_ptr[r]:
            k = row_ptr[r + 1] - 1
            body.append(f'<line x1="{x0 + k * CELL + 27}" y1="{y + 210}" x2="{x0 + r * CELL + 27}" y2="{y + 248}" '
                        f'stroke="{GREEN}" stroke-width="1.6"/>')
    svg("lab07_spmv.svg", x0 + 6 * CELL + 20, 310, body)


if __name__ == "__main__":
    compact()
    sight()
    spmv()
