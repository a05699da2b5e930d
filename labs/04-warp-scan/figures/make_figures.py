#!/usr/bin/env python3
"""Draws lab 04's figures (standard library only); writes the SVG files beside this script.

    lab04_shfl_scan.svg    the shuffle scan on 8 lanes: each step adds the value d lanes up
    lab04_partial_warp.svg a block of 100 threads: four warps, the last one of 4 lanes (mask 0xf)
    lab04_race.svg         the legacy scan's values when lanes run one after the other

and for the slides (slides/04-warp-scan.tex), the same data with larger text and no notes (the
slide's text says it): lab04_shfl_scan_slide.svg, lab04_partial_warp_slide.svg.
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
IN = [3, 1, 7, 0, 4, 1, 6, 3]
FONT = 'font-family="DejaVu Sans, Arial, sans-serif"'
STYLE = ('<style>.lbl{font-size:14px;fill:#333}.val{font-size:16px;fill:#111}'
         '.idx{font-size:11px;fill:#777}.note{font-size:12px;fill:#555}.bad{font-size:12px;fill:#c0392b;font-weight:bold}'
         '.add{stroke:#1f5fa8;stroke-width:1.6;fill:none;marker-end:url(#hb)}'
         '.keep{stroke:#bbb;stroke-width:1;fill:none}</style>')
DEFS = ('<defs><marker id="hb" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" '
        'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#1f5fa8"/></marker></defs>')


# The partial-warp figure (over 1000 units wide) is shown shrunk to the handout's width (about
# 900 px): its notes are drawn at 13 px, so that they are at least 11 px as shown.
WIDE_STYLE = STYLE.replace(".note{font-size:12px", ".note{font-size:13px").replace(
    ".bad{font-size:12px", ".bad{font-size:13px")


# The slide variants: every text at least 20 units (the shuffle scan: shown 0.6 of the slide's
# width, 544 units wide; the partial warp: the slide's width, 1052 units): at least 7 pt.
SLIDE_STYLE = (STYLE.replace(".lbl{font-size:14px", ".lbl{font-size:21px").replace(".val{font-size:16px", ".val{font-size:22px")
               .replace(".idx{font-size:11px", ".idx{font-size:20px").replace(".note{font-size:12px", ".note{font-size:20px")
               .replace(".bad{font-size:12px", ".bad{font-size:20px"))


def svg(width, height, body, style=STYLE):
    return "\n".join([f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
                      f'viewBox="0 0 {width} {height}" {FONT}>', DEFS, style,
                      '<rect width="100%" height="100%" fill="white"/>'] + body + ["</svg>"]) + "\n"


def write(name, text):
    with open(os.path.join(HERE, name), "w") as f:
        f.write(text)


CELL, GAP, LEFT, ROW = 46, 12, 150, 86


def cx(i, left=LEFT):
    return left + i * (CELL + GAP) + CELL / 2


def row(y, values, label, hot=(), cls="val", left=LEFT):
    out = [f'<text x="{left - 14}" y="{y + 25}" text-anchor="end" class="lbl">{label}</text>']
    for i, v in enumerate(values):
        x = left + i * (CELL + GAP)
        fill = "#fbe9d0" if i in hot else "#eef4fb"
        out.append(f'<rect x="{x}" y="{y}" width="{CELL}" height="36" rx="4" fill="{fill}" stroke="#1f5fa8"/>')
        out.append(f'<text x="{x + CELL / 2}" y="{y + 24}" text-anchor="middle" class="{cls}">{v}</text>')
    return out


def shfl_scan(slide=False):
    left = 90 if slide else LEFT
    if slide:  # lane numbers alone, "lane" once at the left
        body = [f'<text x="{left - 14}" y="22" text-anchor="end" class="idx">lane</text>']
        body += [f'<text x="{cx(i, left)}" y="22" text-anchor="middle" class="idx">{i}</text>' for i in range(8)]
    else:
        body = [f'<text x="{cx(i)}" y="22" text-anchor="middle" class="idx">lane {i}</text>' for i in range(8)]
    x, y, d = list(IN), 30, 1
    body += row(y, x, "x", left=left)
    while d < len(x):
        new = [x[i] + (x[i - d] if i >= d else 0) for i in range(len(x))]
        y0, y = y + 36, y + ROW
        for i in range(len(x)):
            if i >= d:
                body.append(f'<path d="M{cx(i - d, left)},{y0} C{cx(i - d, left)},{y0 + 30} {cx(i, left)},{y - 30} '
                            f'{cx(i, left) - 4},{y - 2}" class="add"/>')
            body.append(f'<line x1="{cx(i, left)}" y1="{y0}" x2="{cx(i, left)}" y2="{y - 2}" class="keep"/>')
        body += row(y, new, f"d = {d}", hot=range(d, len(x)), left=left)
        x, d = new, d * 2
    if slide:
        write("lab04_shfl_scan_slide.svg", svg(left + len(IN) * (CELL + GAP), y + 48, body, SLIDE_STYLE))
        return
    body.append(f'<text x="{LEFT}" y="{y + 62}" class="note">Each step: y = __shfl_up_sync(mask, x, d); '
                'lanes with lane &gt;= d set x = op(y, x).</text>')
    body.append(f'<text x="{LEFT}" y="{y + 80}" class="note">8 lanes need 3 steps; a warp of 32 needs 5 '
                '(d = 1, 2, 4, 8, 16). No shared memory, no barrier.</text>')
    write("lab04_shfl_scan.svg", svg(780, y + 96, body))


def partial_warp(slide=False):
    block, n_first = 100, 0
    n, last = 250, (block - 1) % 32 + 1
    if slide:
        body = [f'<text x="20" y="24" class="lbl">a block of {block} threads: the last warp has {last} lanes; under each warp, its mask</text>']
    else:
        body = [f'<text x="20" y="24" class="lbl">one block of {block} threads: warps of 32 lanes, '
                f'the last warp has {last} (lanes {last}..31 do not exist)</text>']
    w, left, top = 7, 40, 64 if slide else 60
    for t in range(128):
        warp, lane = divmod(t, 32)
        x = left + warp * (32 * w + 24) + lane * w
        exists = t < block
        fill = ["#eef4fb", "#dcebd5", "#fbe9d0", "#f3e3f3"][warp] if exists else "#ffffff"
        stroke = "#1f5fa8" if exists else "#ccc"
        body.append(f'<rect x="{x}" y="{top}" width="{w - 1}" height="30" fill="{fill}" stroke="{stroke}" '
                    'stroke-width="0.6"/>')
    for warp in range(4):
        x = left + warp * (32 * w + 24)
        lanes = min(32, block - 32 * warp)
        mask = (1 << lanes) - 1
        body.append(f'<text x="{x}" y="{top - 8}" class="note">warp {warp}'
                    + ('' if slide else f': threads {32 * warp}..{32 * warp + lanes - 1}') + '</text>')
        body.append(f'<text x="{x}" y="{top + 54 if slide else top + 50}" class="note">'
                    f'{"" if slide else "mask "}0x{mask:08x}</text>')
    nb = (n + block - 1) // block
    first = (nb - 1) * block
    if slide:
        body.append(f'<text x="{left}" y="{top + 98}" class="lbl">n = {n}: block {nb - 1} holds elements '
                    f'{first}..{n - 1} (grey: past n)</text>')
    else:
        body.append(f'<text x="{left}" y="{top + 86}" class="lbl">and with n = {n} ({nb} blocks), the third block '
                    f'holds elements {first}..{n - 1}:</text>')
    top2 = top + (122 if slide else 110)
    for t in range(128):
        warp, lane = divmod(t, 32)
        x = left + warp * (32 * w + 24) + lane * w
        exists, live = t < block, first + t < n
        fill = (["#eef4fb", "#dcebd5", "#fbe9d0", "#f3e3f3"][warp] if live else "#cfcfcf") if exists else "#ffffff"
        stroke = "#1f5fa8" if exists else "#ccc"
        body.append(f'<rect x="{x}" y="{top2}" width="{w - 1}" height="30" fill="{fill}" stroke="{stroke}" '
                    'stroke-width="0.6"/>')
    for warp in range(4):
        x = left + warp * (32 * w + 24)
        lanes = max(0, min(32, block - 32 * warp, n - first - 32 * warp))
        text = (f"{'' if slide else 'mask '}0x{(1 << lanes) - 1:08x}" if lanes else
                "no lane calls")
        body.append(f'<text x="{x}" y="{top2 + 54 if slide else top2 + 50}" class="note">{text}</text>')
    if slide:
        write("lab04_partial_warp_slide.svg", svg(left + 4 * (32 * w + 24) + 20, top2 + 66, body, SLIDE_STYLE))
        return
    body.append(f'<text x="{left}" y="{top2 + 80}" class="note">grey: threads past n. They do not call the '
                'scan, but they are still running (they wait at a later __syncthreads),</text>')
    body.append(f'<text x="{left}" y="{top2 + 98}" class="note">so a mask that names them waits for them '
                'for ever. The kit passes each warp the mask of its lanes below n and below the block size.</text>')
    n_first += 0
    write("lab04_partial_warp.svg", svg(left + 4 * (32 * w + 24) + 20, top2 + 116, body, WIDE_STYLE))


def race():
    x = [3, 1, 7]
    body = ['<text x="20" y="24" class="lbl">the legacy scan on lanes 0..2 of {3, 1, 7}: '
            'what each lane writes, in the order the lanes run</text>']
    left = 40
    col = [left, left + 350]
    heads = ["as it was written for: lockstep", "possible since Volta: lane after lane"]
    # lockstep: every step, all lanes read before any lane writes
    lock = [["s = {3, 1, 7}"], ["d=1: lanes 1, 2 read s[0], s[1]", "       then write s = {3, 4, 8}"],
            ["d=2: lane 2 reads s[0]", "       then writes s = {3, 4, 11}"], ["result {3, 4, 11}: right"]]
    seq = [["lane 0: s[0] = 3, done"], ["lane 1: d=1: s[1] = s[0] + s[1] = 4, done"],
           ["lane 2: d=1: s[2] = s[1] + s[2] = 4 + 7 = 11", "   (s[1] is already lane 1's final value)"],
           ["lane 2: d=2: s[2] = s[0] + s[2] = 3 + 11 = 14", "result {3, 4, 14}: lane 2 wrong (3 counted twice)"]]
    for c, (head, lines) in enumerate(zip(heads, (lock, seq))):
        body.append(f'<text x="{col[c]}" y="60" class="lbl" font-weight="bold">{head}</text>')
        y = 88
        for k, group in enumerate(lines):
            for j, text in enumerate(group):
                cls = "bad" if (c == 1 and k == 3 and j == 1) else "note"
                body.append(f'<text x="{col[c]}" y="{y}" class="{cls}">{text}</text>')
                y += 20
            y += 8
    body.append(f'<text x="{left}" y="264" class="note">Neither order is the only one the hardware may '
                'pick: without __syncwarp() the program has a data race,</text>')
    body.append(f'<text x="{left}" y="284" class="note">and the language allows any result.</text>')
    # text at 15 units of 840: 7.1 pt across the slide's width, 15 px in the handout
    write("lab04_race.svg", svg(840, 300, body, STYLE.replace(".lbl{font-size:14px", ".lbl{font-size:16px")
                                .replace(".note{font-size:12px", ".note{font-size:15px")
                                .replace(".bad{font-size:12px", ".bad{font-size:15px")))


def main():
    shfl_scan()
    partial_warp()
    race()
    shfl_scan(slide=True)
    partial_warp(slide=True)


if __name__ == "__main__":
    main()
