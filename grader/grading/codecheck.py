"""What student code may hold and call: the checks grade.py makes of a student's file, before it
is compiled (what the preprocessor reads in the student regions) and after (what the compiled
object calls).

Before: the source check reads what the compiler reads. grade.py writes check copies of the
spliced file into the build's staging folder (write_check_files), the sandboxed build runs the
real preprocessor on them with the backend's own flags (grader/grading/student.mk, target `check`), and
read_check reads what it produced:
  - the spliced file, each STUDENT marker replaced by a sentinel whose expansion nobody can
    write by hand (a name made of two random words, one for the sentinel, one for what it
    expands to): every region must come out between its two sentinels, each alone on its line.
    A conditional, comment, string or macro call opened in a region and closed in the next
    swallows a sentinel, and is refused. Between them: no #include, no #line, no pragma but
    `unroll` (so no _Pragma, however it was spelt), no asm, no name that a system header
    defines to paste or stringize.
  - the regions alone, nothing predefined and no include path, twice (-dD: every #define and
    #undef as the preprocessor read it; -dU: every macro a region tests or expands). A region
    may #define and #undef its own macros (not a name of the kit's, not a reserved name, no #
    or ## in the body), use `#pragma unroll`, and test with #if only macros the regions defined:
    a test of anything else (SCANLAB_EMU, __CUDA_ARCH__, threadIdx) could come out differently
    on the two backends. The names the compilers predefine, __has_include and friends, and
    asm are poisoned, so the preprocessor itself refuses them however they are spelt. The
    tokens it read are checked against the lab's `forbid` list and the emulator's probes.
After: every symbol the student's object leaves undefined (what it calls or reads) must be in
the lab's `allow` list, the groups it names, `given_calls`, or what the compiler makes every
object of that backend call (ALWAYS_ALLOWED).

Why one file (past 800 lines): the rules a region is held to, read from one place, before and
after the compiler; a file for each side would split what one rule says about a name.
"""
import os
import re
import secrets
import subprocess

# ---- tokens ---------------------------------------------------------------------------------

# What the preprocessor's output is made of. The output has no comments and no line splices,
# so a token never spans a line except a raw string literal (C++, and C in GNU mode).
_PREFIX = r"(?:u8|[uUL])?"
_TOKEN = re.compile(r"""
    (?P<raw>""" + _PREFIX + r"""R"(?P<delim>[^\s()\\"]{0,16})\()
  | (?P<str>""" + _PREFIX + r""""(?:[^"\\\n]|\\.)*"?)
  | (?P<chr>""" + _PREFIX + r"""'(?:[^'\\\n]|\\.)*'?)
  | (?P<num>\.?[0-9](?:[eEpP][+-]|'(?=[0-9A-Za-z_])|[0-9A-Za-z_.])*)
  | (?P<id>(?:[A-Za-z_$]|\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8}|[^\x00-\x7f])
            (?:[A-Za-z0-9_$]|\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8}|[^\x00-\x7f])*)
  | (?P<punct>%:%:|%:|<%|%>|<:|:>|\#\#|\#|::|\.\.\.|->\*|->|<<=|>>=|<=>|<<|>>|&&|\|\||\+\+|--
            |[-+*/%&|^!=<>]=|[-+*/%&|^!=<>~?:;,.(){}\[\]])
  | (?P<ws>[ \t\f\v\r]+)
  | (?P<nl>\n)
  | (?P<other>.)
""", re.X | re.S)

BRACKETS = {"(": ")", "[": "]", "{": "}", "<:": "]", "<%": "}"}
CLOSERS = {")": "(", "]": "[", "}": "{", ":>": "[", "%>": "{"}
OPEN_OF = {"(": "(", "[": "[", "{": "{", "<:": "[", "<%": "{"}


def tokens(text, cplusplus):
    """(kind, text, offset) for each token of preprocessed text: kinds id, num, str, chr, punct,
    other, nl, and rawopen (a raw string literal that does not close in `text`). `cplusplus`: C++'s digit separators (1'000) and its `<::` rule."""
    out, i, n = [], 0, len(text)
    while i < n:
        m = _TOKEN.match(text, i)
        kind = m.lastgroup
        if kind == "delim":
            kind = "raw"
        if kind == "raw":
            end = text.find(")" + m.group("delim") + '"', m.end())
            j = n if end < 0 else end + len(m.group("delim")) + 2
            out.append(("str" if end >= 0 else "rawopen", text[i:j], i))
            i = j
            continue
        tok = m.group(0)
        if kind == "num" and not cplusplus and "'" in tok:
            tok = tok[:tok.index("'")]  # C (before C23) has no digit separators
        if kind == "punct" and tok == "<:" and cplusplus and text.startswith("<::", i) and \
                text[i + 3:i + 4] not in (":", ">"):
            tok = "<"  # C++11: <:: not followed by : or > is < then ::
        if kind != "ws":
            out.append((kind, tok, i))
        i += len(tok)
    return out


# ---- the preprocessor's output, line by line --------------------------------------------------

MARKER = re.compile(r'^# (\d+) "((?:[^"\\]|\\.)*)"((?: \d+)*)\s*$')


