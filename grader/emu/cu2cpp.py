#!/usr/bin/env python3
"""Rewrites a CUDA source file into C++ for the ScanLab CPU emulation backend.

Usage: cu2cpp.py IN.cu OUT.cpp [-I DIR ...]

(loops.py, with the same arguments, first gives each kernel with barriers a version that runs
its block's threads as loops, then rewrites the file as this does: emu-nvcc's builds.)

Six rewrites, each keeping every line on its line number (a `#line` directive at the top
names the .cu file, so compiler errors and emulator diagnostics point into it):

* `kernel<<<grid, block, smem, stream>>>(args)` becomes a call of
  `::scanlab_emu::launch(...)` with a lambda that calls the kernel (template kernels,
  qualified names and multi-line argument lists included);
* `__shared__ T name[N];` becomes a `static thread_local` (one block runs at a time on a
  worker thread, so thread-local storage is per-block storage) plus a call that poisons it
  the first time a block reaches it; `extern __shared__ T name[];` becomes a pointer to the
  block's dynamic shared memory;
* `#pragma unroll` becomes `#pragma GCC unroll N` before a `for` loop: N the count, or 64
  without one where the loop's bound is a literal or an upper-case constant (a loop of unknown
  count nvcc does not unroll without a count). GCC then unrolls the loop as nvcc does, so the
  memory probes see one instruction per iteration, as the GPU runs it. Any other pragma unroll
  line is blanked;
* every `for`, `while` and `do` loop in a function body (not in a `constexpr` function, not in
  a `#define`) carries a `::scanlab_emu::LoopCtx`: `{ LoopCtx c; for (...) { c.next(); body } }`,
  on the loop's own lines. In a build with the memory probes it tells them which iteration of
  which loops each access belongs to, so that the lanes of a warp are grouped by iteration, as
  the GPU runs them, even where a lane skips an access in some iterations; otherwise it is an
  empty object the compiler removes. Loops that GCC unrolls (`#pragma unroll` with a count
  other than 1, or before a bound known when compiling) are left alone: each iteration is
  code of its own. `#pragma unroll 1` becomes `_Pragma("GCC unroll 1")` inside the block.

* each static-storage variable of device code (a `__device__` or `__managed__` variable at
  namespace scope, a `static` variable in a `__device__` or `__global__` function, not `const`)
  is followed by a call that tells the runtime its address and size
  (`::scanlab_emu::device_static`): global memory on a GPU, where the memory probes count and
  race-check it as they do cudaMalloc'd memory. A namespace-scope variable is told when the
  program starts, a function's static when the function first runs. In the same functions,
  `malloc` and `free` become the device heap's (`::scanlab_emu::device_malloc`, `device_free`:
  as large as `cudaLimitMallocHeapSize`, 8 MiB unless set). A `__constant__` variable (defined,
  not `extern`) is told too (`::scanlab_emu::device_constant`): a host static that kernels may
  load.

* each kernel's body starts with `::scanlab_emu::kernel_entered();`: the thread has read its
  arguments (from the launching thread's memory), and with the probes its loads from the
  host's own memory end the program from here on, as its stores there do anywhere.

Local `.cuh` headers included with quotes are inlined (rewritten the same way) when they are
found next to the including file or in a -I directory, so `__shared__` in device functions
of a header works too. Python 3 standard library only.

Why one file (past 800 lines): one rewriting pass over a .cu file, its steps in the order they
run.
"""
import os
import re
import sys

IDENT = re.compile(r'[A-Za-z_]\w*')


def mask(src):
    """Returns src with comments, literal contents and preprocessor lines blanked.

    Newlines are kept, and the length is the same, so positions map one to one.
    """
    out = list(src)
    i, n = 0, len(src)
    line_start = True
    while i < n:
        c = src[i]
        if line_start and c in ' \t':
            i += 1
            continue
        if line_start and c == '#':
            # a preprocessor directive, with its continuation lines
            j = i
            while j < n:
                if src[j] == '\n' and src[j - 1] != '\\':
                    break
                if src[j] == '/' and j + 1 < n and src[j + 1] == '*':
                    k = src.find('*/', j + 2)
                    j = n if k < 0 else k + 2
                    continue
                j += 1
            for k in range(i, j):
                if out[k] != '\n':
                    out[k] = ' '
            i = j
            continue
        line_start = False
        if c == '\n':
            line_start = True
            i += 1
        elif src.startswith('//', i):
            j = src.find('\n', i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = ' '
            i = j
        elif src.startswith('/*', i):
            j = src.find('*/', i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != '\n':
                    out[k] = ' '
            i = j
        elif c == 'R' and src.startswith('R"', i) and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == '_')):
            p = src.find('(', i + 2)
            delim = src[i + 2:p]
            j = src.find(')' + delim + '"', p)
            j = n if j < 0 else j + len(delim) + 2
            for k in range(i + 2, j - 1):
                if out[k] != '\n':
                    out[k] = ' '
            i = j
        elif c in '"\'':
            if c == "'" and i > 0 and src[i - 1].isalnum():
                i += 1  # digit separator 1'000
                continue
            j = i + 1
            while j < n and src[j] != c and src[j] != '\n':
                j += 2 if src[j] == '\\' else 1
            for k in range(i + 1, min(j, n)):
                out[k] = ' '
            i = j + 1
        else:
            i += 1
    return ''.join(out)


def mask_defines(src):
    """Like mask(), but the bodies of #define directives are kept (their comments and literal
    contents blanked, line continuations turned to blanks) and all other code is blanked."""
    out = [' ' if c != '\n' else '\n' for c in src]
    for mt in re.finditer(r'^[ \t]*#[ \t]*define\b', src, re.M):
        i = mt.start()
        j = i
        while j < len(src) and not (src[j] == '\n' and (j == 0 or src[j - 1] != '\\')):
            j += 1
        body = src[i:j]
        flat = body.replace('\\\n', '  ').replace('#', ' ', 1)
        mb = mask(flat)
        for k, c in enumerate(mb):
            out[i + k] = '\n' if body[k] == '\n' else c
        # directive name and `#` kept
        out[i + body.index('#')] = '#'
    return ''.join(out)


def match_forward(m, i, open_c, close_c):
    """Index of the bracket closing the one at m[i]."""
    depth = 0
    for j in range(i, len(m)):
        if m[j] == open_c:
            depth += 1
        elif m[j] == close_c:
            depth -= 1
            if depth == 0:
                return j
    return -1


