#!/usr/bin/env python3
"""Draws lab 01's figure: the serial inclusive and exclusive scans of the worked example.

Run from anywhere: writes lab01_serial.svg beside this script (standard library only).
"""
import os

IN = [3, 1, 7, 0, 4, 1, 6, 3]
CELL, GAP, LEFT, TOP = 46, 24, 120, 30


def cells(y, values, label, fill):
    out = [f'<text x="{LEFT - 12}" y="{y + 28}" text-anchor="end" class="lbl">{label}</text>']
    for i, v in enumerate(values):
        x = LEFT + i * (CELL + GAP)
        out.append(f'<rect x="{x}" y="{y}" width="{CELL}" height="{CELL - 6}" rx="4" fill="{fill}" '
                   f'stroke="#1f5fa8"/>')
        out.append(f'<text x="{x + CELL / 2}" y="{y + 26}" text-anchor="middle" class="val">{v}</text>')
    return out


def arrows(y0, y1, shift):
    """Arrows from in[i] down to out[i + shift], and along the running total."""
    out = []
    for i in range(len(IN)):
        j = i + shift
        if j >= len(IN):
            continue
        x0 = LEFT + i * (CELL + GAP) + CELL / 2
        x1 = LEFT + j * (CELL + GAP) + CELL / 2
        out.append(f'<line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y1 - 4}" class="arr"/>')
    for i in range(len(IN) - 1):
        x0 = LEFT + i * (CELL + GAP) + CELL
        x1 = LEFT + (i + 1) * (CELL + GAP)
        out.append(f'<line x1="{x0 + 2}" y1="{y1 + 17}" x2="{x1 - 2}" y2="{y1 + 17}" class="acc"/>')
    return out


def main():
    inc, exc, acc = [], [], 0
    for v in IN:
        exc.append(acc)
        acc += v
        inc.append(acc)
    width = LEFT + len(IN) * (CELL + GAP) + 20
    body = []
    body += cells(TOP, [f"{i}" for i in range(len(IN))], "index", "#ffffff")
    body += cells(TOP + 60, IN, "in", "#eef4fb")
    body += arrows(TOP + 100, TOP + 150, 0)
    body += cells(TOP + 150, inc, "inclusive", "#dcebd5")
    body += arrows(TOP + 190, TOP + 240, 1)
    body += cells(TOP + 240, exc, "exclusive", "#fbe9d0")
    # notes at 15 units of 700: 7 pt on the slide (shown 0.72 of the text's height)
    body.append(f'<text x="{LEFT - 100}" y="{TOP + 302}" class="note">'
                'red: the running total, carried left to right (one + per element).</text>')
    body.append(f'<text x="{LEFT - 100}" y="{TOP + 324}" class="note">'
                'exclusive[i+1] = inclusive[i]; exclusive[0] is the identity (0 for +).</text>')
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{TOP + 336}" '
           f'viewBox="0 0 {width} {TOP + 336}" font-family="DejaVu Sans, Arial, sans-serif">',
           '<defs><marker id="h" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" '
           'markerHeight="6" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker>'
           # the running total's own head, red and sized in pixels, so the red shaft shows
           '<marker id="hr" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" '
           'markerUnits="userSpaceOnUse" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#c0392b"/>'
           '</marker></defs>',
           '<style>.lbl{font-size:15px;fill:#333}.val{font-size:17px;fill:#111}'
           '.note{font-size:15px;fill:#555}.arr{stroke:#888;stroke-width:1.2;marker-end:url(#h)}'
           '.acc{stroke:#c0392b;stroke-width:2.5;marker-end:url(#hr)}</style>',
           '<rect width="100%" height="100%" fill="white"/>'] + body + ["</svg>"]
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lab01_serial.svg")
    with open(path, "w") as f:
        f.write("\n".join(svg) + "\n")


if __name__ == "__main__":
    main()