def output_lines(text):
    """(file, line, text) for each line of preprocessor output: line markers consumed, every
    other line (text or a directive printed by -dD/-dU) at the source line it stands for."""
    cur_file, cur_line, out = None, 0, []
    for raw in text.split("\n"):
        m = MARKER.match(raw)
        if m:
            cur_file, cur_line = m.group(2), int(m.group(1))
            flags = m.group(3).split()
            out.append((cur_file, cur_line, None, flags))
            continue
        out.append((cur_file, cur_line, raw, None))
        cur_line += 1
    return out


# ---- the check copies ---------------------------------------------------------------------------

def is_cplusplus(name):
    return not name.endswith(".c")


class CheckCopy:
    """The names one check uses: a sentinel per marker, each a macro whose expansion is another
    random name."""

    def __init__(self, count):
        self.word = secrets.token_hex(8)
        self.value = secrets.token_hex(8)
        self.count = count
        self.names_at = {}  # each identifier of the regions: the first line that has it

    def macro(self, which, k):
        return f"SCANLAB_MARK_{self.word}_{which}{k}"

    def expansion(self, which, k):
        return f"scanlab_mark_{self.value}_{which}{k}"

    def marks_h(self):
        return "".join(f"#define {self.macro(w, k)} {self.expansion(w, k)}\n"
                       for k in range(1, self.count + 1) for w in "be")

    def sentinel(self, line):
        m = re.match(rf"scanlab_mark_{self.value}_([be])(\d+)$", line.strip())
        return (m.group(1), int(m.group(2))) if m else None

    def mentions(self, line):
        return f"scanlab_mark_{self.value}_" in line


# Names the preprocessor itself refuses in the regions: whatever tells one compiler, one backend
# or one machine from another, asked through the preprocessor (grade_check adds the macros the
# backend's compilers predefine).
POISONED = ["asm", "__asm", "__asm__", "_Pragma",
            "__has_include", "__has_include_next", "__has_builtin", "__has_attribute",
            "__has_cpp_attribute", "__has_c_attribute", "__has_feature", "__has_extension",
            "__CUDA_ARCH__", "__CUDA_ARCH_LIST__", "__CUDACC__", "__NVCC__", "__CUDACC_VER_MAJOR__",
            "__CUDACC_VER_MINOR__", "__CUDACC_VER_BUILD__", "__CUDA_API_VER_MAJOR__",
            "__CUDA_API_VER_MINOR__", "__CUDACC_RDC__", "__CUDACC_EWP__", "__CUDACC_DEBUG__",
            "__CUDACC_RTC__", "__CUDACC_EXTENDED_LAMBDA__", "__CUDACC_RELAXED_CONSTEXPR__",
            "__NVCC_DIAG_PRAGMA_SUPPORT__", "__CUDACC_DEVICE_ATOMIC_BUILTINS__", "__CUDA__",
            "__NVCOMPILER", "__clang__", "__CUDA_RUNTIME_H__", "CUDART_VERSION", "CUDA_VERSION",
            "__CUDART_API_VERSION", "CUDA_DOUBLE_MATH_FUNCTIONS", "__NV_LEGACY_LAUNCH",
            "SCANLAB_EMU", "__DATE__", "__TIME__", "__TIMESTAMP__", "__BASE_FILE__",
            "__FILE_NAME__", "__INCLUDE_LEVEL__", "__COUNTER__"]
# Predefined names a region may use: they say where in the student's own file it is.
PREDEFINED_OK = {"__FILE__", "__LINE__"}
ASM = {"asm", "__asm", "__asm__"}


def write_check_files(check_dir, name, text, ranges, shown, poisoned):
    """Writes check_dir/NAME (the spliced file with sentinels on its marker lines),
    check_dir/NAME.iso (the regions alone, at their own line numbers) and the marks header;
    returns the CheckCopy to read them back with."""
    lines = text.splitlines(keepends=True)
    copy = CheckCopy(len(ranges))
    full = list(lines)
    for k, (first, last) in enumerate(ranges, 1):
        full[first - 2] = copy.macro("b", k) + "\n"   # the BEGIN marker's line
        full[last] = copy.macro("e", k) + "\n"        # the END marker's line
    iso = ["#pragma GCC poison " + " ".join(poisoned) + "\n"]
    for k, (first, last) in enumerate(ranges, 1):
        iso.append(f'#line {first - 1} "{shown}"\n')
        iso.append(copy.macro("b", k) + "\n")
        iso += [ln if ln.endswith("\n") else ln + "\n" for ln in lines[first - 1:last]]
        iso.append(copy.macro("e", k) + "\n")
    os.makedirs(check_dir, exist_ok=True)
    with open(os.path.join(check_dir, name), "w") as f:
        f.write("".join(full))
    with open(os.path.join(check_dir, name + ".iso"), "w") as f:
        f.write(copy.marks_h() + "".join(iso))
    with open(os.path.join(check_dir, "marks.h"), "a") as f:
        f.write(copy.marks_h())
    return copy


# ---- reading the check ------------------------------------------------------------------------

READ_MAX = 64 << 20
# The preprocessor's output: the sandbox stops a file at CHECK_FSIZE_MB; the regions alone (no
# headers) come to kilobytes, the whole file with the headers to about 1.5 MiB. Past these
# sizes the check refuses before reading a byte (2^24 tokens, read and split here, took the
# grader to 2.9 GiB).
CHECK_FSIZE_MB = 32
CHECK_READ_MAX = {"isod": 4 << 20, "isou": 4 << 20, "full": 24 << 20}