def skip_ws_back(m, i):
    while i > 0 and m[i - 1].isspace():
        i -= 1
    return i


KEYWORDS = {'if', 'while', 'for', 'switch', 'return', 'else', 'do', 'case', 'sizeof', 'decltype'}


def match_back(m, k, open_c, close_c):
    """Index of the bracket opening the one that closes at m[k] (-1 if none)."""
    depth = 0
    while k >= 0:
        if m[k] == close_c:
            depth += 1
        elif m[k] == open_c:
            depth -= 1
            if depth == 0:
                return k
        k -= 1
    return -1


def template_args_start(m, j):
    """Start of the template argument list that ends at m[j - 1] == '>'."""
    depth = 0
    k = j - 1
    while k >= 0:
        if m[k] == '>':
            depth += 1
        elif m[k] == '<':
            depth -= 1
            if depth == 0:
                break
        elif m[k] == ')':
            k = match_back(m, k, '(', ')')
        k -= 1
    return k


def kernel_expr_start(m, i):
    """Start of the kernel expression that ends just before position i (`<<<`).

    A postfix expression: a qualified name with template arguments, followed by any number of
    subscripts, calls and member accesses (`kernels[k]`, `table.fn`, `(*fp)`, `pick(k)`).
    """
    j = skip_ws_back(m, i)
    while True:
        if j > 0 and m[j - 1] in ')]':
            k = match_back(m, j - 1, '(' if m[j - 1] == ')' else '[', m[j - 1])
            if k < 0:
                return j
            before = skip_ws_back(m, k)
            w = before
            while w > 0 and (m[w - 1].isalnum() or m[w - 1] == '_'):
                w -= 1
            if m[k] == '(' and (m[w:before] in KEYWORDS
                                or not (before > 0 and (m[before - 1].isalnum() or m[before - 1] in '_)]>'))):
                # `if (c) k<<<`: the parentheses are not part of the expression; `(*fp)<<<`: they are
                return j if m[w:before] in KEYWORDS else k
            j = before
            continue
        if j > 0 and m[j - 1] == '>' and not (j > 1 and m[j - 2] == '-'):
            j = skip_ws_back(m, template_args_start(m, j))
        # qualified identifier
        k = j
        while k > 0 and (m[k - 1].isalnum() or m[k - 1] == '_'):
            k -= 1
        if k == j:
            return j
        j = k
        k2 = skip_ws_back(m, j)
        if k2 >= 2 and m[k2 - 2:k2] == '::':
            k3 = skip_ws_back(m, k2 - 2)
            if k3 > 0 and (m[k3 - 1].isalnum() or m[k3 - 1] in '_>'):
                j = k3  # ns::name: go on with ns
                continue
            return k2 - 2  # a leading :: (global namespace)
        if k2 >= 1 and m[k2 - 1] == '.' and not (k2 >= 2 and m[k2 - 2].isdigit()):
            j = k2 - 1
            j = skip_ws_back(m, j)
            continue
        if k2 >= 2 and m[k2 - 2:k2] == '->':
            j = skip_ws_back(m, k2 - 2)
            continue
        return j


def find_closing_launch(m, i):
    """Position of the `>>>` closing the configuration that starts at i."""
    depth = 0
    j = i
    while j < len(m):
        c = m[j]
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
        elif depth == 0 and m.startswith('>>>', j):
            return j
        j += 1
    return -1


def scope_kinds(m):
    """For each '{' position: 'ns' (namespace, extern "C"), 'class' or 'code'."""
    kinds = {}
    for mt in re.finditer(r'\{', m):
        before = m[max(0, mt.start() - 300):mt.start()]
        if re.search(r'(\bnamespace\b[\w\s:]*|\bextern\s*"\s*"\s*)$', before):
            kinds[mt.start()] = 'ns'
        elif re.search(r'\b(struct|class|union|enum)\b[^;{}()]*$', before):
            kinds[mt.start()] = 'class'
        else:
            kinds[mt.start()] = 'code'
    return kinds


def in_code_scope(m, pos, kinds):
    stack = []
    for j in range(pos):
        c = m[j]
        if c == '{':
            stack.append(kinds.get(j, 'code'))
        elif c == '}' and stack:
            stack.pop()
    return 'code' in stack


# headers the rewrite inlines (found next to the including file or in a -I directory)
INLINE_EXT = ('.cuh', '.cu', '.h', '.hpp', '.hh', '.hxx', '.inl', '.tcc')


def guarded(text):
    """Whether a header has `#pragma once` or an include guard around all of it."""
    if re.search(r'^[ \t]*#[ \t]*pragma[ \t]+once\b', text, re.M):
        return True
    bare = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    code = [ln.strip() for ln in re.sub(r'//[^\n]*', '', bare).splitlines() if ln.strip()]
    if len(code) >= 2:
        g = re.match(r'#\s*(?:ifndef\s+(\w+)|if\s+!\s*defined\s*\(?\s*(\w+))', code[0])
        if g and re.match(r'#\s*define\s+%s\b' % (g.group(1) or g.group(2)), code[1]):
            return True
    return False


def side_effect_free(expr):
    """Whether evaluating a kernel expression again is harmless: names, members, subscripts
    and `(*p)`, no calls, increments or assignments."""
    if re.search(r'\+\+|--|[^=!<>]=[^=]', expr):
        return False
    rest = re.sub(r'\(\s*\*', '', expr)
    return '(' not in rest


def split_top(s):
    """Splits s at top-level commas."""
    parts, depth, cur = [], 0, []
    for c in s:
        if c in '([{<':
            depth += 1
        elif c in ')]}>':
            depth -= 1
        if c == ',' and depth == 0:
            parts.append(''.join(cur))
            cur = []
        else:
            cur.append(c)
    parts.append(''.join(cur))
    return parts


TYPE_WORDS = {'int', 'char', 'short', 'long', 'float', 'double', 'bool', 'void', 'unsigned', 'signed', 'const',
              'volatile', '__restrict__', '__restrict', 'restrict', 'struct', 'class', 'enum', 'union', 'auto'}


