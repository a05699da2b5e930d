#!/usr/bin/env python3
"""Doxygen's input filter for the Markdown pages (FILTER_PATTERNS in grader/docs/Doxyfile).

Doxygen 1.9.4 reads a few things in GitHub Markdown its own way, and shows them as text:
bold around a code span (`**`x`**`), a code span in a heading (raw `<tt>` in the title and the
sidebar), prose in double quotes (no Markdown inside), a code span that holds a quote
(`` `... 'x'` `` taken for a `quote'`). This filter rewrites those into what Doxygen renders
right (<b>, plain heading text, &quot;, <tt>), leaving code blocks alone, so the handouts stay
plain GitHub Markdown. It also makes a lab's performance notes (PERF.md, `{#labNN_perf}`) a
subpage of the lab, so the sidebar lists them under it. Lines are kept one for one.

    doxy_md_filter.py FILE.md     (prints the filtered text)
"""
import html
import os
import re
import sys

SPAN = re.compile(r"(`+)(.+?)\1")


def inline(line):
    """Rewrites one line of prose (not code)."""
    heading = line.lstrip().startswith("#")
    parts, pos = [], 0
    for m in SPAN.finditer(line):
        parts.append(("text", line[pos:m.start()]))
        parts.append(("code", m.group(2)))
        pos = m.end()
    parts.append(("text", line[pos:]))
    out = []
    bold_open = False
    for kind, s in parts:
        if kind == "code":
            if heading:
                out.append(s)  # plain text: Doxygen shows a heading's <tt> as a raw tag
            elif "'" in s or '"' in s:
                # \--: Doxygen turns -- in <tt> into an en dash (--gres would read –gres)
                out.append("<tt>" + html.escape(s.strip(), quote=False).replace('"', "&quot;")
                           .replace("'", "&apos;").replace("--", "\\--") + "</tt>")
            else:
                out.append("`" + s + "`")
            continue
        # double quotes in prose stop Doxygen's Markdown inside them; tags keep theirs
        # (and a reference's own text, @ref name "text", keeps its quotes)
        pieces = re.split(r'(<[^>]*>|[@\\](?:ref|subpage)\s+\S+\s+"[^"]*")', s)
        s = "".join(p if p.startswith(("<", "@", "\\")) else p.replace('"', "&quot;")
                    for p in pieces)
        # ** pairs outside code spans become <b> ... </b>
        res = ""
        for chunk in re.split(r"(\*\*)", s):
            if chunk == "**":
                res += "</b>" if bold_open else "<b>"
                bold_open = not bold_open
            else:
                res += chunk
        out.append(res)
    if bold_open:  # an unpaired ** is left as Doxygen would see it
        return line
    return "".join(out)


def filter_text(text, path):
    lines = text.split("\n")
    out, fence, prev_blank, in_block, in_comment, after_comment = [], False, True, False, False, False
    for line in lines:
        stripped = line.strip()
        if after_comment:
            after_comment = False
            if not stripped and out and not out[-1].strip():
                continue  # the comment's blank lines collapse into one: a list goes on
        if stripped.startswith("```"):
            fence = not fence
            out.append(line)
            continue
        if fence:
            out.append(line)
            continue
        if in_comment or stripped.startswith("<!--"):
            # HTML comments (the quote markers of grader/docs/quotes.py) say nothing to a reader, and
            # one inside a list item ends the list in Doxygen 1.9.4: they are left out
            in_comment = "-->" not in stripped
            after_comment = not in_comment
            continue
        indent = len(line) - len(line.lstrip(" "))
        # an indented code block: 4+ spaces after a blank line (or continuing one)
        if stripped and indent >= 4 and (prev_blank or in_block) and not re.match(r"\s*([-*]|\d+\.)\s", line):
            in_block = True
            out.append(line)
            prev_blank = False
            continue
        if stripped:
            in_block = False
        prev_blank = not stripped
        out.append(inline(line) if stripped else line)
    result = "\n".join(out)
    perf = os.path.join(os.path.dirname(path), "PERF.md")
    if os.path.basename(path) == "README.md" and os.path.exists(perf):
        m = re.search(r"\{#(lab\d\d_perf)\}", open(perf).read())
        if m:
            result = result.rstrip("\n") + f"\n\nThe lab's performance notes: \\subpage {m.group(1)}\n"
    return result


def main():
    path = sys.argv[1]
    sys.stdout.write(filter_text(open(path, encoding="utf-8").read(), path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