def _read(path):
    try:
        with open(path, "rb") as f:
            return f.read(READ_MAX).decode(errors="replace")
    except OSError:
        return ""


def _status(path):
    try:
        return int(_read(path + ".rc").strip() or "1")
    except ValueError:
        return 1


MESSAGE = re.compile(r"^(?P<file>[^:\s][^:]*):(?P<line>\d+):(?:\d+:)? (?P<kind>fatal error|error|warning): "
                     r"(?P<text>.*)$")
NVCC_MESSAGE = re.compile(r'^(?P<file>[^(\s][^(]*)\((?P<line>\d+)\): (?P<kind>error|warning)[^:]*: (?P<text>.*)$')


def own_messages(text, files, ranges, kinds=("error", "fatal error")):
    """The compiler's messages about the student's regions of one of `files` (the names it may
    give the student's file), as (line, text): nothing it said about another file or another
    part of the file, and none of the source lines it quotes."""
    out = []
    for raw in text.splitlines():
        m = MESSAGE.match(raw) or NVCC_MESSAGE.match(raw)
        if not m or m.group("kind") not in kinds:
            continue
        line = int(m.group("line"))
        if m.group("file") in files and any(a <= line <= b for a, b in ranges):
            out.append((line, m.group("text").strip()))
    return out


def _explain(text):
    """A preprocessor's complaint about a region, in the kit's words where it has some."""
    m = re.search(r'attempt to use poisoned "([^"]+)"', text)
    if m:
        name = m.group(1)
        if name in ASM:
            return f"{name}: not allowed in student code"
        if name == "_Pragma":
            return "_Pragma: not allowed in student code (only #pragma unroll)"
        return (f"{name}: tells one compiler or backend from another, or asks what the machine has: "
                "not allowed in student code")
    m = re.search(r'"([^"]+)" is not defined, evaluates to 0', text)
    if m:
        return (f"#if tests {m.group(1)}, which the student regions do not define: a condition may "
                "test only the regions' own macros")
    if re.search(r"unterminated|without #if|#else after #else|#elif after #else|unbalanced", text):
        return f"{text} (a conditional, comment or string must close in the region that opens it)"
    if re.search(r"no include path|No such file|#include", text):
        return "#include: student code may not include files (the kit's file includes what the lab needs)"
    if "assertion" in text:
        return "#assert and predicates (#cpu, #machine, ...): not allowed in student code"
    return text


def _names(toks):
    """Identifiers, with a::b::c joined, as (name, offset)."""
    out, i = [], 0
    while i < len(toks):
        kind, tok, at = toks[i]
        if kind == "id":
            j, name = i, tok
            while j + 2 < len(toks) and toks[j + 1][1] == "::" and toks[j + 2][0] == "id":
                name += "::" + toks[j + 2][1]
                j += 2
            out.append((name, at))
            i = j + 1
            continue
        i += 1
    return out


def _region_spans(lines, copy, where):
    """{k: (start, end)} indexes into `lines` (output_lines) between each region's sentinels, and
    the problems with them."""
    found, problems = {}, []
    for idx, (_, _, text, _) in enumerate(lines):
        if text is None or not copy.mentions(text) or text.startswith(("#define SCANLAB_MARK_", "#undef SCANLAB_MARK_")):
            continue
        s = copy.sentinel(text)
        if not s:
            problems.append(f"{where}: a STUDENT marker's line is joined to code (a line splice or "
                            "a macro call across the marker)")
            continue
        found.setdefault(s, []).append(idx)
    spans = {}
    for k in range(1, copy.count + 1):
        b, e = found.get(("b", k), []), found.get(("e", k), [])
        if len(b) != 1 or len(e) != 1 or b[0] > e[0]:
            problems.append(f"{where}: student region {k} does not close where it ends: a conditional "
                            "(#if 0 ... #endif), a comment, a string or a macro call opened in a region "
                            "must close in it")
            continue
        spans[k] = (b[0], e[0])
    order = [spans[k] for k in sorted(spans)]
    if any(a[1] > b[0] for a, b in zip(order, order[1:])):
        problems.append(f"{where}: the student regions come out of order")
    return spans, problems


DEFINE = re.compile(r"^#(define|undef) ([A-Za-z_$][\w$]*)(\(.*?\))?(.*)$")
PRAGMA_OK = re.compile(r"^#pragma unroll(?:\s+[\w()+*\-/ ]+)?\s*$")