def param_types(params):
    """A kernel's parameter list as a tuple of its types, the names and defaults left out (a
    name: the last word of a parameter of more than one word that is not a type's word), or
    None where the list is not that simple (function pointers, arrays, packs)."""
    out = []
    for q in split_top(params):
        q = q.split('=')[0].strip()
        if not q or q == 'void' and len(split_top(params)) == 1:
            continue
        if re.search(r'[()\[\]]|\.\.\.', q):
            return None
        words = re.findall(r'[A-Za-z_]\w*|::|[*&<>,]', q)
        if len(words) > 1 and re.fullmatch(r'[A-Za-z_]\w*', words[-1]) and words[-1] not in TYPE_WORDS \
                and words[-2] != '::':
            words = words[:-1]
        out.append(' '.join(words))
    return tuple(out)


ZERO = '::scanlab_emu::scanlab_emu_zero()'  # scanlab_emu_device.h; a name no student file may use
ZERO_LITERAL = re.compile(r'\s*(0(?:[xX]0+|0*)(?:[uU](?:ll|LL|[lL])?|(?:ll|LL|[lL])[uU]?)?)\s*')
NULL_WORD = re.compile(r'\s*(NULL)\s*')


def lone_args(masked, alone, closed_angles=True):
    """(start, end) of group 1 of `alone` in each argument of a launch that it matches whole, in
    the arguments' masked text (comments and literals blank). Commas split at the top level of
    parentheses, brackets and braces: an argument of a call among the arguments is evaluated where
    it stands, as nvcc does. With `closed_angles`, an argument after an unmatched `<` or `>` (a
    template's argument list, or a comparison: not told apart) is left alone; `->`, shifts and
    `<=`/`>=` bracket nothing."""
    spans, depth, angle, start, i, n = [], 0, 0, 0, 0, len(masked)
    angle_at_start = 0

    def close(end):
        mt = alone.fullmatch(masked, start, end)
        if mt and (angle_at_start == 0 or not closed_angles):
            spans.append((mt.start(1), mt.end(1)))
    while i < n:
        c = masked[i]
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
        elif depth == 0 and c in '<>':
            if masked[i:i + 2] in ('<<', '>>', '<=', '>='):
                i += 2
                continue
            if not (c == '>' and i and masked[i - 1] == '-'):
                angle += 1 if c == '<' else -1
        elif depth == 0 and c == ',':
            close(i)
            start, angle_at_start = i + 1, angle
        i += 1
    close(n)
    return spans


def pragma_before(src, p):
    """The `#pragma` line right before the statement at p (blank lines between allowed), or
    None: where p does not start its line, or the line before is something else."""
    i = src.rfind('\n', 0, p)
    if src[i + 1:p].strip():
        return None
    while i > 0:
        j = src.rfind('\n', 0, i)
        line = src[j + 1:i].strip()
        if line:
            return line if re.match(r'#\s*pragma\b', line) else None
        i = j
    return None


def skip_ws(m, i):
    while i < len(m) and m[i].isspace():
        i += 1
    return i


def word_at(m, i):
    mt = IDENT.match(m, i)
    return mt.group(0) if mt and (i == 0 or not (m[i - 1].isalnum() or m[i - 1] == '_')) else ''


def stmt_end(m, i):
    """End (one past) of the statement that starts at m[i] (m masked), or -1 where it cannot be
    read: a block, an if (with its else), a loop, a switch, or anything up to its `;`."""
    i = skip_ws(m, i)
    if i >= len(m):
        return -1
    if m[i] == '{':
        j = match_forward(m, i, '{', '}')
        return -1 if j < 0 else j + 1
    w = word_at(m, i)
    if w and w not in ('default',):
        k = skip_ws(m, i + len(w))
        if k < len(m) and m[k] == ':' and m[k + 1:k + 2] != ':':
            return stmt_end(m, k + 1)  # a labelled statement
    if w in ('case', 'default'):
        k = m.find(':', i)
        while k >= 0 and m[k + 1:k + 2] == ':':
            k = m.find(':', k + 2)
        return -1 if k < 0 else stmt_end(m, k + 1)
    if w in ('if', 'while', 'for', 'switch'):
        j = skip_ws(m, i + len(w))
        if w == 'if' and word_at(m, j) == 'constexpr':
            j = skip_ws(m, j + len('constexpr'))
        if j >= len(m) or m[j] != '(':
            return -1
        j = match_forward(m, j, '(', ')')
        if j < 0:
            return -1
        e = stmt_end(m, j + 1)
        if w == 'if' and e >= 0:
            k = skip_ws(m, e)
            if word_at(m, k) == 'else':
                return stmt_end(m, k + len('else'))
        return e
    if w == 'do':
        e = stmt_end(m, i + 2)
        if e < 0:
            return -1
        k = skip_ws(m, e)
        if word_at(m, k) != 'while':
            return -1
        k = skip_ws(m, k + len('while'))
        if k >= len(m) or m[k] != '(':
            return -1
        k = match_forward(m, k, '(', ')')
        if k < 0:
            return -1
        k = skip_ws(m, k + 1)
        return k + 1 if k < len(m) and m[k] == ';' else -1
    depth = 0
    for j in range(i, len(m)):
        c = m[j]
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
            if depth < 0:
                return -1
        elif c == ';' and depth == 0:
            return j + 1
    return -1


def function_scopes(m, kinds):
    """For each position of a loop keyword: whether it lies in a function body, and whether
    that function is constexpr. Returns a function pos -> (in_code, in_constexpr), answered in
    one pass over m for positions asked in increasing order."""
    stack = []  # (kind, constexpr)
    state = {'j': 0}

    def at(pos):
        for j in range(state['j'], pos):
            c = m[j]
            if c == '{':
                kind = kinds.get(j, 'code')
                cx = False
                if kind == 'code':
                    if not any(k == 'code' for k, _ in stack):
                        head_start = max(m.rfind(';', 0, j), m.rfind('}', 0, j), m.rfind('{', 0, j))
                        cx = re.search(r'\bconstexpr\b', m[head_start + 1:j]) is not None
                    else:
                        cx = stack[-1][1]
                stack.append((kind, cx))
            elif c == '}' and stack:
                stack.pop()
        state['j'] = max(state['j'], pos)
        code = [x for x in stack if x[0] == 'code']
        return bool(code), bool(code) and code[-1][1]
    return at


ATTR_START = re.compile(r'\b(__align__|alignas|__attribute__|__declspec)\s*\(')


