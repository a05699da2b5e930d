#!/usr/bin/env python3
"""Fails `make docs` on what Doxygen renders wrongly without a warning: Markdown markers left
as text (`**`, stray backticks), raw tags shown as text (`<tt>` in a heading or the sidebar),
links to nowhere (`file:line:` taken for a URL), images missing from the output, and code
lines longer than 100 characters in a handout.

    docs_check.py [build/docs/html]

Each problem is printed as `page: what (the text around it)`; the exit status is 1 if any.
"""
import glob
import html
import os
import re
import sys
from html.parser import HTMLParser

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MAX_CODE = 100


class Page(HTMLParser):
    """Collects a page's visible text (outside code), its links, images and code lines."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.text, self.links, self.images, self.code = [], [], [], [], []
        self.skip = 0  # inside <script>/<style>
        self.in_code = 0
        self.line = ""

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("script", "style"):
            self.skip += 1
        cls = a.get("class") or ""
        if tag in ("code", "pre", "tt") or (tag == "div" and "fragment" in cls):
            self.in_code += 1
        elif tag in ("td", "table") and re.search(r"\bmem|\bparam", cls):
            self.in_code += 1  # a member's signature: C, not prose
            a["_code"] = True
        if (tag == "div" and (a.get("class") or "") == "line") or tag == "pre":
            self.line = ""
        if tag == "a" and a.get("href"):
            self.links.append(a["href"])
        if tag == "img" and a.get("src"):
            self.images.append(a["src"])
        if tag == "object" and a.get("data"):
            self.images.append(a["data"])
        if tag not in ("br", "img", "meta", "link", "input", "hr"):
            self.stack.append((tag, a))

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.skip = max(0, self.skip - 1)
        if tag in ("code", "pre", "tt"):
            self.in_code = max(0, self.in_code - 1)
        while self.stack:
            t, a = self.stack.pop()
            if t == "div" and (a.get("class") or "") == "line":
                self.code.append(self.line)
            if t == "pre":
                self.code += self.line.split("\n")
            if (t == "div" and "fragment" in (a.get("class") or "")) or a.get("_code"):
                self.in_code = max(0, self.in_code - 1)
            if t == tag:
                break

    def handle_data(self, data):
        if self.skip:
            return
        if any((t == "div" and (a.get("class") or "") == "line") or t == "pre" for t, a in self.stack):
            self.line += data
        elif not self.in_code:
            self.text.append(data)


def check_page(path, html_dir):
    src = open(path, errors="replace").read()
    p = Page()
    p.feed(src)
    name = os.path.relpath(path, html_dir)
    out = []
    text = " ".join(" ".join(p.text).split())
    for pat, what in ((r"\*\*", "a literal `**` (Markdown bold around a code span?)"),
                      (r"`", "a stray backtick"),
                      (r"</?(tt|code|b|em|strong|i)>", "a raw tag shown as text")):
        for m in re.finditer(pat, text):
            out.append(f"{name}: {what}: ...{text[max(0, m.start() - 50):m.end() + 50]}...")
    # A tag escaped into the HTML is one the reader sees as text, wherever it is (a member group's
    # title, which the text above does not collect: `@name ... (keep `x > pivot`)` once showed
    # `<tt>x \> pivot</tt>`).
    for m in re.finditer(r"&lt;/?(tt|code|b|em|strong)&gt;", src):
        out.append(f"{name}: a raw tag shown as text: ...{html.unescape(src[max(0, m.start() - 60):m.end() + 60])}...")
    # Titles (the page's <title>, the navigation tree's entries) carry raw tags as text.
    for m in re.finditer(r"<title>(.*?)</title>", src, re.S):
        if re.search(r"&lt;/?\w+&gt;|<\w+>", m.group(1)):
            out.append(f"{name}: a raw tag in the page title: {html.unescape(m.group(1)).strip()}")
    for href in p.links:
        target = href.split("#")[0]
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) and not target.startswith(("http:", "https:", "mailto:")):
            out.append(f"{name}: a link to `{href}` (text taken for an address)")
        elif target and not re.match(r"^[a-z]+:", target) and not os.path.exists(os.path.join(html_dir, target)):
            out.append(f"{name}: a link to `{href}`, which the output does not have")
    for src_ in p.images:
        if not re.match(r"^[a-z]+:", src_) and not os.path.exists(os.path.join(html_dir, src_)):
            out.append(f"{name}: an image `{src_}` that the output does not have")
    if re.match(r"(lab\d\d|grader|index|md_|lab\d\d_perf)", name):
        for line in p.code:
            if len(line.rstrip()) > MAX_CODE:
                out.append(f"{name}: a code line of {len(line.rstrip())} characters (at most {MAX_CODE}): "
                           f"{line.strip()[:70]}...")
    return out


def check_navtree(html_dir):
    """The sidebar's entries (navtreedata.js): no raw tags, the labs in their order."""
    out = []
    nav = os.path.join(html_dir, "navtreedata.js")
    if not os.path.exists(nav):
        return out
    text = open(nav, errors="replace").read()
    entries = re.findall(r'\[\s*"((?:[^"\\]|\\.)*)"\s*,\s*"([^"]*)"', text)
    for title, _ in entries:
        if re.search(r"&lt;|<\w+>|`|\*\*", title):
            out.append(f"navtreedata.js: a sidebar entry shows markup: {title}")
    order = [target for _, target in entries if re.fullmatch(r"lab\d\d(_\w+)?\.html", target)]
    if order != sorted(order):
        out.append(f"navtreedata.js: the sidebar's lab pages are out of order: {order}")
    return out


def main():
    html_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "docs", "html")
    problems = []
    for path in sorted(glob.glob(os.path.join(html_dir, "*.html"))):
        problems += check_page(path, html_dir)
    problems += check_navtree(html_dir)
    for p in problems:
        print(p)
    if problems:
        print(f"docs: {len(problems)} rendering problems (above)")
        return 1
    print("docs: rendering checked, code lines of at most %d characters" % MAX_CODE)
    return 0


if __name__ == "__main__":
    sys.exit(main())