def read_check(out_dir, name, ranges, copy, shown, manifest, kit_words, forbidden):
    """Problems in the student regions of one file, from what the preprocessor read. Each names
    the line."""
    cpp = is_cplusplus(name)
    problems, seen = [], set()

    def problem(line, text):
        key = (line, text)
        if key not in seen:
            seen.add(key)
            problems.append(f"{shown}:{line}: {text}" if line else f"{shown}: {text}")

    base = os.path.join(out_dir, name)
    for run in CHECK_READ_MAX:  # a run the sandbox stopped: its CPU time, memory or file size
        err = _read(f"{base}.{run}.i.err")[-4000:]
        if _status(f"{base}.{run}.i") in (128 + 9, 128 + 24, 128 + 25) or \
                re.search(r"memory exhausted|out of memory|File size limit|CPU time limit", err):
            what = "the student regions" if run != "full" else "the file with the student regions in it"
            problem(0, f"the preprocessor ran past its limits on {what} (CPU time, memory or output size: a "
                       "macro that expands without end, or an #include of something huge?)")
            return problems
    for run, most in CHECK_READ_MAX.items():
        try:
            size = os.path.getsize(f"{base}.{run}.i")
        except OSError:
            continue
        if size >= most:
            what = "the student regions" if run != "full" else "the file with the student regions in it"
            problem(0, f"the preprocessor's output of {what} reached {size / (1 << 20):.0f} MiB (at most "
                       f"{most >> 20} MiB: a macro that expands without end, or an #include of something huge?)")
            return problems
    # 1. The regions alone: directives, tested macros, tokens.
    for run in ("isod", "isou"):
        if _status(f"{base}.{run}.i") != 0:
            msgs = own_messages(_read(f"{base}.{run}.i.err"), (shown,), ranges)
            for line, text in msgs:
                problem(line, _explain(text))
            if not msgs:
                problem(0, "the preprocessor could not read the student regions (a directive or a "
                           "literal that does not close in its region?)")
    if problems:
        return problems
    student_macros = set()
    for run in ("isod", "isou"):
        lines = output_lines(_read(f"{base}.{run}.i"))
        spans, sp = _region_spans(lines, copy, shown)
        for p in sp:
            problem(0, p.split(": ", 1)[1])
        for k, (start, end) in spans.items():
            for f, line, text, flags in lines[start + 1:end]:
                if text is None:
                    if flags and "1" in flags:
                        problem(line, "#include: student code may not include files (the kit's file "
                                      "includes what the lab needs)")
                    elif f != shown:
                        problem(line, "#line: not allowed in student code")
                    continue
                if not text.startswith("#"):
                    continue
                d = DEFINE.match(text)
                if d and run == "isod":
                    kind, macro, params, body = d.groups()
                    if kind == "define":
                        student_macros.add(macro)
                    _check_define(problem, line, kind, macro, body or "", kit_words, student_macros, cpp)
                elif d and run == "isou" and not macro_is_mark(d.group(2), copy):
                    macro = d.group(2)
                    if d.group(1) == "undef":
                        problem(line, f"tests {macro}, which the student regions do not define: a "
                                      "condition may test only the regions' own macros")
                    elif macro not in student_macros and macro not in PREDEFINED_OK:
                        problem(line, f"{macro}: a macro the compiler predefines: not allowed in student code")
                elif text.startswith("#pragma"):
                    if not PRAGMA_OK.match(text):
                        problem(line, f"{text[:60]}: only #pragma unroll is allowed (no _Pragma, no "
                                      "other pragma)")
                elif not d:
                    problem(line, f"{text.split()[0]}: not allowed in student code")
        if run == "isod":
            _check_tokens(problem, lines, spans, cpp, manifest, forbidden, copy.names_at)
    if problems:
        return problems
    # 2. The spliced file with the backend's flags: nothing the headers' macros make of the
    # regions' tokens is asm or a pragma, and the regions still come out whole.
    if _status(f"{base}.full.i") != 0:
        msgs = own_messages(_read(f"{base}.full.i.err"), (f"check/{name}",), ranges)
        for line, text in msgs:
            problem(line, _explain(text))
        if not msgs:
            problem(0, "the preprocessor could not read the file with the student regions in it")
        return problems
    lines = output_lines(_read(f"{base}.full.i"))
    spans, sp = _region_spans(lines, copy, shown)
    for p in sp:
        problem(0, p.split(": ", 1)[1])
    env = {}  # macros defined outside the regions: name -> (file, body)
    inside = set()
    for start, end in spans.values():
        inside.update(range(start, end + 1))
    for idx, (f, line, text, flags) in enumerate(lines):
        if text and idx not in inside and text.startswith("#define "):
            d = DEFINE.match(text)
            if d:
                env[d.group(2)] = (f, (d.group(3) or "") + d.group(4))
    for k, (start, end) in spans.items():
        region_toks = []
        for f, line, text, flags in lines[start + 1:end]:
            if text is None:
                if flags and "1" in flags:
                    problem(line, "#include: student code may not include files")
                continue
            if text.startswith("#"):
                d = DEFINE.match(text)
                if d and d.group(2) in env and d.group(1) == "define":
                    problem(line, f"#define {d.group(2)}: a macro of the kit or of a system header "
                                  "already has this name")
                elif text.startswith("#pragma") and not PRAGMA_OK.match(text):
                    problem(line, f"{text[:60]}: only #pragma unroll is allowed (a macro of a header "
                                  "made this pragma from the region's tokens)")
                continue
            toks = tokens(text, cpp)
            region_toks += [(line, kind, tok) for kind, tok, _ in toks]
            for kind, tok, _ in toks:
                if kind == "id" and tok in ASM:
                    problem(line, f"{tok}: not allowed in student code (a macro of a header made it "
                                  "from the region's tokens)")
            for name, _ in attribute_names(toks):
                if name in DENIED_ATTRIBUTES:
                    problem(line, f"__attribute__(({name.strip('_')})): not allowed in student code (a "
                                  "macro of a header made it from the region's tokens)")
        for line, name in kit_specializations(region_toks, kit_words):
            problem(line, f"template <> ... {name}<...>: an explicit specialization of {name}, a template of the "
                          "kit's code outside the regions: it would replace the kit's code with yours (a template "
                          "of your own, with a name of your own, is fine)")
    # Macros of system headers that paste or stringize what they are given: with them a region
    # could spell asm, or a string that differs between backends.
    iso_lines = output_lines(_read(f"{base}.isod.i"))
    iso_spans, _ = _region_spans(iso_lines, copy, shown)
    for start, end in iso_spans.values():
        for f, line, text, flags in iso_lines[start + 1:end]:
            if not text or text.startswith("#"):
                continue
            for kind, tok, _ in tokens(text, cpp):
                if kind == "id" and tok in env and tok not in student_macros and tok not in kit_words:
                    body = env[tok][1]
                    if any(t in ("#", "##", "%:", "%:%:") for _, t, _ in tokens(body, cpp) if _ == "punct"):
                        problem(line, f"{tok}: a macro of a system header that pastes or stringizes "
                                      "its arguments: not allowed in student code")
    return problems


