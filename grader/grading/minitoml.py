"""A small TOML reader for Python versions without tomllib (before 3.11).

It reads the subset the kit's manifests use: comments, `key = value`, `[table]`,
`[[array of tables]]`, dotted headers (`[test.emu]`), inline tables, one-line arrays, basic
strings, integers (with `_`), floats, booleans. Anything else is an error with its line.
"""
import re


class TOMLDecodeError(ValueError):
    pass


_KEY = r"[A-Za-z0-9_-]+"


def _value(text, pos, line_no):
    """Parses one value at text[pos:]; returns (value, new position)."""
    text_len = len(text)
    while pos < text_len and text[pos] in " \t":
        pos += 1
    if pos >= text_len:
        raise TOMLDecodeError(f"line {line_no}: a value is missing")
    c = text[pos]
    if c == '"':
        out, pos = [], pos + 1
        while pos < text_len and text[pos] != '"':
            if text[pos] == "\\":
                esc = text[pos + 1]
                out.append({"n": "\n", "t": "\t", '"': '"', "\\": "\\"}.get(esc, esc))
                pos += 2
            else:
                out.append(text[pos])
                pos += 1
        if pos >= text_len:
            raise TOMLDecodeError(f"line {line_no}: unterminated string")
        return "".join(out), pos + 1
    if c in "[{":
        close = "]" if c == "[" else "}"
        items, table, pos = [], {}, pos + 1
        while True:
            while pos < text_len and text[pos] in " \t,":
                pos += 1
            if pos < text_len and text[pos] == close:
                return (items if c == "[" else table), pos + 1
            if c == "[":
                v, pos = _value(text, pos, line_no)
                items.append(v)
            else:
                m = re.compile(r"\s*(" + _KEY + r")\s*=").match(text, pos)
                if not m:
                    raise TOMLDecodeError(f"line {line_no}: bad inline table")
                table[m.group(1)], pos = _value(text, m.end(), line_no)
            if pos >= text_len:
                raise TOMLDecodeError(f"line {line_no}: unterminated {c}")
    m = re.compile(r"[^,\]}\s]+").match(text, pos)
    word = m.group(0)
    if word in ("true", "false"):
        return word == "true", m.end()
    try:
        return (int(word.replace("_", ""), 0) if re.fullmatch(r"[+-]?(0x)?[0-9a-fA-F_]+", word)
                and not re.search(r"[eE.]", word) else float(word.replace("_", ""))), m.end()
    except ValueError:
        raise TOMLDecodeError(f"line {line_no}: cannot read value '{word}'") from None


def _strip_comment(line):
    out, in_str = [], False
    for i, ch in enumerate(line):
        if ch == '"' and (i == 0 or line[i - 1] != "\\"):
            in_str = not in_str
        if ch == "#" and not in_str:
            break
        out.append(ch)
    return "".join(out).strip()


def loads(source):
    root, current = {}, None
    current = root
    for no, raw in enumerate(source.splitlines(), 1):
        line = _strip_comment(raw)
        if not line:
            continue
        m = re.fullmatch(r"\[\[\s*(" + _KEY + r")\s*\]\]", line)
        if m:
            current = {}
            root.setdefault(m.group(1), []).append(current)
            continue
        m = re.fullmatch(r"\[\s*(" + _KEY + r"(?:\." + _KEY + r")*)\s*\]", line)
        if m:
            parts = m.group(1).split(".")
            node = root
            for part in parts:
                nxt = node.setdefault(part, {})
                node = nxt[-1] if isinstance(nxt, list) else nxt
            current = node
            continue
        m = re.match(r"(" + _KEY + r")\s*=", line)
        if not m:
            raise TOMLDecodeError(f"line {no}: cannot read '{raw.strip()}'")
        value, end = _value(line, m.end(), no)
        if line[end:].strip():
            raise TOMLDecodeError(f"line {no}: unexpected text after the value")
        current[m.group(1)] = value
    return root


def load(f):
    return loads(f.read().decode("utf-8"))