def blank_attributes(text, fill=' '):
    """text with each `__align__(...)`, `alignas(...)`, `__attribute__((...))` blanked (the
    parentheses balanced: `__align__(sizeof(T))`); fill '' removes them instead."""
    out, last = [], 0
    for mt in ATTR_START.finditer(text):
        if mt.start() < last:
            continue
        close = match_forward(text, mt.end() - 1, '(', ')')
        if close < 0:
            continue
        out.append(text[last:mt.start()])
        out.append(fill * (close + 1 - mt.start()) if fill else '')
        last = close + 1
    out.append(text[last:])
    return ''.join(out)



def decl_end(m, i):
    """Where the declaration at m[i] ends: its first ';' outside braces, so that a variable of
    an unnamed struct or union type (`__shared__ union { ... } s;`) is one declaration; -1 when
    none."""
    depth = 0
    for j in range(i, len(m)):
        c = m[j]
        if c == '{':
            depth += 1
        elif c == '}':
            depth -= 1
            if depth < 0:
                return -1
        elif c == ';' and depth == 0:
            return j
    return -1

DEVICE_HEAD = re.compile(r'\b(__device__|__global__)\b')
NOT_DEVICE_STATIC = re.compile(r'\b(__shared__|__constant__|__global__|const|constexpr|thread_local|extern|'
                               r'template|typedef|using|static_assert|friend|operator)\b')
NOT_CONSTANT = re.compile(r'\b(__shared__|__global__|constexpr|thread_local|extern|template|typedef|using|'
                          r'static_assert|friend|operator)\b')


def top_bodies(m, kinds):
    """The top-level function bodies (start, end, device: the head says __device__ or
    __global__) and the class bodies (start, end) of m, in order."""
    funcs, classes, stack = [], [], []
    for mt in re.finditer(r'[{}]', m):
        j = mt.start()
        if m[j] == '}':
            if stack:
                stack.pop()
            continue
        kind = kinds.get(j, 'code')
        if kind == 'code' and 'code' not in stack:
            head = m[max(m.rfind(';', 0, j), m.rfind('}', 0, j), m.rfind('{', 0, j)) + 1:j]
            close = match_forward(m, j, '{', '}')
            if close > 0:
                funcs.append((j, close, DEVICE_HEAD.search(head) is not None))
        elif kind == 'class' and 'code' not in stack:
            close = match_forward(m, j, '{', '}')
            if close > 0:
                classes.append((j, close))
        stack.append(kind)
    return funcs, classes


def declared_names(decl):
    """The names a simple declaration declares (`int a, b[4] = {...}`), or [] where a
    declarator is not a plain name with array bounds (a function, a pointer to one, a
    parenthesized declarator)."""
    names = []
    text, out, k = blank_attributes(decl), [], 0
    while k < len(text):  # array bounds emptied first: `a[(size_t)1 << 25]` is still a plain name
        if text[k] == '[':
            close = match_forward(text, k, '[', ']')
            if close < 0:
                return []
            out.append('[]')
            k = close + 1
        else:
            out.append(text[k])
            k += 1
    for part in split_top(''.join(out)):
        left = split_top_eq(part)
        if '(' in left or '{' in left:
            return []
        nm = re.search(r'([A-Za-z_]\w*)\s*((?:\[[^\]]*\]\s*)*)$', left.strip())
        if not nm:
            return []
        names.append(nm.group(1))
    return names


def split_top_eq(part):
    """The declarator of `declarator = initializer` (or of `declarator{...}`): what precedes the
    first '=' or '{' outside brackets."""
    depth = 0
    for k, c in enumerate(part):
        if c in '([<':
            depth += 1
        elif c in ')]>':
            depth -= 1
        elif depth == 0 and (c == '=' or c == '{'):
            return part[:k]
    return part