CASTS = {"static_cast", "const_cast", "reinterpret_cast", "dynamic_cast", "template", "operator"}


def kit_specializations(toks, kit_words):
    """(line, name) for each `template <>` in a region's tokens whose declaration, up to its first
    `{` or `;`, names a template the kit uses outside the regions (`name<`): an explicit
    specialization that would take the place of kit code (the fourth trial's region specialized
    lab 05's own any-length block kernel, silently)."""
    out = []
    for i in range(len(toks) - 2):
        if toks[i][1:] != ("id", "template") or toks[i + 1][2] != "<" or toks[i + 2][2] != ">":
            continue
        for j in range(i + 3, len(toks) - 1):
            line, kind, tok = toks[j]
            if tok in ("{", ";"):
                break
            if kind == "id" and toks[j + 1][2] == "<" and tok in kit_words and tok not in CASTS:
                out.append((line, tok))
                break
    return out


def macro_is_mark(name, copy):
    return name.startswith(f"SCANLAB_MARK_{copy.word}_")


def _check_define(problem, line, kind, macro, body, kit_words, student_macros, cpp):
    if macro in kit_words:
        problem(line, f"#{kind} {macro}: changes a name the kit's code uses")
    elif re.match(r"_[A-Z_]", macro):
        problem(line, f"#{kind} {macro}: a reserved name (a leading underscore and a capital, or two "
                      "underscores): not allowed in student code")
    elif kind == "undef" and macro not in student_macros:
        problem(line, f"#undef {macro}: a region may undefine only its own macros")
    elif kind == "define":
        if any(k == "punct" and t in ("#", "##", "%:", "%:%:") for k, t, _ in tokens(body, cpp)):
            problem(line, f"#define {macro}: # and ## (stringizing and pasting) are not allowed in "
                          "student macros")


# Attributes a student region may not use, each with why: code or data in a section of its
# choosing (a byte array in .text runs as machine code, so a raw system call needs no asm) or
# without the compiler's prologue; a symbol named by a string (neither the source check nor the
# object's undefined symbols name it: a weakref to the emu's counters forged them); code that
# runs as the driver loads or ends, outside any test.
_DENIED = {
    "section": "a section of its own",
    "naked": "a function without a prologue",
    "alias": "a second name for a symbol, given as a string",
    "weakref": "a reference to a symbol named by a string",
    "symver": "a versioned symbol name, which the linker reads as another symbol",
    "ifunc": "a function chosen by code that runs as the program loads",
    "constructor": "code that runs as the program loads, outside any test",
    "destructor": "code that runs as the program ends, outside any test",
    "init_priority": "the order of code that runs as the program loads",
}
DENIED_ATTRIBUTES = {spelt: why for name, why in _DENIED.items() for spelt in (name, f"__{name}__")}


def attribute_names(toks):
    """The attribute names in GNU __attribute__((...)) lists and [[...]] specifiers of a token
    list, as (name, index)."""
    out, i, n = [], 0, len(toks)
    while i < n:
        t = toks[i][1]
        if t in ("__attribute__", "__attribute") and i + 2 < n and toks[i + 1][1] == "(" and toks[i + 2][1] == "(":
            depth, j = 0, i + 1
            while j < n:
                if toks[j][1] == "(":
                    depth += 1
                elif toks[j][1] == ")":
                    depth -= 1
                    if depth == 0:
                        break
                elif depth == 2 and toks[j][0] == "id" and toks[j - 1][1] in ("(", ","):
                    out.append((toks[j][1], j))
                j += 1
            i = j + 1
            continue
        if t in ("[", "<:") and i + 1 < n and toks[i + 1][1] in ("[", "<:"):
            j = i + 2
            while j < n and not (toks[j][1] in ("]", ":>") and j + 1 < n and toks[j + 1][1] in ("]", ":>")):
                # [[using gnu: constructor]]: the names after `using NS :` are the namespace's
                if toks[j][0] == "id" and (toks[j - 1][1] in ("[", "<:", ",", "::") or
                                           (toks[j - 1][1] == ":" and j >= 3 and toks[j - 3][1] == "using")):
                    out.append((toks[j][1], j))
                j += 1
            i = j + 2
            continue
        i += 1
    return out


# Words after which an identifier is not being declared (`return open;`, `case open:`).
NOT_A_TYPE = {"return", "case", "goto", "else", "do", "sizeof", "new", "delete", "throw", "co_return", "co_yield",
              "co_await", "alignof", "_Alignof", "typeid", "not", "and", "or", "xor", "bitand", "bitor",
              "compl", "not_eq", "and_eq", "or_eq", "xor_eq"}
DECLARATOR_END = {"=", ";", ",", ")", "[", "{", ":"}


def declared_names(toks):
    """The identifiers these tokens declare as a variable, a parameter or a member: after a type
    (a word that is not a statement's, or *, &, &&, >) and before = ; , ) [ { or :, as in
    `bool open = false;`, `int ref_y[4];` or `(const T *ref_y, size_t n)`."""
    out = set()
    for i in range(1, len(toks) - 1):
        kind, tok, _ = toks[i]
        pk, pt, _ = toks[i - 1]
        nk, nt, _ = toks[i + 1]
        if kind != "id" or nk != "punct" or nt not in DECLARATOR_END:
            continue
        if (pk == "id" and pt not in NOT_A_TYPE) or (pk == "punct" and pt in ("*", "&", "&&", ">")):
            out.add(tok)
    return out


def names_a_call(toks, at, name, declared):
    """Whether a forbidden `name` at token offset `at` is one (a call, or a name that could be
    called or linked), rather than the region's own variable or a member: a member after . or
    ->, and a name the region declares as a variable, unqualified and not followed by (, are
    not. (Whatever the compiled code does call or take the address of is judged again from the
    object's undefined symbols.) A name followed by `<`, or called through parentheses, counts as
    a call too: a template the compiler inlines leaves no symbol to judge."""
    i = next((k for k, t in enumerate(toks) if t[2] == at), None)
    if i is None:
        return True
    before = toks[i - 1][1] if i else ""
    if before in (".", "->"):
        return False
    j = i + 1 + 2 * name.count("::")
    after = toks[j][1] if j < len(toks) else ""
    after2 = toks[j + 1][1] if j + 1 < len(toks) else ""
    # called, instantiated, or called through parentheses: `open(`, `name<`, `(name)(`
    called = after in ("(", "<") or (before == "(" and after == ")" and after2 == "(")
    return "::" in name or before == "::" or name not in declared or called


def _check_tokens(problem, lines, spans, cpp, manifest, forbidden, names_at):
    """The regions' tokens as the preprocessor read them (the regions' own macros expanded):
    asm, the probes' names, the lab's forbidden names (not a variable of the region's own that
    shares a name with one: names_a_call), and brackets that close in the region."""
    lab = manifest["lab"]
    for k, (start, end) in spans.items():
        stack = []
        declared = declared_names([t for f, line, text, flags in lines[start + 1:end]
                                   if text is not None and not text.startswith("#") for t in tokens(text, cpp)])
        for f, line, text, flags in lines[start + 1:end]:
            if text is None or text.startswith("#"):
                continue
            toks = tokens(text, cpp)
            if any(k == "rawopen" for k, _, _ in toks):
                problem(line, "a raw string literal that spans lines: not allowed in student code")
            for kind, tok, _ in toks:
                if kind != "punct":
                    continue
                if tok in OPEN_OF:
                    stack.append((OPEN_OF[tok], line))
                elif tok in CLOSERS:
                    if not stack or stack[-1][0] != CLOSERS[tok]:
                        problem(line, f"'{tok}' closes a bracket opened outside this student region: "
                                      "brackets must open and close in the same region")
                        stack = []
                        break
                    stack.pop()
            for kind, tok, _ in toks:
                if kind == "id":
                    names_at.setdefault(tok, line)
            for name, _ in attribute_names(toks):
                if name in DENIED_ATTRIBUTES:
                    problem(line, f"__attribute__(({name.strip('_')})): not allowed in student code "
                                  f"({DENIED_ATTRIBUTES[name]})")
            for name, at in _names(toks):
                parts = name.split("::")
                if parts[0] in ASM:
                    problem(line, f"{parts[0]}: not allowed in student code")
                elif "sanitize" in name.lower() or name.startswith("__tsan"):
                    problem(line, f"{name}: turns off the emulator's probes (races, memory counters): "
                                  "not allowed in student code")
                elif re.match(r"(?i)scanlab", parts[0]) and not forbidden(name):
                    problem(line, f"{name}: a name of the kit's internals: not allowed in student code")
                elif (forbidden(name) or any(forbidden(p) for p in parts) or
                      any(forbidden("::".join(parts[:i + 1])) for i in range(len(parts)))) and \
                        names_a_call(toks, at, name, declared):
                    problem(line, f"{name}: not allowed in this lab (grader/manifests/lab{lab}.toml "
                                  "lists what student code may not call)")
        if stack:
            problem(stack[-1][1], f"'{stack[-1][0]}' is not closed in this student region: brackets "
                                  "must open and close in the same region")