class Rewriter:
    def __init__(self, include_dirs):
        self.include_dirs = include_dirs
        self.inlined = set()
        self.stack = []
        self.counter = 0

    def kernels(self, m):
        """Names of __global__ functions: (set of template names, dict name -> count)."""
        templates, defs, seen = set(), {}, {}
        self.kernel_bodies = []  # (name as written, end of body) of each kernel defined, not a template
        self.template_entries = []  # where each kernel template's body starts
        self.kernel_starts = []  # where each kernel's body starts, templates or not
        self.template_required = {}  # kernel template -> template arguments a launch must name
        for mt in re.finditer(r'\b__global__\b', m):
            head_start = max(m.rfind(';', 0, mt.start()), m.rfind('}', 0, mt.start()), m.rfind('{', 0, mt.start()))
            head = m[head_start + 1:mt.start()]
            p = m.find('(', mt.end())
            while p >= 0 and re.search(r'__launch_bounds__\s*$', m[mt.end():p]):
                p = m.find('(', match_forward(m, p, '(', ')') + 1)
            if p < 0:
                continue
            name_m = re.search(r'([A-Za-z_]\w*)\s*$', m[mt.end():p])
            if not name_m:
                continue
            name = name_m.group(1)
            tm = re.search(r'\btemplate\s*<', head)
            if tm:
                templates.add(name)
                # the arguments a launch must name for `&kernel<...>` to be the instance that
                # runs: all of them. Fewer named, and nvcc deduces the rest from the launch's
                # arguments (a default only where nothing is deduced; a pack from whatever is
                # left over), which an address cannot; a pack is never known to be complete
                close_t = match_forward(head, tm.end() - 1, '<', '>')
                params = [q.strip() for q in split_top(head[tm.end():close_t])] if close_t > 0 else []
                need = 1 << 30 if any('...' in q for q in params) else sum(1 for q in params if q)
                self.template_required[name] = max(need, self.template_required.get(name, need))
            close = match_forward(m, p, '(', ')')
            # a declaration and the definition of one kernel count once: the same words before
            # __global__ and the same parameter types (names left out); anything else counts
            # apart (two such in different namespaces count once: a launch names one of them)
            sig = (re.sub(r'\s+', ' ', head).strip(), param_types(m[p + 1:close]) if close > 0 else None)
            if sig[1] is None or sig not in seen.setdefault(name, set()):
                defs[name] = defs.get(name, 0) + 1
            if sig[1] is not None:
                seen[name].add(sig)
            k = close + 1 if close >= 0 else -1
            while 0 <= k < len(m) and m[k] not in '{;':
                k += 1
            if k >= 0 and k < len(m) and m[k] == '{':
                self.kernel_starts.append(k + 1)
            if k >= 0 and k < len(m) and m[k] == '{' and re.search(r'\btemplate\b', head):
                self.template_entries.append(k + 1)
            elif k >= 0 and k < len(m) and m[k] == '{':
                end = match_forward(m, k, '{', '}')
                qual = re.search(r'((?:[A-Za-z_]\w*\s*::\s*)*[A-Za-z_]\w*)\s*$', m[mt.end():p]).group(1)
                if end >= 0:
                    self.kernel_bodies.append((re.sub(r'\s+', '', qual), name, end + 1))
        return templates, defs

    def launch_edits(self, src, m, defs, templates, edits, macro):
        """Adds the edits that turn each `k<<<...>>>(args)` of m into a launcher call.

        macro: None for code, or (start, end, parameter names) of a #define body, where the
        replacement keeps every line continuation.
        """
        lo, hi = (macro[0], macro[1]) if macro else (0, len(m))
        nl = '\\\n' if macro else '\n'
        for mt in re.finditer(r'<<<', m[lo:hi]):
            i = lo + mt.start()
            if any(s <= i < e for s, e, _ in edits):
                continue
            start = max(lo, kernel_expr_start(m, i))
            end_cfg = find_closing_launch(m, i + 3)
            if end_cfg < 0 or start == i or end_cfg >= hi:
                continue
            p = end_cfg + 3
            while p < hi and m[p].isspace():
                p += 1
            if p >= hi or m[p] != '(':
                continue
            close = match_forward(m, p, '(', ')')
            if close < 0 or close >= hi:
                continue
            expr = ' '.join(src[start:i].replace('\\\n', ' ').split())
            cfg = src[i + 3:end_cfg]
            args = src[p + 1:close]
            base = re.sub(r'<.*', '', expr).split('::')[-1].strip()
            named = re.match(r'^(::)?\s*[A-Za-z_][\w\s:]*(<.*>)?$', expr, re.S) is not None
            launcher, typed = 'launch', False
            if macro and expr in macro[2]:
                name, kaddr = '#' + expr, 'nullptr'  # a macro parameter: name what it expands to
            else:
                name = '"%s"' % expr.replace('"', '\\"')
                named_args = -1  # template arguments named in the launch (-1: none)
                if named and '<' in expr:
                    lt = expr.index('<')
                    gt = match_forward(expr, lt, '<', '>')
                    named_args = len([q for q in split_top(expr[lt + 1:gt]) if q.strip()]) if gt > 0 else -1
                if named and 0 <= named_args < self.template_required.get(base, 0):
                    kaddr = 'nullptr'  # `k<A>(args)`, the rest deduced: the instance names itself
                elif named and ('<' in expr or (defs.get(base) == 1 and base not in templates)):
                    kaddr = '::scanlab_emu::kernel_address(&%s)' % expr
                    typed = True  # its parameter types are known: arguments passed as CUDA does
                elif not (named and base in defs) and side_effect_free(expr):
                    # a function pointer, a table entry, a member: the runtime names the kernel
                    # found at the address (evaluating the expression twice changes nothing)
                    kaddr = '::scanlab_emu::kernel_address(%s)' % expr
                    launcher = 'launch_dyn'
                else:
                    kaddr = 'nullptr'
            # The launcher forwards each argument, so a null pointer written as a literal loses
            # what made it one: g++'s NULL (__null) becomes a `long`, a literal 0 an `int`, and
            # no pointer parameter takes either; nvcc converts both for the parameter they meet.
            # An argument that is NULL alone becomes nullptr; where the parameter types are
            # known, a literal 0 alone becomes ZERO, which converts as the literal does (a
            # comment beside either stays). Arguments of calls among them are left as written.
            masked = m[p + 1:close]
            subs = [(a, b, 'nullptr') for a, b in lone_args(masked, NULL_WORD, closed_angles=False)]
            if typed:
                subs += [(a, b, ZERO) for a, b in lone_args(masked, ZERO_LITERAL)]
            for a, b, text in sorted(subs, reverse=True):
                args = args[:a] + text + args[b:]
            gap = nl * src[end_cfg + 3:p].count('\n')
            caller = '[&](auto &&...scanlab_emu_a) { %s(scanlab_emu_a...); }' % expr
            if typed:  # the kernel itself beside the call as written (default arguments)
                caller = '::scanlab_emu::kernel_ref(&%s, %s)' % (expr, caller)
            text = ('::scanlab_emu::%s(%s, __FILE__, __LINE__, %s, %s)%s(%s'
                    % (launcher, name, kaddr, cfg, gap, caller))
            if m[p + 1:close].strip():
                text += ', ' + args
            text += ')'
            orig_nl = src[start:close + 1].count('\n')
            text += nl * max(0, orig_nl - text.count('\n'))
            edits.append((start, close + 1, text))

    def loop_edits(self, src, m, kinds, pragma_at, edits):
        """Wraps each loop of a function body in a block that holds a LoopCtx and starts its
        body with next() (see the module's doc): insertions only, on the loop's own lines. A
        loop right after a pragma of the program's own (`#pragma omp parallel for`, `GCC ivdep`,
        ...) is left as it is, since the pragma must stand right before it; under an OpenMP
        pragma the loops inside it too (`collapse` needs them perfectly nested)."""
        scope = function_scopes(m, kinds)
        tails = set()  # the `while` of each do ... while
        unrolled = {skip_ws(m, e) for s, e, t in edits if t.startswith('#pragma GCC unroll')}
        untouched = []  # (start, end) of loops under an OpenMP pragma
        for mt in re.finditer(r'\b(for|while|do)\b', m):
            p, w = mt.start(), mt.group(1)
            prag = pragma_at.pop(p, None)
            code, cx = scope(p)
            if not prag and p not in unrolled and not any(a <= p < b for a, b in untouched):
                own = pragma_before(src, p)
                if own is not None:
                    if re.match(r'#\s*pragma\s+omp\b', own):
                        end = stmt_end(m, p)
                        if end >= 0:
                            untouched.append((p, end))
                    continue
            if p in tails or p in unrolled or not code or cx or any(a <= p < b for a, b in untouched):
                if prag:
                    edits.append(prag)
                continue
            if w == 'do':
                body = skip_ws(m, p + 2)
            else:
                h = skip_ws(m, p + len(w))
                h = match_forward(m, h, '(', ')') if h < len(m) and m[h] == '(' else -1
                body = skip_ws(m, h + 1) if h >= 0 else -1
            end = stmt_end(m, body) if body >= 0 else -1
            loop_end = stmt_end(m, p) if end >= 0 else -1
            if end < 0 or loop_end < 0:
                if prag:
                    edits.append(prag)
                continue
            if w == 'do':
                tails.add(skip_ws(m, end))
            self.counter += 1
            name = 'scanlab_emu_loop_%d' % self.counter
            opening = '{ ::scanlab_emu::LoopCtx %s; ' % name
            if prag:
                edits.append((prag[0], prag[1], ''))
                opening += '_Pragma("%s") ' % prag[2][len('#pragma '):]
            edits.append((p, p, opening))
            if m[body] == '{':
                edits.append((body + 1, body + 1, ' %s.next();' % name))
            else:
                edits.append((body, body, '{ %s.next(); ' % name))
                edits.append((end, end, ' }'))
            edits.append((loop_end, loop_end, ' }'))

    @staticmethod
    def unroll_pragma(arg, after):
        """`#pragma unroll [N]` for GCC, so it unrolls the loop as nvcc does and the probes see one
        instruction per iteration: `#pragma GCC unroll N`, or 64 without a count, where a `for`
        loop follows whose bound is a literal or an upper-case constant (nvcc unrolls a loop of
        unknown count not at all without a count, and GCC would unroll it 64 times); nothing
        otherwise (a count that is not a number, a pragma before something else)."""
        arg = re.sub(r'/\*.*?\*/|//.*', ' ', arg).strip()
        m = re.fullmatch(r'\(?\s*(\d+)\s*\)?', arg)
        if arg and not m:
            return ''
        loop = re.match(r'\s*for\s*\(([^;]*);([^;]*);', after)
        if not loop:
            return ''
        if not m and not re.fullmatch(r'\s*[\w.]+\s*(<|<=|>|>=|!=)\s*(\d+|[A-Z][A-Z0-9_]*)\s*', loop.group(2)):
            return ''
        count = min(int(m.group(1)), 65534) if m else 64
        return '#pragma GCC unroll %d' % count

    def header_kernels(self, path, src, seen):
        """The kernels the local headers this file includes define (recursively): (templates,
        defs, template arguments a launch must name). The launches of this file are rewritten
        before its headers are inlined, and a kernel template of a header launched with deduced
        arguments has no address to take (`&fillKernel` names no function)."""
        templates, defs, required = set(), {}, {}
        saved = (self.kernel_bodies, self.template_entries, self.template_required, self.kernel_starts) \
            if hasattr(self, 'kernel_bodies') else None
        try:
            for mt in re.finditer(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', src, re.M):
                if not mt.group(1).endswith(INLINE_EXT):
                    continue
                found = self.find_include(path, mt.group(1))
                key = os.path.realpath(found) if found else None
                if not key or key in seen:
                    continue
                seen.add(key)
                with open(found, encoding='utf-8', errors='replace') as fh:
                    text = fh.read()
                t, d = self.kernels(mask(text))
                templates |= t
                for k, v in d.items():
                    defs[k] = defs.get(k, 0) + v
                required.update(self.template_required)
                t2, d2, r2 = self.header_kernels(found, text, seen)
                templates |= t2
                for k, v in d2.items():
                    defs[k] = defs.get(k, 0) + v
                required.update(r2)
        finally:
            if saved:
                self.kernel_bodies, self.template_entries, self.template_required, self.kernel_starts = saved
        return templates, defs, required

    def rewrite(self, path, src):
        m = mask(src)
        edits = []  # (start, end, text)
        h_templates, h_defs, h_required = self.header_kernels(path, src, set())
        templates, defs = self.kernels(m)
        for name, n in h_defs.items():  # a header's kernels, where this file defines none of the name
            if name not in defs:
                defs[name] = n
                if name in h_templates:
                    templates.add(name)
                    self.template_required.setdefault(name, h_required.get(name, 0))
        kinds = scope_kinds(m)

        # -- kernel launches, in code and in the bodies of #define directives
        self.launch_edits(src, m, defs, templates, edits, None)
        mm = mask_defines(src)
        for mt in re.finditer(r'^[ \t]*#[ \t]*define[ \t]+[A-Za-z_]\w*(\([^)]*\))?', mm, re.M):
            end = mt.end()
            while end < len(src) and not (src[end] == '\n' and src[end - 1] != '\\'):
                end += 1
            params = set(re.findall(r'[A-Za-z_]\w*', mt.group(1) or ''))
            self.launch_edits(src, mm, defs, templates, edits, (mt.end(), end, params))

        # -- __shared__ declarations
        for mt in re.finditer(r'\b__shared__\b', m):
            i = mt.start()
            ds = max(m.rfind(';', 0, i), m.rfind('{', 0, i), m.rfind('}', 0, i))
            ds += 1
            while ds < i and m[ds].isspace():
                ds += 1
            de = decl_end(m, i)
            if de < 0:
                continue
            decl = src[ds:de]
            mdecl = m[ds:de]
            is_extern = re.search(r'\bextern\b', mdecl) is not None
            body = decl[:i - ds] + decl[i - ds + len('__shared__'):]
            body = re.sub(r'\b(extern|static)\b\s*', '', body)
            code_scope = in_code_scope(m, i, kinds)
            line_no = src.count('\n', 0, i) + 1
            if is_extern:
                clean = blank_attributes(body, '').strip()
                dm = re.match(r'^(.*?)([A-Za-z_]\w*)\s*\[\s*\]\s*$', clean, re.S)
                if not dm:
                    continue
                typ, name = ' '.join(dm.group(1).split()), dm.group(2)
                if code_scope:
                    text = ('[[maybe_unused]] %s *const %s = ::scanlab_emu::dynamic_smem<%s>("%s")'
                            % (typ, name, typ, typ.replace('\\', '').replace('"', '')))
                else:
                    # a real `T *` (casts, arithmetic and template deduction work on it), one per
                    # worker thread, pointed at the block's dynamic shared memory when it starts
                    self.counter += 1
                    text = ('[[maybe_unused]] static thread_local %s *%s; static ::scanlab_emu::FileDynamicShared '
                            'scanlab_emu_ds_%d([]() -> void ** { return (void **)&%s; })'
                            % (typ, name, self.counter, name))
                text += '\n' * decl.count('\n')
                edits.append((ds, de, text))
                continue
            names = []
            parts = split_top(blank_attributes(body))
            first = re.search(r'([A-Za-z_]\w*)\s*((?:\[[^\]]*\]\s*)*)$', parts[0].strip())
            if first:
                names.append(first.group(1))
            for part in parts[1:]:
                nm = re.match(r'^[\s*&]*([A-Za-z_]\w*)', part)
                if nm:
                    names.append(nm.group(1))
            if not names:
                continue
            text = 'static thread_local ' + body.strip()
            nl = decl.count('\n') - text.count('\n')
            text += ';'
            if code_scope:
                for nm in names:
                    text += ' ::scanlab_emu::shared_touch(&%s, sizeof(%s));' % (nm, nm)
                text = text[:-1]  # the original ';' follows
            else:
                for nm in names:
                    self.counter += 1
                    text += (' static ::scanlab_emu::FileShared scanlab_emu_fs_%d_%d([]() -> void * '
                             '{ return (void *)&%s; }, sizeof(%s));' % (line_no, self.counter, nm, nm))
                text = text[:-1]
            text += '\n' * max(0, nl)
            edits.append((ds, de, text))

        # -- device code's static-storage variables, told to the runtime (global memory on a GPU)
        self.device_static_edits(m, kinds, edits)

        # -- each kernel that is not a template registers its name and how to call it with an
        #    argument array (profile names of launches through pointers, cudaLaunchKernel by address)
        for qual, base, end in self.kernel_bodies:
            if defs.get(base, 0) > 1 and sum(1 for _, b, _ in self.kernel_bodies if b == base) > 1:
                continue  # overloaded: `&name` would be ambiguous
            self.counter += 1
            edits.append((end, end, ' [[maybe_unused]] static const bool scanlab_emu_kernel_%d = '
                          '::scanlab_emu::kernel_register(&%s, "%s");' % (self.counter, qual, qual)))
        for pos in self.kernel_starts:
            # the arguments are read: what the thread loads from here on is the device's
            edits.append((pos, pos, ' ::scanlab_emu::kernel_entered();'))
        for pos in self.template_entries:
            # a launch that deduced the template's arguments is named by the instance that runs
            edits.append((pos, pos, ' ::scanlab_emu::template_kernel_entry(__PRETTY_FUNCTION__);'))
        for mt in re.finditer(r'\bcudaLaunch(?:Cooperative)?Kernel\s*\(\s*'
                              r'(\(\s*(?:const\s+)?void\s*\*\s*\)|reinterpret_cast\s*<\s*(?:const\s+)?void\s*\*\s*>)', m):
            # the kernel keeps its type, so the typed overload calls it (templates included)
            edits.append((mt.start(1), mt.end(1), ''))

        # -- inline PTX: the CPU cannot run it; the call that replaces it does not compile, and
        #    the message says why
        for mt in re.finditer(r'\b(?:asm|__asm__|__asm)\b(?:\s+(?:volatile|__volatile__|inline|goto))*\s*\(', m):
            close = match_forward(m, mt.end() - 1, '(', ')')
            if close < 0 or any(s_ <= mt.start() < e_ for s_, e_, _ in edits):
                continue
            text = '::scanlab_emu_inline_ptx_asm()' + '\n' * src.count('\n', mt.start(), close + 1)
            edits.append((mt.start(), close + 1, text))

        # -- #pragma unroll (line-based) and loops
        pragma_at = {}  # position of a `for` -> (pragma line start, end, GCC pragma text)
        for mt in re.finditer(r'^[ \t]*#[ \t]*pragma[ \t]+unroll\b([^\n]*)', src, re.M):
            text = self.unroll_pragma(mt.group(1), src[mt.end():])
            k = skip_ws(m, mt.end())
            if text == '#pragma GCC unroll 1' and word_at(m, k) == 'for':
                pragma_at[k] = (mt.start(), mt.end(), text)
            else:
                edits.append((mt.start(), mt.end(), text))
        self.loop_edits(src, m, kinds, pragma_at, edits)
        for mt in re.finditer(r'^[ \t]*#[ \t]*include[ \t]*(?:"([^"]+)"|<([^>]+)>)[^\n]*', src, re.M):
            if mt.group(1):
                if not mt.group(1).endswith(INLINE_EXT):
                    continue
                found = self.find_include(path, mt.group(1))
            else:
                # <header> from a directory of the program's own (-I): only where it holds
                # device code the rewrite must see
                found = self.find_include(None, mt.group(2))
                if not found or not found.endswith(INLINE_EXT) or not self.has_device_code(found):
                    continue
            if not found:
                continue
            key = os.path.realpath(found)
            if key in self.inlined or len(self.stack) > 40:
                edits.append((mt.start(), mt.end(), ''))
                continue
            with open(found, encoding='utf-8', errors='replace') as fh:
                text = fh.read()
            if guarded(text):
                self.inlined.add(key)  # its guard would make a second copy empty
            self.stack.append(key)
            try:
                inner = self.rewrite(found, text)
            finally:
                self.stack.pop()
            # inlined once already; `#pragma once` would now apply to the main file
            inner = re.sub(r'^[ \t]*#[ \t]*pragma[ \t]+once\b[^\n]*', '', inner, flags=re.M)
            line_no = src.count('\n', 0, mt.start()) + 1
            # the next line of this file keeps its number
            edits.append((mt.start(), mt.end(), '#line 1 "%s"\n%s\n#line %d "%s"'
                          % (found, inner.rstrip('\n'), line_no + 1, path)))

        # insertions (empty ranges) before a replacement at the same place, in the order made
        edits = [e + (n,) for n, e in enumerate(edits)]
        edits.sort(key=lambda e: (e[0], e[1] > e[0], e[3]))
        edits = [e[:3] for e in edits]
        out, last = [], 0
        for s, e, t in edits:
            if s < last:
                continue  # overlapping (should not happen); keep the first
            out.append(src[last:s])
            out.append(t)
            last = e
        out.append(src[last:])
        return ''.join(out)

    def device_static_edits(self, m, kinds, edits):
        """After each static-storage variable of device code, the call that tells the runtime
        its address and size (the module docstring's fifth rewrite)."""
        funcs, classes = top_bodies(m, kinds)
        device_bodies = [(a, b) for a, b, dev in funcs if dev]
        code = [(a, b) for a, b, _ in funcs] + classes

        def inside(pos, ranges):
            return any(a < pos < b for a, b in ranges)
        for a, b in device_bodies:  # the device heap's malloc and free
            for mt in re.finditer(r'(?<![\w.>:])(?:(?:std)?::)?(malloc|free)(?=\s*\()', m[a:b]):
                edits.append((a + mt.start(), a + mt.end(), '::scanlab_emu::device_' + mt.group(1)))
        done = set()
        found = [(mt.start(), 'ns') for mt in re.finditer(r'\b(__device__|__managed__)\b', m)
                 if not inside(mt.start(), code)]
        found += [(mt.start(), 'fn') for mt in re.finditer(r'\bstatic\b', m) if inside(mt.start(), device_bodies)]
        for i, where in found:
            ds = max(m.rfind(';', 0, i), m.rfind('{', 0, i), m.rfind('}', 0, i)) + 1
            if ds in done or (where == 'fn' and m[ds:i].strip()):
                continue  # seen (`__device__ __managed__`), or `static` not at a statement's start
            done.add(ds)
            de = decl_end(m, i)
            if de < 0:
                continue
            decl = m[ds:de]
            if NOT_DEVICE_STATIC.search(decl):
                continue
            body = re.sub(r'\b(static|__device__|__managed__|volatile|inline)\b', ' ', decl)
            names = declared_names(body)
            if not names:
                continue
            text = ''
            # a function's: thread_local, so that setting the flag, in a CUDA thread, stores to
            # the worker's own storage, not to a host static the probes would stop
            flag = 'static thread_local const bool' if where == 'fn' else 'static const bool'
            managed = ', true' if re.search(r'\b__managed__\b', decl) else ''
            for nm in names:
                self.counter += 1
                text += (' [[maybe_unused]] %s scanlab_emu_dv_%d = ::scanlab_emu::device_static('
                         '(const void *)&%s, sizeof(%s), "%s"%s);' % (flag, self.counter, nm, nm, nm, managed))
            edits.append((de + 1, de + 1, text))
        # __constant__ variables (defined, not declared extern): what a kernel may load although
        # they are host statics on the emu (the probes fail a kernel's load from the host's own
        # memory); not device statics, whose accesses the counters count as global memory's
        done_c = set()  # apart from `done`: `__device__ __constant__` was seen above, not told
        for mt in re.finditer(r'\b__constant__\b', m):
            if inside(mt.start(), code):
                continue
            ds = max(m.rfind(';', 0, mt.start()), m.rfind('{', 0, mt.start()), m.rfind('}', 0, mt.start())) + 1
            de = decl_end(m, mt.start())
            if ds in done_c or de < 0 or NOT_CONSTANT.search(m[ds:de]):
                continue
            done_c.add(ds)
            body = re.sub(r'\b(static|__device__|__constant__|volatile|inline|const)\b', ' ', m[ds:de])
            text = ''
            for nm in declared_names(body):
                self.counter += 1
                text += (' [[maybe_unused]] static const bool scanlab_emu_dc_%d = ::scanlab_emu::device_constant('
                         '(const void *)&%s, sizeof(%s));' % (self.counter, nm, nm))
            if text:
                edits.append((de + 1, de + 1, text))

    def has_device_code(self, path):
        try:
            with open(path, encoding='utf-8', errors='replace') as fh:
                return re.search(r'__shared__|<<<|__global__|__device__', fh.read()) is not None
        except OSError:
            return False

    def find_include(self, path, name):
        for d in ([os.path.dirname(path) or '.'] if path else []) + self.include_dirs:
            cand = os.path.join(d, name)
            if os.path.isfile(cand):
                return cand
        return None


# The first line of a rewritten file whose code uses `volatile` (its own or an inlined header's,
# not `asm volatile`): the builds add EMU_LOCKSTEP_FLAGS for it (emu.mk says why).
LOCKSTEP_MARK = '/* scanlab-emu: volatile */'


def uses_volatile(text):
    """True when the code (comments, literals aside; a #define's body included) says volatile
    other than as asm's qualifier."""
    for body in (mask(text), mask_defines(text)):
        for m in re.finditer(r'\b(?:volatile|__volatile__)\b', body):
            if not re.search(r'\b(?:asm|__asm__|__asm)\s*(?:(?:inline|goto)\s*)*$', body[max(0, m.start() - 40):m.start()]):
                return True
    return False


def main(argv, transform=None):
    """The command line; transform(src_path, src), where given, changes the source text first
    (loops.py's)."""
    args = argv[1:]
    incs = []
    pos = []
    k = 0
    while k < len(args):
        a = args[k]
        if a == '-I' and k + 1 < len(args):
            incs.append(args[k + 1])
            k += 2
            continue
        if a.startswith('-I'):
            incs.append(a[2:])
        else:
            pos.append(a)
        k += 1
    incs += [d for d in os.environ.get('SCANLAB_EMU_INCLUDE', '').split(':') if d]
    if len(pos) != 2:
        sys.stderr.write('usage: %s IN.cu OUT.cpp [-I DIR ...]\n' % os.path.basename(argv[0]))
        return 2
    src_path, out_path = pos
    try:
        with open(src_path, encoding='utf-8', errors='replace') as fh:
            src = fh.read()
    except OSError as e:
        sys.stderr.write('cu2cpp: cannot read %s: %s\n' % (src_path, e.strerror))
        return 1
    if transform:
        src = transform(src_path, src)
    rw = Rewriter(incs)
    rw.inlined.add(os.path.realpath(src_path))
    text = '#line 1 "%s"\n' % src_path + rw.rewrite(src_path, src)
    if uses_volatile(text):
        text = LOCKSTEP_MARK + '\n' + text
    if not text.endswith('\n'):
        text += '\n'
    d = os.path.dirname(out_path)
    if d:
        os.makedirs(d, exist_ok=True)
    tmp = out_path + '.tmp'
    with open(tmp, 'w', encoding='utf-8') as fh:
        fh.write(text)
    os.replace(tmp, out_path)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