def predefined_macros(commands):
    """The macros each compiler command predefines (its -dM output on an empty file)."""
    names = set()
    for cmd in commands:
        try:
            r = subprocess.run(cmd + ["-E", "-dM", "-"], input="", capture_output=True, text=True,
                               timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            continue
        names |= set(re.findall(r"^#define ([A-Za-z_]\w*)", r.stdout, re.M))
    return names


# ---- what the compiled object calls ------------------------------------------------------------

# Groups a manifest's `allow` may name (`@printf`): the families a lab's student code may call.
GROUPS = {
    # printing to the driver's output (stdout and stderr only: nothing opens a file)
    "printf": ["printf", "fprintf", "vprintf", "vfprintf", "puts", "fputs", "putchar", "fputc", "putc",
               "fwrite", "fflush", "sprintf", "snprintf", "vsprintf", "vsnprintf", "stdout", "stderr",
               "__printf_chk", "__fprintf_chk", "__vprintf_chk", "__vfprintf_chk", "__sprintf_chk",
               "__snprintf_chk", "__vsprintf_chk", "__vsnprintf_chk"],
    # the C math library (each name with its f and l forms)
    "math": [f + s for f in ("sqrt", "cbrt", "pow", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p",
                             "floor", "ceil", "round", "lround", "llround", "trunc", "rint", "lrint",
                             "nearbyint", "fabs", "fmin", "fmax", "fmod", "remainder", "fma", "sin",
                             "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
                             "hypot", "ldexp", "frexp", "modf", "copysign", "nextafter", "erf", "erfc",
                             "tgamma", "lgamma", "nan") for s in ("", "f", "l")] + ["abs", "labs", "llabs"],
    # bytes and strings
    "string": ["memcpy", "memmove", "memset", "memcmp", "memchr", "strlen", "strnlen", "strcmp",
               "strncmp", "strchr", "strrchr", "strstr", "strcpy", "strncpy", "strcat", "strncat",
               "stpcpy", "stpncpy"],  # GCC calls stpcpy for a strcpy whose end it then uses
    # host memory
    "memory": ["malloc", "calloc", "realloc", "free", "aligned_alloc", "operator new", "operator new[]",
               "operator delete", "operator delete[]"],
    # ending the driver's process (which fails the test that called it, nothing more)
    "exit": ["__assert_fail", "abort", "exit", "_Exit", "raise"],
}

# What the compiler makes an object of each backend call or read, whatever its source says.
ALWAYS_ALLOWED = {
    # every backend: the C and C++ runtimes' own calls (static objects, exceptions, the stack
    # protector), the copies and fills GCC emits for struct assignments, the kit's CUDA_CHECK
    "all": ["_GLOBAL_OFFSET_TABLE_", "__stack_chk_fail", "__stack_chk_guard", "_Unwind_Resume",
            "__gxx_personality_v0", "__cxa_guard_acquire", "__cxa_guard_release", "__cxa_guard_abort",
            "__cxa_atexit", "__dso_handle", "__cxa_begin_catch", "__cxa_end_catch", "__cxa_rethrow",
            "__cxa_pure_virtual", "std::terminate", "memcpy", "memmove", "memset",
            "scanlab_cuda_check",
            # libgcc's helpers for builtins and wide arithmetic (__builtin_popcountll, ...)
            "__popcount*", "__clz*", "__ctz*", "__ffs*", "__parity*", "__bswap*", "__divti3",
            "__udivti3", "__modti3", "__umodti3", "__muloti4"],
    # nvcc's host stubs: registering the device code and launching kernels
    "cuda": ["__cudaRegisterFatBinary", "__cudaRegisterFatBinaryEnd", "__cudaUnregisterFatBinary",
             "__cudaRegisterFunction", "__cudaRegisterVar", "__cudaRegisterManagedVar",
             "__cudaRegisterLinkedBinary*", "__cudaInitModule", "__cudaPushCallConfiguration",
             "__cudaPopCallConfiguration", "__cudaLaunchKernel*", "__cudaGetKernel", "cudaLaunchKernel",
             "atexit", "exit"],
    # the emulator: its runtime (launches, barriers, shuffles, shared memory), the built-in
    # variables it defines (as the toolkit declares them) and the memory probes'
    # instrumentation
    "emu": ["scanlab_emu::*", "__tsan_*", "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize"],
}


# A fortified call: glibc's checked form of a function (__memcpy_chk for memcpy, __printf_chk
# for printf), which _FORTIFY_SOURCE makes the compiler call where it knows a buffer's size.
FORTIFIED = re.compile(r"__(\w+?)_chk")


def allowed_matcher(manifest, backend):
    names = list(ALWAYS_ALLOWED["all"]) + list(ALWAYS_ALLOWED.get(backend, []))
    for a in manifest.get("allow", []):
        names += GROUPS.get(a[1:], []) if a.startswith("@") else [a]
    names += manifest.get("given_calls", [])
    exact, prefixes = set(), []
    for p in names:
        (prefixes.append(p[:-1]) if p.endswith("*") else exact.add(p))
    return lambda name: name in exact or any(name.startswith(p) for p in prefixes)


def _undefined(obj):
    """(raw, demangled name without its parameters) for each undefined symbol of an object."""
    raw = subprocess.run(["nm", "-P", "-u", obj], capture_output=True, text=True, errors="replace").stdout
    dem = subprocess.run(["nm", "-P", "-u", "-C", obj], capture_output=True, text=True, errors="replace").stdout
    out = []
    for r, d in zip(raw.splitlines(), dem.splitlines()):
        sym = r.split()[0].split("@")[0]
        name = d.rsplit(" ", 1)[0].strip()
        if name.endswith(" U"):
            name = name[:-2].strip()
        name = re.sub(r"\(.*$", "", name).strip() if not name.startswith("operator") else \
            re.sub(r"\((?!\)).*$", "", name).strip()
        out.append((sym, name))
    return out


# Sections whose code runs outside the driver's fence (its constructor of priority 1 confines
# the thread that runs the student's code: grader/trusted/driver/driver.c): the executable's
# pre-initialisers (before every library's), its _init and _fini, constructors of priority 0 or
# 1 (the linker sorts constructors by the number after the section name's last dot, and a tie by
# the order of the objects, the student's first; a name it cannot read as a number sorts by its
# text, anywhere), the old .ctors/.dtors lists, and their counterparts that run as the program
# ends. A student's plain constructors (.init_array: a C++ initializer at file scope, nvcc's
# registration of its kernels) and those of a priority above 1 written as GCC writes it
# (.init_array.00099: GCC's call of the probes' __tsan_init) run after the fence.
FENCE_PRIORITY = 1


def early_section(name):
    """Whether section `name` holds code that would run outside the driver's fence."""
    if re.fullmatch(r"\.preinit_array.*|\.init|\.fini|\.ctors.*|\.dtors.*", name):
        return True
    m = re.fullmatch(r"\.(?:init|fini)_array(\..*)?", name)
    if not m or m.group(1) is None:
        return False
    p = re.fullmatch(r"\.(\d{5})", m.group(1))
    return not p or int(p.group(1)) <= FENCE_PRIORITY


def check_sections(obj, shown):
    """What the object asks of the program it joins: no executable stack (a GNU C nested
    function's trampoline asks for one, and machine code written to the stack would then run),
    no section both writable and executable, no code that runs before the driver's fence
    (EARLY_SECTIONS) and no indirect function (its resolver runs as the program is relocated,
    before any constructor)."""
    try:
        text = subprocess.run(["readelf", "-SW", obj], capture_output=True, text=True, errors="replace",
                              timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return [f"{shown}: the compiled object could not be read"]
    problems, stack = [], None
    for m in re.finditer(r"^\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+([A-Za-z]*)\s+\d+\s+\d+\s+\d+\s*$",
                         text, re.M):
        name, flags = m.group(1), m.group(2)
        if name == ".note.GNU-stack":
            stack = flags
        elif "W" in flags and "X" in flags:
            problems.append(f"{shown}: a section both writable and executable ({name}): not allowed")
        if early_section(name):
            problems.append(f"{shown}: code that runs as the driver loads or ends, outside its fence ({name}: an "
                            "early or prioritised constructor or destructor): not allowed in student code")
    try:
        syms = subprocess.run(["readelf", "-sW", obj], capture_output=True, text=True, errors="replace",
                              timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        syms = ""
    for m in re.finditer(r"^\s*\d+:\s+\S+\s+\S+\s+IFUNC\s+\S+\s+\S+\s+\S+\s+(\S+)", syms, re.M):
        problems.append(f"{shown}: {m.group(1)} is an indirect function (its resolver runs as the driver loads, "
                        "outside its fence): not allowed in student code")
    if stack is None or "X" in stack:
        problems.append(f"{shown}: needs an executable stack (a nested function's trampoline?): not allowed "
                        "in student code")
    return problems


def check_symbols(obj, manifest, backend, shown, forbidden, names_at=None):
    """What the student's object calls or reads that the lab does not allow: each symbol it
    leaves undefined must be allowed (the manifest's `allow` and the groups it names,
    `given_calls`, ALWAYS_ALLOWED) and, unless given, not forbidden. `names_at` gives the line of
    a name in the regions, where the source names it."""
    allowed = allowed_matcher(manifest, backend)
    given = set(manifest.get("given_calls", []))
    lab = manifest["lab"]
    problems = []
    for sym, name in _undefined(obj):
        parts = name.split("::")
        # glibc's checked forms, which a C library built with _FORTIFY_SOURCE (Ubuntu's GCC
        # turns it on at -O2) calls instead: __memcpy_chk is memcpy with a bounds check, and is
        # judged as memcpy, allowed and forbidden alike
        plain = FORTIFIED.fullmatch(sym)
        base = plain.group(1) if plain else None
        ok = allowed(sym) or allowed(name) or bool(base and allowed(base))
        bad = not (sym in given or name in given) and (
            forbidden(sym) or forbidden(name) or bool(base and forbidden(base)) or
            any(forbidden("::".join(parts[:i + 1])) for i in range(len(parts))))
        if ok and not bad:
            continue
        line = (names_at or {}).get(parts[-1].replace("operator ", "").strip())
        where = f"{shown}:{line}" if line else shown
        why = "this lab does not allow it" if bad else "it is not in what this lab allows"
        problems.append(f"{where}: calls {name} ({why}: 'allow' in grader/manifests/lab{lab}.toml)")
    return problems
