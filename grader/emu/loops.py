"""Kernels as loops over a block's threads, for emu-nvcc's builds.

Usage: loops.py IN.cu OUT.cpp [-I DIR ...]   (cu2cpp.py's rewrite, each kernel's loops version first)

The emu runs each CUDA thread as a fiber, and a block's barrier is a switch per thread: at the
CUDA samples' scan size (17 barriers a thread, 1.7 M threads a launch) that is some 2,000 times
a GPU's run (corpus/README.md, "Where the emu is slowest"). Between two barriers each thread of
a block runs on its own, so the same stretch of code can run as a loop over the threads, each
thread's locals kept in an array with an element per thread: no stack per thread and no switch.
This file writes that second version of a kernel beside the kernel, as MCUDA's "deep fission"
does (a kernel without a barrier is one such loop: no fiber started for each thread):

* each device function with a barrier that the kernel calls is inlined, its parameters and
  locals renamed for the call (`pos` -> `pos__i2`), its last `return E;` an assignment to an
  array of results;
* the statements between barriers become a loop over the block's live threads (`for (lb.begin();
  lb.more(); lb.next())`), which sets threadIdx for each;
* the locals declared where a barrier may follow (in the kernel's body, in a loop or an `if` with
  a barrier inside, a parameter of an inlined function) become `PerThread<T>` arrays, each use
  indexed by the thread (`pos__i2[lb.t]`); a `cg::thread_block` stays one object;
* a loop or an `if` with a barrier inside tests its condition for every thread and goes on only
  where all agree (`lb.uniform(...)`), as CUDA requires of a barrier's threads; where they do not,
  the launch fails and says so;
* a barrier becomes `lb.barrier(...)`, the emulator's own work at one (the shared memory's guards,
  the volatile stores of the interval forgotten).

The kernel itself starts with `if (::scanlab_emu::loops_entry()) { __scanlab_loops_K(args);
return; }`: the runtime calls it once for the whole block where the launch may run as loops
(sched.cpp, run_loops), and each thread goes on into the kernel as written otherwise.

What is left as it was (the kernel runs on fibers): a kernel that reaches warp collectives,
cooperative groups other than the block, `__syncthreads_count` and its kin, `goto`, `asm`,
lambdas, `static` locals, a barrier inside a `switch` or reached through a macro, a `break`,
`continue` or early `return` where a barrier may follow, an inlined function that is a template,
overloaded, recursive, a member, or that declares `__shared__` memory, a declaration with two
names or without a type (`auto`) where a barrier may follow, a preprocessor line in a body, a
template kernel with a parameter pack. emu-nvcc compiles the file again without the loops when
the loops do not compile.

The version is written on the kernel's first line (one line, so that no line of the file moves).

Why one file (past 800 lines): one rewrite, whose steps (reading the kernel's statements, inlining,
the arrays per thread, the values all threads share, the loops) share one Writer's state and run
in the order the file gives them; the text helpers it shares with cu2cpp.py come from there.
"""
import bisect
import os
import re
import sys

import cu2cpp
from cu2cpp import match_forward, match_back, skip_ws, split_top, stmt_end, word_at

PREFIX = '__scanlab_loops_'
LB = '__scanlab_lb'

DENY = re.compile(r'\b(?:__syncthreads_(?:count|and|or)|__syncwarp|__shfl\w*|__ballot\w*|__any\w*|__all\w*|'
                  r'__activemask|__match\w*|__reduce_\w+|tiled_partition|coalesced_threads|coalesced_group|'
                  r'this_grid|grid_group|thread_block_tile|__nanosleep|goto|asm|__asm__|__asm|this_cluster|'
                  r'cluster_group|memcpy_async|labeled_partition|binary_partition|try|throw|co_await|co_yield|'
                  r'co_return|setjmp|longjmp|decltype|typeof|__typeof__)\b|\bcuda\s*::')
# what a launch run twice (the runtime's trial of the loops, sched.cpp) would do twice, outside the
# memory the trial copies: the device heap, a surface's store
TWICE = re.compile(r'\b(?:malloc|free|new|delete|surf\w*[Ww]rite\w*)\b')
CAST_WORDS = {'sizeof', 'alignof', 'unsigned', 'signed', 'int', 'long', 'short', 'char', 'float', 'double', 'bool',
              'if', 'for', 'while', 'switch', 'return', 'static_cast', 'const_cast', 'reinterpret_cast'}
MARK = re.compile(r'/\*@decl \w+\*/')
UNIFORM_WORDS = {'blockIdx', 'blockDim', 'gridDim', 'warpSize', 'sizeof', 'true', 'false', 'nullptr', 'unsigned',
                 'signed', 'int', 'long', 'short', 'char', 'float', 'double', 'bool', 'const', 'size_t', 'min', 'max',
                 'uint', 'uint32_t', 'int32_t', 'uint64_t', 'int64_t'}
THREAD_INDEX = re.compile(r'\bthreadIdx\b|\blane_?id\b|\blaneid\b')
BARRIER_WORD = re.compile(r'\b__syncthreads\b|\bsync\s*\(')
KEYWORDS = {'if', 'for', 'while', 'do', 'switch', 'return', 'sizeof', 'alignof', 'decltype', 'case', 'else',
            'new', 'delete', 'throw', 'static_cast', 'const_cast', 'reinterpret_cast', 'dynamic_cast',
            'typeid', 'noexcept', 'alignas', 'static_assert', 'defined'}
NOT_DECL_START = KEYWORDS | {'return', 'break', 'continue', 'goto', 'using', 'typedef', 'operator', 'default', 'case'}
SPEC_WORDS = re.compile(r'\b(?:__global__|__device__|__host__|__forceinline__|__noinline__|inline|static|extern|'
                        r'__inline__|constexpr)\b|"C"|\b__launch_bounds__\s*\([^)]*\)')


class Deny(Exception):
    """The kernel stays on fibers; the message says why (for SCANLAB_EMU_LOOPS_WHY)."""


def strip_comments(src):
    """src with each comment blanked (newlines kept), literals as they are: same length."""
    out = list(src)
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if c == '/' and i + 1 < n and src[i + 1] == '/':
            while i < n and src[i] != '\n':
                out[i] = ' '
                i += 1
        elif c == '/' and i + 1 < n and src[i + 1] == '*':
            j = src.find('*/', i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if src[k] != '\n':
                    out[k] = ' '
            i = j
        elif c in '"\'':
            j = i + 1
            while j < n and src[j] != c and src[j] != '\n':
                j += 2 if src[j] == '\\' else 1
            i = j + 1
        else:
            i += 1
    return ''.join(out)


def one_line(text):
    return ' '.join(text.split())


class Func:
    """A function defined at namespace scope: its parts, in both texts (masked m, code c)."""

    def __init__(self, m, c, head_start, body_open, body_close):
        self.m, self.c = m, c
        self.head_start, self.open, self.close = head_start, body_open, body_close
        head = m[head_start:body_open]
        self.kernel = re.search(r'\b__global__\b', head) is not None
        self.device = self.kernel or re.search(r'\b__device__\b', head) is not None
        self.ok = False
        h = head.rstrip()
        if not h.endswith(')'):
            return
        pclose = head_start + len(h) - 1
        popen = match_back(m, pclose, '(', ')')
        if popen < 0:
            return
        nm = re.search(r'([A-Za-z_]\w*)\s*$', m[head_start:popen])
        if not nm or m[head_start:head_start + nm.start()].rstrip().endswith('::'):
            return
        self.name = nm.group(1)
        self.params = c[popen + 1:pclose]
        pre = m[head_start:head_start + nm.start()]
        self.template = ''
        tm = re.match(r'\s*template\s*<', pre)
        if tm:
            close_t = match_forward(pre, tm.end() - 1, '<', '>')
            if close_t < 0:
                return
            self.template = pre[tm.start():close_t + 1].strip()
            pre = pre[close_t + 1:]
        self.ret = one_line(SPEC_WORDS.sub(' ', pre))
        self.ok = True

    def body(self):
        return self.c[self.open + 1:self.close]

    def mbody(self):
        return self.m[self.open + 1:self.close]


def param_list(text):
    """[(type, name)] of a parameter list; raises Deny where a parameter is not `T name`."""
    out = []
    if not text.strip() or text.strip() == 'void':
        return out
    for p in split_top(text):
        p = p.split('=')[0].strip()
        mt = re.match(r'^(.*?)([A-Za-z_]\w*)\s*((?:\[[^\]]*\]\s*)*)$', p, re.S)
        if not mt or not mt.group(1).strip() or '...' in p or '(' in p or '&' in mt.group(1):
            raise Deny('a parameter written `%s`' % one_line(p))
        out.append((value_type(mt.group(1) + (mt.group(3) or '')), mt.group(2)))
    return out


def value_type(t):
    """A declared type as an array element's: top-level const dropped."""
    t = one_line(t.replace('register', ' '))
    if '*' in t:
        return re.sub(r'\*\s*const\s*$', '*', t).strip()
    return one_line(re.sub(r'\bconst\b', ' ', t))


def is_block_type(t):
    return re.search(r'\bthread_block\b', t) is not None


DECL_TYPE = re.compile(r'^\s*((?:(?:const|volatile|unsigned|signed|long|short|register|struct)\s+)*'
                       r'(?:::)?[A-Za-z_][\w:]*(?:\s*<[^;=(){}]*>)?(?:\s+(?:const|volatile|int|long|char|short|double))*)'
                       r'(?=\s*[*&]|\s+[A-Za-z_])')
DECLARATOR = re.compile(r'^\s*([*\s]*(?:const\s*)?)([A-Za-z_]\w*)\s*((?:\[[^\]]*\]\s*)*)(?:=(?!=)([\s\S]*))?$')


def split_at(text, sep):
    """The spans (start, end) of text between its top-level `sep` characters (outside
    parentheses, brackets and braces; angles are not counted: `a < b` is an expression)."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in '([{':
            depth += 1
        elif ch in ')]}':
            depth -= 1
        elif ch == sep and depth == 0:
            out.append((start, i))
            start = i + 1
    out.append((start, len(text)))
    return out


def declaration(stmt_m, stmt_c):
    """[(type, name, initializer or None)] of a declaration, None for other statements; raises
    Deny for a declaration this file cannot take apart. The two texts have one length."""
    s, c = stmt_m.strip(), stmt_c.strip()
    w = word_at(s, 0)
    if not w or w in NOT_DECL_START or not s.endswith(';'):
        return None
    if w == 'auto':
        raise Deny('a declaration with auto where a barrier may follow')
    mt = DECL_TYPE.match(s)
    if not mt:
        return None
    typ = mt.group(1)
    if word_at(typ.strip(), 0) in NOT_DECL_START:
        return None
    if re.search(r'\b(?:static|extern|__shared__|auto|typedef)\b', typ):
        raise Deny('a declaration `%s` where a barrier may follow' % one_line(c)[:60])
    rest_m, rest_c = s[mt.end():-1], c[mt.end():-1]
    out = []
    for a, b in split_at(rest_m, ','):
        d = DECLARATOR.match(rest_m[a:b])
        if not d:
            if len(out) == 0:
                return None  # not a declaration after all (`a * b(c);`)
            raise Deny('a declarator the rewrite cannot read: %s' % one_line(rest_c[a:b])[:60])
        stars, name, dims, init = d.groups()
        init_c = None
        if init is not None:
            init_c = rest_c[a + d.start(4):b]
            if init_c.strip().startswith('{'):
                raise Deny('a brace initializer where a barrier may follow')
        out.append((value_type(typ + ' ' + stars + (dims or '')), name, init_c))
    return out


class Writer:
    """The loops version of one kernel."""

    def __init__(self, funcs, kernel, block_names, src):
        self.newlines = [i for i, ch in enumerate(src) if ch == '\n']
        self.funcs = funcs  # name -> Func (barrier functions the kernel may inline)
        self.kernel = kernel
        self.hoisted = []  # (type, name)
        self.hoisted_names = set()
        self.uniform_decls = []  # text
        self.shared_decls = []  # text
        self.block_names = set(block_names)
        self.n_inline = 0
        self.conds = []  # (code, line) of each condition, written once the uniform names are known
        self.uniform = set()
        self.macro_names = set()
        self.kernel_names = set()
        self.globals = set()  # the names the file and its headers say at namespace scope
        self.param_types = {}  # the kernel's parameters' types, by name
        self.const_macros = set()  # the file's macros that are numbers (THREADS 256)
        self.making = set()  # the file's classes that make themselves
        self.own_names = set()  # the names the rewrite gave (renamed locals, results)
        self.n_label = 0
        self.depth = 0
        self.cond_stack = []  # the conditions around the statement being written (their indices)
        self.barrier_conds = []  # (line, conditions around it) of each barrier
        self.cond_lines = []  # the barriers' lines under a condition tested for each thread

    def line(self, pos):
        """The line of the file at pos."""
        return bisect.bisect_left(self.newlines, pos) + 1

    # ---- names
    def rename(self, text_m, text_c, mapping):
        """text_c with each identifier of mapping (not after `.`, `->` or `::`) renamed."""
        if not mapping:
            return text_c
        out, last = [], 0
        for mt in names_in(text_m, mapping):
            nm = mt.group(0)
            out.append(text_c[last:mt.start()])
            out.append(mapping[nm])
            last = mt.end()
        out.append(text_c[last:])
        return ''.join(out)

    def index(self, text):
        """text with each hoisted name indexed by the thread."""
        if not self.hoisted_names:
            return text
        out, last = [], 0
        for mt in names_in(mask_expr(text), self.hoisted_names):
            out.append(text[last:mt.end()])
            out.append('[%s.t]' % LB)
            last = mt.end()
        out.append(text[last:])
        return ''.join(out)

    def hoist(self, typ, name):
        if name in self.hoisted_names:
            raise Deny('%s declared twice where a barrier may follow' % name)
        self.hoisted.append((typ, name))
        self.hoisted_names.add(name)

    # ---- statements
    def block(self, m, c, ctx, base):
        """The statements of the text m/c (a compound statement's inside): a list of pieces,
        each ('run', code) or ('text', code)."""
        pieces = []
        j = 0
        n = len(m)
        while True:
            j = skip_ws(m, j)
            if j >= n:
                break
            e = stmt_end(m, j)
            if e < 0:
                raise Deny('a statement the rewrite cannot read')
            pieces += self.statement(m[j:e], c[j:e], ctx, base + j)
            j = e
        return pieces

    def statement(self, sm, sc, ctx, base):
        """One statement (base: where it starts in the file, for the lines of what it says)."""
        s = sm.strip()
        if not s or s == ';':
            return []
        if not self.has_barrier(sm):
            return self.plain(sm, sc, ctx)
        w = word_at(s, 0)
        lead = len(sm) - len(sm.lstrip())
        sm, sc = sm[lead:].rstrip(), sc[lead:].rstrip()
        base += lead
        if w not in ('for', 'while', 'if', 'do') and not sm.startswith('{') and self.is_barrier(sm, ctx):
            self.barrier_conds.append((self.line(base), tuple(self.cond_stack)))
            return [('text', '%s.barrier(__FILE__, %d);' % (LB, self.line(base)))]
        if sm.startswith('{'):
            close = match_forward(sm, 0, '{', '}')
            return self.block(sm[1:close], sc[1:close], ctx, base + 1)
        if w in ('for', 'while', 'if'):
            p = skip_ws(sm, len(w))
            if word_at(sm, p) == 'constexpr':
                raise Deny('an if constexpr with a barrier inside')
            close = match_forward(sm, p, '(', ')')
            head_m, head_c = sm[p + 1:close], sc[p + 1:close]
            rest_m, rest_c = sm[close + 1:], sc[close + 1:]
            if w == 'if':
                e = stmt_end(rest_m, 0)
                then_m, then_c = rest_m[:e], rest_c[:e]
                k = skip_ws(rest_m, e)
                else_m = else_c = ''
                if word_at(rest_m, k) == 'else':
                    else_m, else_c = rest_m[k + 4:], rest_c[k + 4:]
                cond = self.cond(head_m, head_c, ctx, base + p + 1)
                out = ([('text', 'if (%s) {' % cond)] + self.under(cond, then_m, then_c, ctx, base + close + 1) +
                       [('text', '}')])
                if else_m.strip():
                    out += ([('text', 'else {')] + self.under(cond, else_m, else_c, ctx, base + close + 1 + k + 4) +
                            [('text', '}')])
                return out
            self.no_jumps(rest_m)
            if w == 'while':
                cond = self.cond(head_m, head_c, ctx, base + p + 1)
                return ([('text', 'while (%s) {' % cond)] +
                        self.under(cond, rest_m, rest_c, ctx, base + close + 1) + [('text', '}')])
            parts_m = [head_m[a:b] for a, b in split_at(head_m, ';')]
            if len(parts_m) != 3:
                raise Deny('a for loop with a range')
            a = len(parts_m[0])
            b = a + 1 + len(parts_m[1])
            if self.has_barrier(head_m[:a]) or self.has_barrier(head_m[b + 1:]):
                raise Deny('a call with a barrier in a for loop\'s head')
            init_m, init_c = head_m[:a], head_c[:a]
            cond_m, cond_c = head_m[a + 1:b], head_c[a + 1:b]
            inc_m, inc_c = head_m[b + 1:], head_c[b + 1:]
            out = self.plain(init_m + ';', init_c + ';', ctx) if init_m.strip() else []
            cond = self.cond(cond_m, cond_c, ctx, base + p + 1) if cond_m.strip() else 'true'
            out += [('text', 'while (%s) {' % cond)] + self.under(cond, rest_m, rest_c, ctx, base + close + 1)
            if inc_m.strip():
                out += self.plain(inc_m + ';', inc_c + ';', ctx)
            return out + [('text', '}')]
        if w == 'do':
            e = stmt_end(sm, 2)
            body_m, body_c = sm[2:e], sc[2:e]
            k = skip_ws(sm, e)
            k = skip_ws(sm, k + len('while'))
            close = match_forward(sm, k, '(', ')')
            self.no_jumps(body_m)
            cond = self.cond(sm[k + 1:close], sc[k + 1:close], ctx, base + k + 1)
            return ([('text', 'do {')] + self.under(cond, body_m, body_c, ctx, base + 2) +
                    [('text', '} while (%s);' % cond)])
        if w in ('switch', 'case', 'default', 'break', 'continue', 'goto'):
            raise Deny('a barrier inside %s' % w)
        if w == 'return':
            if ctx.get('ret') is None or not ctx.get('last'):
                raise Deny('a return where a barrier may follow')
        # a statement that calls a function with a barrier: inline the call
        return self.with_call(sm, sc, ctx)

    def under(self, cond, sm, sc, ctx, base):
        """The statement guarded by the condition cond (cond()'s mark, or 'true')."""
        mt = re.match(r'__SCANLAB_COND_(\d+)__$', cond)
        self.cond_stack.append(int(mt.group(1)) if mt else -1)
        try:
            return self.statement(sm, sc, ctx, base)
        finally:
            self.cond_stack.pop()

    def no_jumps(self, body_m):
        """A loop with a barrier inside takes no break or continue of its own."""
        def blank(kinds):
            stripped = body_m
            for mt in list(re.finditer(r'\b(%s)\b' % kinds, body_m))[::-1]:
                p = skip_ws(body_m, mt.end())
                if mt.group(1) != 'do' and p < len(body_m) and body_m[p] == '(':
                    p = match_forward(body_m, p, '(', ')') + 1
                e = stmt_end(body_m, p)
                if e > 0:
                    stripped = stripped[:mt.start()] + ' ' * (e - mt.start()) + stripped[e:]
            return stripped
        # loops nested in it may have theirs (a switch its own break, not a continue): blank them
        if re.search(r'\bbreak\b', blank('for|while|do|switch')) or re.search(r'\bcontinue\b', blank('for|while|do')):
            raise Deny('a break or continue in a loop with a barrier')

    def cond(self, hm, hc, ctx, base):
        if re.search(r'[^=!<>]=[^=]|\+\+|--', hm) or self.has_barrier(hm):
            raise Deny('an assignment, an increment or a call with a barrier in a condition')
        self.no_block_calls(hm)
        code = self.index(self.rename(hm, hc, ctx['map']))
        self.conds.append((one_line(code), self.line(base)))
        return '__SCANLAB_COND_%d__' % (len(self.conds) - 1)

    def no_block_calls(self, text_m):
        for mt in re.finditer(r'\b([A-Za-z_]\w*)\s*(?:<[^;(){}]*>)?\s*\(', text_m):
            if mt.group(1) in self.funcs:
                raise Deny('a call of %s inside an expression the rewrite cannot split' % mt.group(1))

    def plain(self, sm, sc, ctx):
        """A statement without a barrier: run by each thread in a loop. A declaration where a
        barrier may follow (ctx['level']) becomes an assignment to its array."""
        if re.search(r'\breturn\b', sm):
            if ctx.get('ret') is not None:
                raise Deny('a return in an inlined function before its end')
            if not ctx.get('kernel'):
                raise Deny('a return')
        code = self.rename(sm, sc, ctx['map'])
        cm = self.rename(sm, sm, ctx['map'])
        if ctx.get('level'):
            d = declaration(cm, code)
            if d:
                runs = []
                for typ, name, init in d:
                    if is_block_type(typ):
                        self.block_names.add(name)
                        self.uniform_decls.append('[[maybe_unused]] %s %s = %s;'
                                                  % (typ, name, init or 'cooperative_groups::this_thread_block()'))
                        continue
                    if set(re.findall(r'\w+', typ)) & self.making:
                        raise Deny('a local of %s, a class that makes itself, where a barrier may follow' % typ)
                    self.hoist(typ, name)
                    runs.append(('run', '/*@decl %s*/' % name))
                    if init:
                        runs.append(('run', '%s[%s.t] = %s;' % (name, LB, self.index(init))))
                return runs
            if DECL_TYPE.match(cm.strip()) and not re.match(r'\s*[A-Za-z_][\w:]*\s*(?:<[^;]*>)?\s*[(=]', cm) and \
                    word_at(cm.strip(), 0) not in NOT_DECL_START:
                raise Deny('a declaration the rewrite cannot read where a barrier may follow: %s' % one_line(code)[:60])
        code = self.index(code)
        if ctx.get('kernel') and re.search(r'\breturn\b', sm):
            # a thread that returns leaves the block's later loops
            code = re.sub(r'\breturn\s*;', '{ %s.exit_thread(); goto __SCANLAB_NEXT__; }' % LB, code)
            if re.search(r'\breturn\b', mask_expr(code)):
                raise Deny('a kernel that returns a value')
        return [('run', code)]

    def with_call(self, sm, sc, ctx):
        calls = [mt for mt in re.finditer(r'\b([A-Za-z_]\w*)\s*\(', sm) if mt.group(1) in self.funcs]
        if len(calls) != 1:
            raise Deny('a statement with a barrier the rewrite cannot place: %s' % one_line(sc)[:60])
        mt = calls[0]
        if re.search(r'\?|&&|\|\|', sm):
            raise Deny('a call with a barrier under ?:, && or ||')
        close = match_forward(sm, sm.index('(', mt.start()), '(', ')')
        if close > 0 and ',' in sm[:mt.start()] + sm[close + 1:]:
            raise Deny('a call with a barrier beside a comma (the rest would run after it)')
        if ctx.get('level') and DECL_TYPE.match(sm.strip()) and len(split_at(sm, ',')) > 1 and \
                not re.match(r'\s*[A-Za-z_][\w:]*\s*\(', sm):
            raise Deny('a call with a barrier in a declaration of several names')
        k = mt.start() - 1
        while k >= 0 and sm[k] in ' \t\n':
            k -= 1
        if k >= 0 and (sm[k] == '.' or sm[k - 1:k + 1] == '->'):
            raise Deny('a member call with a barrier')
        qual = re.search(r'((?:::)?(?:[A-Za-z_]\w*\s*::\s*)*)$', sm[:mt.start()])
        start = qual.start() if qual and qual.group(1) else mt.start()
        p = sm.index('(', mt.start())
        close = match_forward(sm, p, '(', ')')
        f = self.funcs[mt.group(1)]
        if f.kernel:
            raise Deny('a kernel called from a kernel')
        args_c = self.rename(sm[p + 1:close], sc[p + 1:close], ctx['map'])
        args_m = self.rename(sm[p + 1:close], sm[p + 1:close], ctx['map'])
        args = [] if not args_m.strip() else [(args_m[a:b], args_c[a:b]) for a, b in split_at(args_m, ',')]
        res, pieces = self.inline(f, args, ctx)
        if res is None:
            if re.sub(r'\s', '', sm[:start] + sm[close + 1:]) != ';':
                raise Deny('a call of a void function with a barrier inside an expression')
            return pieces
        # the call's place takes its result (a hoisted name: indexed by the thread)
        rest_m = sm[:start] + res + sm[close + 1:]
        rest_c = sc[:start] + res + sc[close + 1:]
        if ctx.get('ret') is not None and word_at(rest_m.strip(), 0) == 'return':
            # the inlined function's own result
            expr_c = rest_c.strip()[len('return'):].rstrip().rstrip(';')
            expr_m = rest_m.strip()[len('return'):].rstrip().rstrip(';')
            code = self.index(self.rename(expr_m, expr_c, ctx['map']))
            return pieces + [('run', '%s[%s.t] = %s;' % (ctx['ret'], LB, code))]
        return pieces + self.plain(rest_m, rest_c, ctx)

    def inline(self, f, args, ctx):
        """The pieces of one call of f (its arguments' code), and the name of its results'
        array (None for void)."""
        if self.depth > 16:
            raise Deny('calls with barriers nested too deep (recursion?)')
        self.n_inline += 1
        tag = '__i%d' % self.n_inline
        params = param_list(f.params)
        if len(params) != len(args):
            raise Deny('a call of %s with default arguments' % f.name)
        body_m, body_c = f.mbody(), f.body()
        own_locals = local_names(body_m)
        check_scopes(body_m, own_locals, {nm for _, nm in params}, f.name)
        if own_locals & self.globals:
            raise Deny('%s, a local of %s, is also a global\'s name' % (sorted(own_locals & self.globals)[0], f.name))
        names = {nm for _, nm in params} | own_locals
        # a name the callee says and does not declare is the callee's global: none of the caller's
        # names may hide it once the body is inlined
        said = {mt.group(0) for mt in re.finditer(r'(?<![\w.>])[A-Za-z_]\w*', body_m)} - names
        if said & (self.kernel_names | set(ctx['map']) | set(ctx['map'].values())):
            raise Deny('%s says %s, a name of its caller' % (f.name, sorted(said & (self.kernel_names | set(ctx['map'])))[:1]))
        if names & self.macro_names:
            raise Deny('a macro names %s, a local of %s' % (sorted(names & self.macro_names)[0], f.name))
        mapping = {nm: nm + tag for nm in names}
        self.own_names |= set(mapping.values())
        pieces = []
        runs = []
        for (typ, nm), (am, ac) in zip(params, args):
            if is_block_type(typ):
                if one_line(am) not in self.block_names:
                    raise Deny('a thread_block argument that is not the block')
                self.block_names.add(mapping[nm])
                self.uniform_decls.append('[[maybe_unused]] auto &%s = %s;' % (mapping[nm], one_line(am)))
                continue
            self.hoist(typ, mapping[nm])
            runs.append(('run', '%s[%s.t] = %s;' % (mapping[nm], LB, self.index(ac))))
        pieces += runs
        ret = None
        rt = f.ret.strip()
        if rt != 'void':
            if not rt or re.search(r'\bauto\b|&', rt):
                raise Deny('%s returns %s' % (f.name, rt or 'nothing named'))
            ret = '__scanlab_ret' + tag
            self.own_names.add(ret)
            self.hoist(value_type(rt), ret)
        # the body's statements; the last one may be its return
        stmts = []
        j = 0
        while True:
            j = skip_ws(body_m, j)
            if j >= len(body_m):
                break
            e = stmt_end(body_m, j)
            if e < 0:
                raise Deny('a statement the rewrite cannot read in %s' % f.name)
            stmts.append((j, e))
            j = e
        sub = dict(map=mapping, level=True, kernel=False, ret=ret)
        self.depth += 1
        try:
            for k, (a, e) in enumerate(stmts):
                sm, sc = body_m[a:e], body_c[a:e]
                last = k == len(stmts) - 1
                if word_at(sm.strip(), 0) == 'return':
                    if not last:
                        raise Deny('a return before the end of %s' % f.name)
                    expr_m = sm.strip()[len('return'):].rstrip().rstrip(';')
                    expr_c = sc.strip()[len('return'):].rstrip().rstrip(';')
                    if not expr_m.strip():
                        continue
                    if ret is None:
                        raise Deny('%s returns a value from a void function' % f.name)
                    if self.has_barrier(expr_m) or any(mt.group(1) in self.funcs for mt in
                                                       re.finditer(r'\b([A-Za-z_]\w*)\s*\(', expr_m)):
                        pieces += self.with_call(sm, sc, dict(sub, last=True))
                    else:
                        code = self.index(self.rename(expr_m, expr_c, mapping))
                        pieces.append(('run', '%s[%s.t] = %s;' % (ret, LB, code)))
                    continue
                pieces += self.statement(sm, sc, dict(sub, last=last), f.open + 1 + a)
        finally:
            self.depth -= 1
        return ret, pieces

    def has_barrier(self, text_m):
        if BARRIER_WORD.search(text_m):
            return True
        return any(mt.group(1) in self.funcs for mt in re.finditer(r'\b([A-Za-z_]\w*)\s*\(', text_m))

    def is_barrier(self, sm, ctx):
        s = re.sub(r'\s', '', sm)
        named = ctx['map']
        if s == '__syncthreads();':
            return True
        mt = re.match(r'^(?:::)?(?:[A-Za-z_]\w*::)*sync\(([A-Za-z_]\w*)\);$', s)
        if mt:
            if named.get(mt.group(1), mt.group(1)) not in self.block_names:
                raise Deny('sync of %s, not the block' % mt.group(1))
            return True
        mt = re.match(r'^([A-Za-z_]\w*)\.sync\(\);$', s)
        if mt:
            if named.get(mt.group(1), mt.group(1)) not in self.block_names:
                raise Deny('%s.sync(), not the block' % mt.group(1))
            return True
        if re.match(r'^(?:::)?(?:[A-Za-z_]\w*::)*this_thread_block\(\)\.sync\(\);$', s):
            return True
        if BARRIER_WORD.search(sm) and not any(mt.group(1) in self.funcs
                                               for mt in re.finditer(r'\b([A-Za-z_]\w*)\s*\(', sm)):
            raise Deny('a barrier inside an expression: %s' % one_line(sm)[:60])
        return False

    # ---- the whole kernel
    def write(self):
        k = self.kernel
        params = param_list(k.params)
        self.param_types = {nm: t for t, nm in params}
        body_m, body_c = k.mbody(), k.body()
        for typ, nm in params:
            if is_block_type(typ):
                raise Deny('a thread_block parameter')
        # the kernel's parameters are the same for every thread, unless the body changes one
        assigned = {nm for _, nm in params if written(nm, body_m, elements=False)}
        locals_ = local_names(body_m)
        check_scopes(body_m, locals_, {nm for _, nm in params}, 'the kernel')
        if (locals_ | assigned) & self.macro_names:
            raise Deny('a macro names %s, a local of the kernel' % sorted((locals_ | assigned) & self.macro_names)[0])
        mapping = {nm: nm + '__k' for nm in locals_ | assigned}
        self.own_names |= set(mapping.values())
        # a __shared__ array is the kernel's name too (a callee's global of that name would be
        # hidden once inlined)
        shared_names_k = set()
        for mt in re.finditer(r'\b__shared__\b[^;]*?([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*(?:=[^;]*)?;', body_m):
            shared_names_k.add(mt.group(1))
        # renamed in the whole body, a local (or a __shared__ array, declared for the whole loops
        # version) would take the place of a global of its name said where the local's scope has
        # ended
        if (locals_ | shared_names_k) & self.globals:
            raise Deny('%s, a local of the kernel, is also a global\'s name' % sorted((locals_ | shared_names_k) & self.globals)[0])
        # and its template's parameters (`template <int W>`: a callee's global W would be hidden)
        tparams = set()
        if k.template:
            tparams = {mt.group(1) for mt in re.finditer(r'([A-Za-z_]\w*)\s*(?:=[^,>]*)?(?:,|>\s*$)',
                                                          k.template[k.template.index('<') + 1:])}
        self.kernel_names = {nm for _, nm in params} | locals_ | shared_names_k | tparams
        # __shared__ declarations first (statics of the block)
        shared = []
        for mt in re.finditer(r'\b__shared__\b', body_m):
            ds = max(body_m.rfind(';', 0, mt.start()), body_m.rfind('{', 0, mt.start()),
                     body_m.rfind('}', 0, mt.start())) + 1
            de = body_m.find(';', mt.start())
            shared.append((ds, de + 1))
        for ds, de in shared:
            self.shared_decls.append(one_line(self.rename(body_m[ds:de], body_c[ds:de], mapping)))
        for ds, de in shared[::-1]:
            body_m = body_m[:ds] + ' ' * (de - ds) + body_m[de:]
            body_c = body_c[:ds] + ' ' * (de - ds) + body_c[de:]
        for typ, nm in params:
            if nm in assigned:
                self.hoist(typ, nm + '__k')
        ctx = dict(map=mapping, level=True, kernel=True, ret=None)
        pieces = []
        pieces += [('run', '%s__k[%s.t] = %s;' % (nm, LB, nm)) for _, nm in params if nm in assigned]
        pieces += self.block(body_m, body_c, ctx, k.open + 1)
        shared_names = set()
        for d in self.shared_decls:
            mt = re.search(r'([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)+;\s*$', d)
            if mt and 'extern' not in d:
                shared_names.add(mt.group(1))
        if not any('exit_thread' in text for _, text in pieces):  # a statement run once would run
            pieces = self.uniformize(pieces, {nm for _, nm in params if nm not in assigned} | shared_names)
        # the loops: consecutive runs merge into one loop over the threads
        out, run = [], []
        known_lean = self.own_names | {nm for _, nm in params} | shared_names | self.const_macros | {LB}

        def flush():
            if run:
                self.n_label += 1
                label = '__scanlab_next_%d' % self.n_label
                code = ' '.join(run).replace('__SCANLAB_NEXT__', label)
                if self.lean(code, known_lean):
                    # nothing in it asks which thread runs (no threadIdx, no call): the thread's
                    # records are not set at each step
                    out.append('%s.untracked(); for (%s.t = 0; %s.t < %s.b.n; %s.t++) { if (%s.skip()) continue; '
                               '{ %s } %s: __attribute__((unused)); }' % (LB, LB, LB, LB, LB, LB, code, label))
                else:
                    out.append('for (%s.begin(); %s.more(); %s.next()) { { %s } %s: __attribute__((unused)); }'
                               % (LB, LB, LB, code, label))
                run.clear()
        for kind, text in pieces:
            if kind == 'run':
                if text.strip():
                    run.append(text)
            else:
                flush()
                out.append(text)
        flush()
        self.localize(out)
        # each condition: tested once where it has one value for all threads (and none may have
        # returned: a block whose threads all returned leaves its loops), else for each
        returns = any('exit_thread' in text for text in out)
        known = {nm for _, nm in params if nm not in assigned} | shared_names | self.uniform
        per_thread = set()
        for i, text in enumerate(out):
            for mt in reversed(list(re.finditer(r'__SCANLAB_COND_(\d+)__', text))):
                code, line = self.conds[int(mt.group(1))]
                code = re.sub(r'(\w+)\[%s\.t\]' % LB,
                              lambda mm: mm.group(1) if mm.group(1) in self.uniform else mm.group(0), code)
                if self.uniform_expr(code, known) and not returns:
                    rep = '(%s)' % code
                else:
                    rep = '%s.uniform([&]() -> bool { return (%s); }, __FILE__, %d)' % (LB, code, line)
                    per_thread.add(int(mt.group(1)))
                text = text[:mt.start()] + rep + text[mt.end():]
            out[i] = text
        # the barriers under a condition tested for each thread: where threads that exited leave
        # the others to meet one on fibers, the loops would fail (the threads disagree there)
        self.cond_lines = sorted({line for line, around in self.barrier_conds if per_thread & set(around)})
        decls = ['::scanlab_emu::LoopsBlock %s;' % LB] + self.shared_decls + self.uniform_decls
        decls += ['::scanlab_emu::PerThread<%s> %s(%s);' % (t, nm, LB) for t, nm in self.hoisted if '@' not in nm]
        decls += ['::scanlab_emu::Uniform<%s> %s;' % (t, nm[:-len('@uniform')]) for t, nm in self.hoisted if '@' in nm]
        # the parameters const: a change of one the rewrite missed (through a member, a macro, a
        # method) does not compile, and the file builds without its loops versions
        consts = ', '.join('%s const %s' % (t, nm) for t, nm in params)
        head = '%s __attribute__((no_sanitize_thread)) static void %s%s(%s)' % (k.template, PREFIX, k.name, consts)
        body = ' '.join(decls + out)
        # threadIdx: the runtime's copy, which each step of a loop sets (in a file with loops
        # versions the global is read again after each call too: scanlab_emu_device.h)
        body = outside_literals(body, lambda t: re.sub(r'(?<![\w.>:])(?:::\s*)?threadIdx\b',
                                                         '::scanlab_emu::tls.thread_idx', t))
        return one_line(head + ' { ' + body + ' }'), params


    # ---- names the block's threads all hold one value of
    def uniform_expr(self, code, known):
        """Whether an expression has one value for all the block's threads: it names only the
        kernel's unchanged parameters, __shared__ arrays, blockIdx, blockDim, gridDim, constants
        (upper-case macros, literals) and names of `known`; it loads nothing (no [ ], ->, *p),
        calls nothing but min and max (no member either), and says no parameter of class type."""
        m = mask_expr(code)
        if '[' in m or '->' in m or re.search(r'(?:^|[=(,?:!~&|+\-*/%<>^]\s*)\*', m):
            return False
        for nm in self.plain_names(m, ('min', 'max', 'sizeof')):
            if nm is None:
                return False
            if nm in known or nm in UNIFORM_WORDS or nm in self.const_macros or re.match(r'^[0-9]', nm):
                continue
            return False
        return True

    def plain_names(self, m, callable_words):
        """The names masked code m says, but members (after `.` or `->`); None for what asks the
        running thread something the name does not show: a call (a member's too: it may read
        threadIdx) but of callable_words, a parameter of class type (its operators are calls)."""
        for mt in re.finditer(r'[A-Za-z_]\w*', m):
            nm = mt.group(0)
            k = mt.start() - 1
            while k >= 0 and m[k] == ' ':
                k -= 1
            if m[mt.end():].lstrip()[:1] == '(' and nm not in callable_words:
                yield None
            elif k >= 0 and (m[k] == '.' or m[k - 1:k + 1] == '->'):
                continue
            elif nm in self.param_types and not simple_type(self.param_types[nm]):
                yield None
            else:
                yield nm

    def uniformize(self, pieces, known):
        """Each array whose every assignment is a statement of its own with a value the same for
        all threads, placed where it can run once for the block (before or after its loop over
        the threads, no statement of the loop seeing it change), becomes one value: the loop's
        statement runs once, outside the loop."""
        slot = r'%s\[%s\.t\]' % ('%s', LB)
        assign = re.compile(r'^(\w+)\[%s\.t\] ((?:[-+*/%%&|^]|<<|>>)?=) (.*);$' % LB, re.S)
        hoisted = {nm for _, nm in self.hoisted}
        # each run: the indices of its pieces
        runs, cur = [], []
        for i, (kind, text) in enumerate(pieces):
            if kind == 'run':
                cur.append(i)
            elif cur:
                runs.append(cur)
                cur = []
        if cur:
            runs.append(cur)
        cand = {}  # name -> [piece index]
        for i, (kind, text) in enumerate(pieces):
            mt = assign.match(text.strip()) if kind == 'run' else None
            if mt and mt.group(1) in hoisted:
                cand.setdefault(mt.group(1), []).append(i)
        cand_at = {j for v in cand.values() for j in v}
        for nm in list(cand):
            for i, (kind, text) in enumerate(pieces):
                # a candidate's own statement may change others in its value (`z = y = t`)
                said = assign.match(text.strip()).group(3) if i in cand_at else text
                if written(nm, mask_expr(said)):
                    cand.pop(nm)
                    break
        uni = set(cand)
        place = {}
        while True:
            changed = False
            for nm in sorted(uni):
                for i in cand[nm]:
                    rhs = assign.match(pieces[i][1].strip()).group(3)
                    rhs = re.sub(slot % r'(\w+)', lambda mm: mm.group(1) if mm.group(1) in uni else mm.group(0), rhs)
                    if not self.uniform_expr(rhs, known | uni):
                        uni.discard(nm)
                        changed = True
                        break
            if changed:
                continue
            # where each moves: before or after its run, its run's other statements not seeing it
            place = {}
            for run in runs:
                moved = [i for i in run if any(i in cand[nm] for nm in uni)]
                for i in moved:
                    nm = assign.match(pieces[i][1].strip()).group(1)
                    rhs_names = set(re.findall(r'\w+', assign.match(pieces[i][1].strip()).group(3)))
                    word = re.compile(r'(?<![\w.])%s\b' % re.escape(nm))
                    before = [j for j in run if j < i and place.get(j) != 'before']
                    after = [j for j in run if j > i]
                    def touches(js):
                        """A statement of js names the variable or sets one its value reads."""
                        for j in js:
                            if MARK.fullmatch(pieces[j][1].strip()):
                                continue  # a declaration's mark
                            other = assign.match(pieces[j][1].strip())
                            if word.search(pieces[j][1]) or (other and other.group(1) in rhs_names):
                                return True
                        return False
                    if not touches(before):
                        place[i] = 'before'
                    elif not touches(after):
                        place[i] = 'after'
                    else:
                        uni.discard(nm)
                        changed = True
                        break
                if changed:
                    break
            if not changed:
                break
        self.uniform = uni
        if not uni:
            return pieces

        def scalar(text):
            return re.sub(slot % r'(\w+)', lambda mm: mm.group(1) if mm.group(1) in uni else mm.group(0), text)

        def once(text):
            """A moved statement: its variable set through Uniform::set, the only way to change one
            (any other write the rewrite missed does not compile, and the file builds without
            its loops versions)."""
            mt = assign.match(text.strip())
            nm, op, rhs = mt.group(1), mt.group(2), scalar(mt.group(3))
            if op == '=':
                return '%s.set(%s);' % (nm, rhs)
            return '%s.set(%s %s (%s));' % (nm, nm, op[:-1], rhs)
        out = []
        for run_or_text in self.group(pieces, runs):
            if isinstance(run_or_text, list):
                run = run_or_text
                out += [('text', once(pieces[i][1])) for i in run if place.get(i) == 'before']
                out += [('run', scalar(pieces[i][1])) for i in run if i not in place]
                out += [('text', once(pieces[i][1])) for i in run if place.get(i) == 'after']
            else:
                out.append(('text', scalar(pieces[run_or_text][1])))
        self.hoisted = [(t, nm) for t, nm in self.hoisted if nm not in uni] + \
            [(t, nm + '@uniform') for t, nm in self.hoisted if nm in uni]
        return out

    @staticmethod
    def group(pieces, runs):
        """The pieces in order: each run as its list of indices, each other piece its index."""
        start = {r[0]: r for r in runs}
        i = 0
        while i < len(pieces):
            if i in start:
                yield start[i]
                i = start[i][-1] + 1
            else:
                yield i
                i += 1

    def lean(self, code, known):
        """Whether a loop's code asks nothing of the running thread's records: it names only the
        rewrite's own names, the kernel's parameters, __shared__ arrays, constant macros, block
        built-ins and C's words (no threadIdx, no call, no other macro or global, no return)."""
        types = dict((nm.split('@')[0], t) for t, nm in self.hoisted)
        m = mask_expr(code)
        if re.search(r'\breturn\b|\bgoto\b|__SCANLAB_NEXT__', m):
            return False
        for nm in self.plain_names(m, CAST_WORDS):
            if nm is None:
                return False
            if nm not in known and nm not in CAST_WORDS and nm not in UNIFORM_WORDS - {'min', 'max'} and \
                    not re.match(r'^[0-9]', nm):
                return False
            if nm in types and not simple_type(types[nm]):
                return False  # a class: its operators are calls
        return True

    def localize(self, out):
        """A local declared in a loop over the threads and used in no other stays a local of that
        loop's body, not an array (its accesses stay in registers)."""
        types = dict((nm, t) for t, nm in self.hoisted)
        for i, text in enumerate(out):
            for name in re.findall(r'/\*@decl (\w+)\*/', text):
                if name not in types:
                    continue  # one value for the block (uniformize)
                word = re.compile(r'(?<![\w.])%s\b' % re.escape(name))
                if any(word.search(other) for j, other in enumerate(out) if j != i) or \
                        any(word.search(code) for code, _ in self.conds) or not simple_type(types[name]) or \
                        escapes(name, text):
                    continue  # its address may outlive the loop
                text = re.sub(r'(?<![\w.])%s\[%s\.t\]' % (re.escape(name), LB), name, text)
                text = text.replace('/*@decl %s*/' % name, '::scanlab_emu::LoopsLocal<%s> %s;' % (types[name], name), 1)
                self.hoisted = [(t, nm) for t, nm in self.hoisted if nm != name]
            out[i] = re.sub(r'/\*@decl \w+\*/', '', text)


def mask_expr(text):
    """An expression's text with its literals blanked (same length): cu2cpp's mask."""
    return cu2cpp.mask(text)


def names_in(text_m, wanted):
    """The matches of the names of `wanted` in text_m (masked) that are not a member or a
    qualified name's part (after `.`, `->` or `::`)."""
    for mt in re.finditer(r'[A-Za-z_]\w*', text_m):
        if mt.group(0) not in wanted:
            continue
        before = text_m[:mt.start()].rstrip()
        if before.endswith(('.', '->', '::')):
            continue
        yield mt


def local_decls(body_m):
    """Each declarator of a declaration in the body: (name, position, in a for's first part).
    Over-approximated: renaming a name that was not a local is harmless."""
    out = []
    for mt in re.finditer(r'(?:^|[;{}(])', body_m):
        seg_start = mt.end()
        seg_end = body_m.find(';', seg_start)
        if seg_end < 0:
            break
        seg = body_m[seg_start:seg_end]
        if '{' in seg or '}' in seg:
            continue
        d = DECL_TYPE.match(seg)
        if not d or word_at(d.group(1).strip(), 0) in NOT_DECL_START or word_at(d.group(1).strip(), 0) == 'else':
            continue
        in_for = mt.group(0) == '(' and re.search(r'\bfor\s*$', body_m[:mt.start()]) is not None
        rest = seg[d.end():]
        for a, b in split_at(rest, ','):
            dm = DECLARATOR.match(rest[a:b])
            if dm:
                out.append((dm.group(2), seg_start + d.end() + a + dm.start(2), in_for))
    return out


def local_names(body_m):
    return {nm for nm, _, _ in local_decls(body_m)}


def uses(name, text):
    """The positions where text says `name` (not as a member)."""
    return [mt.start() for mt in names_in(text, {name})]


def check_scopes(body_m, locals_, params, where):
    """Renaming a function's locals for the call or the kernel holds only where each name means
    one variable: none shadows a parameter, none is said before it is declared (it meant
    another then), none is declared twice but as loops' own counters."""
    decls = local_decls(body_m)
    for nm in sorted(locals_):
        if nm in params:
            raise Deny('%s declares %s, also a parameter' % (where, nm))
        mine = [(pos, in_for) for n, pos, in_for in decls if n == nm]
        if len(mine) > 1 and not all(in_for for _, in_for in mine):
            raise Deny('%s declares %s twice' % (where, nm))
        first = min(pos for pos, _ in mine)
        if any(u < first for u in uses(nm, body_m)):
            raise Deny('%s says %s before declaring it' % (where, nm))


def written(name, text, elements=True):
    """Whether text may change `name` (or a member, or with `elements` an element, of it): an
    assignment, an increment, its address taken, or the name passed whole to a call (a
    reference parameter). A kernel's pointer parameter (elements False) is not changed by a store
    to what it points at (`out[i] = v`)."""
    while True:  # `(x)` is x: `f((x))` passes it whole, `(x) = 1` assigns it
        t = re.sub(r'\(\s*(%s)\s*\)' % re.escape(name), r' \1 ', text)
        if t == text:
            break
        text = t
    for pos in uses(name, text):
        after = text[pos + len(name):]
        chain = re.match(r'(?:\s*(?:\.\s*\w+|\[[^\]]*\]))*', after)
        rest = after[chain.end():]
        own = chain.group(0).lstrip()
        if not elements and own.startswith('['):
            continue  # a store through the pointer, not to it
        if re.match(r'\s*\)*\s*(?:(?:[-+*/%&|^]|<<|>>)?=(?!=)|\+\+|--)', rest):
            return True
        before = text[:pos].rstrip()
        if before.endswith(('++', '--')) or (before.endswith('&') and not before.endswith('&&')):
            return True
        if before.endswith(('(', ',')) and re.match(r'\s*[),]', rest):
            call = before[:-1].rstrip() if before.endswith('(') else ''
            if before.endswith(',') or re.search(r'[A-Za-z_]\w*\s*(?:<[^;]*>)?$', call):
                return True
    return False


SIMPLE_TYPE = re.compile(r'^(?:(?:const|volatile|unsigned|signed|long|short|int|char|float|double|bool|size_t|uint|'
                         r'u?int(?:8|16|32|64)_t|(?:u?(?:char|short|int|long|longlong)|float|double)[1-4])\s*)+$')


def simple_type(t):
    """A number, a pointer, or one of CUDA's vector types (no member array, no operator)."""
    t = t.strip()
    return t.endswith('*') or SIMPLE_TYPE.match(t) is not None


def operand_after(text, k):
    """The operand of a unary operator at text[k - 1]: to the end of its expression (a `;`, a `,`
    or a `)` at its own depth)."""
    depth, e = 0, k
    while e < len(text):
        ch = text[e]
        if ch in '([{':
            depth += 1
        elif ch in ')]}':
            if depth == 0:
                break
            depth -= 1
        elif ch in ';,' and depth == 0:
            break
        e += 1
    return text[k:e]


def escapes(name, text):
    """Whether text may keep the address of `name` (name[LB.t] in the loops' text): a unary `&`
    whose operand says it (`&x`, `&(c ? x : y)`, `&++x`), or passed whole to a call (a reference
    or pointer parameter)."""
    for mt in re.finditer(r'&', text):
        k = mt.start()
        if text[k + 1:k + 2] == '&' or text[k - 1:k] == '&':
            continue  # &&
        before = text[:k].rstrip()
        if before and (before[-1].isalnum() or before[-1] in '_)]'):
            continue  # a binary and
        if names_in(operand_after(text, k + 1), {name}):
            return True
    for pos in uses(name, text):
        before = text[:pos].rstrip()
        while before.endswith('('):
            before = before[:-1].rstrip()
            if re.search(r'[A-Za-z_]\w*$', before):
                return True  # an argument of a call
        if before.endswith('&') and not before.endswith('&&'):
            return True
        if before.endswith(','):
            return True
    return False


def outside_literals(text, fn):
    """text with fn applied to each stretch outside its string and character literals."""
    out, last, i, n = [], 0, 0, len(text)
    while i < n:
        if text[i] in '"\'':
            q = text[i]
            j = i + 1
            while j < n and text[j] != q:
                j += 2 if text[j] == '\\' else 1
            out.append(fn(text[last:i]))
            out.append(text[i:j + 1])
            last = i = j + 1
        else:
            i += 1
    out.append(fn(text[last:]))
    return ''.join(out)


INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.M)


def user_headers(src_path, src, dirs, forced=(), limit=200):
    """The texts of the headers src includes, and those they include, that are the program's own:
    found beside the file that includes them (a quoted name) or in the program's -I and -isystem
    folders (dirs), not the system's or the toolkit's; and of the files forced in before it
    (-include), with theirs."""
    texts, seen = [], set()
    todo = [(os.path.dirname(os.path.abspath(src_path)), src)]
    for path in forced:
        try:
            with open(path, encoding='utf-8', errors='replace') as fh:
                t = fh.read()
        except OSError:
            continue
        seen.add(os.path.realpath(path))
        texts.append(t)
        todo.append((os.path.dirname(os.path.abspath(path)), t))
    while todo and len(texts) < limit:
        here, text = todo.pop()
        for mt in INCLUDE.finditer(text):
            for d in ([here] if mt.group(1) == '"' else []) + list(dirs):
                path = os.path.realpath(os.path.join(d, mt.group(2)))
                if os.path.isfile(path):
                    if path not in seen:
                        seen.add(path)
                        try:
                            with open(path, encoding='utf-8', errors='replace') as fh:
                                t = fh.read()
                        except OSError:
                            break
                        texts.append(t)
                        todo.append((os.path.dirname(path), t))
                    break
    return texts


# what the loops version runs only through its own code: a barrier, a warp's or a group's
# collective (a function that holds one, called where the rewrite does not inline it, reaches
# the runtime's, which a block run as loops cannot take)
COLLECTIVE = re.compile(r'\b(?:__syncthreads\w*|__syncwarp|__shfl\w*|__ballot\w*|__any\w*|__all\w*|__activemask|'
                        r'__match\w*|__reduce_\w+|this_grid|grid_group|thread_block_tile|tiled_partition|'
                        r'coalesced_threads|labeled_partition|binary_partition|sync)\b')
# what names the line or the function it is written in: the loops version is one line, in
# another function
WHERE_WORDS = re.compile(r'\b(?:assert|__LINE__|__func__|__FUNCTION__|__PRETTY_FUNCTION__|__builtin_LINE|'
                         r'__builtin_FUNCTION|source_location|__trap|__brkpt)\b')
BODY_HEAD = re.compile(r'\b([A-Za-z_]\w*)\s*(?:<[^;{}()]*>\s*)?\(')


def function_bodies(m):
    """(name, body) of each function defined in masked text m, at any depth (members too)."""
    bodies = []
    for mt in BODY_HEAD.finditer(m):
        if mt.group(1) in KEYWORDS or mt.group(1) in NOT_DECL_START:
            continue
        close = match_forward(m, m.index('(', mt.start()), '(', ')')
        if close < 0:
            continue
        k = skip_ws(m, close + 1)
        while word_at(m, k) in ('const', 'noexcept', 'override', 'final', 'volatile'):
            k = skip_ws(m, k + len(word_at(m, k)))
        if k < len(m) and m[k] == '{':
            end = match_forward(m, k, '{', '}')
            if end > 0:
                bodies.append((mt.group(1), m[k:end]))
    return bodies


def holders(m):
    """The names of the functions and classes defined in masked text m (at any depth: members too)
    whose bodies hold a barrier or a collective, or call one that does."""
    bodies = function_bodies(m)
    for mt in re.finditer(r'\b(?:struct|class|union)\s+([A-Za-z_]\w*)[^;{}()]*\{', m):
        end = match_forward(m, mt.end() - 1, '{', '}')
        if end > 0:
            bodies.append((mt.group(1), m[mt.end() - 1:end]))
    held = {nm for nm, b in bodies if COLLECTIVE.search(b)}
    for _ in range(8):  # and those that call them
        more = {nm for nm, b in bodies if nm not in held and set(re.findall(r'[A-Za-z_]\w*', b)) & held}
        if not more:
            break
        held |= more
    return held


def file_scope_names(m):
    """The names masked text m says at namespace scope: its globals, functions, types and
    enumerators (function and class bodies, and what stands in parentheses, left out)."""
    kinds = cu2cpp.scope_kinds(m)
    tops, classes = cu2cpp.top_bodies(m, kinds)
    out = list(m)
    for a, b, _ in tops:
        out[a:b + 1] = ' ' * (b + 1 - a)
    for a, b in classes:
        out[a:b + 1] = ' ' * (b + 1 - a)
    text = ''.join(out)
    while True:  # innermost parentheses first: parameter lists, initialisers' arguments
        t = re.sub(r'\([^()]*\)', ' ', text)
        if t == text:
            break
        text = t
    return set(re.findall(r'[A-Za-z_]\w*', text)) - KEYWORDS


def unknown_device_variables(m, defines):
    """The names of variables of device code in masked text m that the runtime is not told of
    (cu2cpp.py's device_static: a variable template, a pointer to const, one a macro declares),
    so that a trial (sched.cpp) cannot put them back: defines, the #define lines that m's macros
    come from."""
    names = set()
    for mt in re.finditer(r'\b(?:__device__|__managed__)\b', m):
        ds = max(m.rfind(';', 0, mt.start()), m.rfind('{', 0, mt.start()), m.rfind('}', 0, mt.start())) + 1
        de = cu2cpp.decl_end(m, mt.start())
        if de < 0:
            continue
        decl = m[ds:de]
        if re.search(r'\b(?:__constant__|__shared__|extern)\b', decl) or \
                not re.search(r'\b(?:const|template)\b', decl):
            continue
        body = re.sub(r'\btemplate\s*<[^;{}]*?>', ' ', decl)
        body = re.sub(r'\b(static|__device__|__managed__|volatile|inline|const)\b', ' ', body)
        names |= set(cu2cpp.declared_names(body))
    # a macro whose body declares a variable of device code: what its uses at namespace scope name
    makers = set()
    for d in defines:
        im = re.match(r'^[ \t]*#[ \t]*define[ \t]+(\w+)\(', d)
        if im and re.search(r'\b(?:__device__|__managed__)\b', d[im.end():]):
            makers.add(im.group(1))
    for nm in makers:
        for mt in re.finditer(r'(?:^|[;}])\s*%s\s*\(([^;{}]*)\)' % re.escape(nm), m):
            names |= set(re.findall(r'[A-Za-z_]\w*', mt.group(1)))
    return names


def said_by(body):
    """The names a macro's body says, outside its string and character literals."""
    return set(re.findall(r'[A-Za-z_]\w*', re.sub(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', '""', body)))


# what makes a string of a macro's argument (#x, not ##): the rewrite's names would show in it
STRINGIZE = re.compile(r'(?<!#)#(?!#)\s*[A-Za-z_]')
# what gives a function's caller's line or name where it is called (a default argument)
LOCATION_DEFAULTS = re.compile(r'\b(?:__builtin_LINE|__builtin_FUNCTION|__builtin_FILE|__builtin_COLUMN|'
                               r'source_location)\b')


def only_called(name, text_m):
    """Whether each mention of name in masked text_m is a plain call name(...) (not a member's,
    an address, a pointer's value)."""
    for mt in re.finditer(r'(?<![\w.])%s\b' % re.escape(name), text_m):
        before = text_m[:mt.start()].rstrip()
        if before.endswith(('->', '::', '&')) or not re.match(r'\s*(?:<[^;{}()]*>\s*)?\(', text_m[mt.end():]):
            return False
    return True


def add_loops(src, headers=()):
    """src with a loops version of each kernel (that can have one) written on
    its first line, and the kernel's entry calling it; returns (text, [(kernel, why not)])."""
    c = strip_comments(src)
    m = cu2cpp.mask(src)
    kinds = cu2cpp.scope_kinds(m)
    tops, classes = cu2cpp.top_bodies(m, kinds)
    define = re.compile(r'^[ \t]*#[ \t]*define\b[^\n]*(?:\\\n[^\n]*)*', re.M)
    macros = [mt.group(0) for mt in define.finditer(src)]
    macros_bad = any(BARRIER_WORD.search(d) or DENY.search(d) for d in macros)
    # the program's own headers: their macros, by name (a kernel that says one is checked as if
    # its body were the file's), and the functions and classes in them that hold a barrier or a
    # collective
    header_macros = {}
    held = holders(m)
    header_masks = [cu2cpp.mask(h) for h in headers]
    for h, hm in zip(headers, header_masks):
        for mt in define.finditer(h):
            im = re.match(r'^[ \t]*#[ \t]*define[ \t]+(\w+)', mt.group(0))
            if im:
                header_macros[im.group(1)] = re.sub(r'^[ \t]*#[ \t]*define[ \t]+\w+(?:\([^)]*\))?', '', mt.group(0))
        held |= holders(hm)
    globals_ = file_scope_names(m)
    for hm in header_masks:
        globals_ |= file_scope_names(hm)
    header_defines = [mt.group(0) for h in headers for mt in define.finditer(h)]
    unknown = set()
    for t in [m] + header_masks:
        unknown |= unknown_device_variables(t, macros + header_defines)
    # a class with a mutable member changes through a const method: a parameter of class type,
    # const in the loops version and one for all threads, would be changed by each of them
    mutable = any(re.search(r'\bmutable\b', t) for t in [m] + header_masks)
    # the functions with a default argument that gives the caller's line or name: called from
    # the loops version, they would give its
    located = set()
    for t in [m] + header_masks:
        for mt in BODY_HEAD.finditer(t):
            close = match_forward(t, t.index('(', mt.start()), '(', ')')
            if close > 0 and LOCATION_DEFAULTS.search(t, mt.end(), close):
                located.add(mt.group(1))
    # the names the macros' bodies say: a local of that name cannot be renamed (the macro would
    # name another variable, or none)
    macro_names, const_macros, index_macros = set(), set(), set()
    for d in macros:
        im = re.match(r'^[ \t]*#[ \t]*define[ \t]+(\w+)', d)
        if im and THREAD_INDEX.search(d[im.end():]):
            index_macros.add(im.group(1))  # the compiler may read threadIdx once for a loop
        cm = re.match(r'^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+([\w\s()+\-*/<>|&^~]+)$', d)
        if cm and all(tok[0].isdigit() for tok in re.findall(r'\w+', cm.group(2))):
            const_macros.add(cm.group(1))  # a number (THREADS 256)
        body = re.sub(r'^[ \t]*#[ \t]*define[ \t]+\w+(?:\([^)]*\))?', '', d)
        macro_names |= said_by(body)
    for _ in range(8):  # and the macros that say those
        for d in macros:
            im = re.match(r'^[ \t]*#[ \t]*define[ \t]+(\w+)', d)
            if im and set(re.findall(r'\w+', d[im.end():])) & index_macros:
                index_macros.add(im.group(1))
    funcs = []
    for start, close, device in tops:
        if not device or any(a < start < b for a, b in classes):
            continue
        hs = max(m.rfind(';', 0, start), m.rfind('}', 0, start), m.rfind('{', 0, start)) + 1
        f = Func(m, c, hs, start, close)
        if f.ok:
            funcs.append(f)
    # the file's classes that make themselves (a member's initialiser, a constructor): a local of
    # one, kept per thread, would be made once for the block where the kernel makes it at each
    # declaration
    making = set()
    for a, b in classes:
        # the last `struct N` or `class N` before the body (`template <class T> struct N {` is N's)
        before = m[max(0, a - 300):a]
        heads = [h for h in re.finditer(r'\b(?:struct|class)\s+([A-Za-z_]\w*)', before)
                 if not re.search(r'[;{}]', before[h.end():])]
        head = heads[-1] if heads else None
        if head and (re.search(r'=|\{', m[a + 1:b]) or re.search(r'\b%s\s*\(' % head.group(1), m[a + 1:b])):
            making.add(head.group(1))
    by_name = {}
    for f in funcs:
        by_name.setdefault(f.name, []).append(f)
    # device functions declared and not defined here may hold a barrier elsewhere
    declared_only = set()
    header_defined = {nm for hm in header_masks for nm, _ in function_bodies(hm)}
    for t in [m] + header_masks:
        for mt in re.finditer(r'\b__device__\b[^;{}]*?\b([A-Za-z_]\w*)\s*\([^;{}]*\)\s*;', t):
            if mt.group(1) not in by_name and mt.group(1) not in header_defined:
                declared_only.add(mt.group(1))

    def calls(f):
        return {mt.group(1) for mt in re.finditer(r'\b([A-Za-z_]\w*)\s*(?:<[^;(){}]*>)?\s*\(', f.mbody())
                if mt.group(1) not in KEYWORDS}
    barrier = {f.name for f in funcs if BARRIER_WORD.search(f.mbody())}
    changed = True
    while changed:
        changed = False
        for f in funcs:
            if f.name not in barrier and calls(f) & barrier:
                barrier.add(f.name)
                changed = True
    edits, notes = [], []
    for k in funcs:
        if not k.kernel:
            continue
        try:
            if macros_bad:
                raise Deny('a macro of the file holds a barrier or a warp collective')
            if any(ln.lstrip().startswith('#') for ln in src[k.open:k.close].split('\n')):
                raise Deny('a preprocessor line in its body')
            seen, todo, inl = set(), [k.name], {}
            while todo:
                nm = todo.pop()
                if nm in seen:
                    continue
                seen.add(nm)
                if nm in declared_only:
                    raise Deny('%s is declared here and defined elsewhere' % nm)
                for f in by_name.get(nm, []):
                    said = set(re.findall(r'[A-Za-z_]\w*', f.mbody()))
                    if said & index_macros:
                        raise Deny('%s reads threadIdx through the macro %s' % (f.name, sorted(said & index_macros)[0]))
                    if DENY.search(f.mbody()):
                        raise Deny('%s uses %s' % (f.name, DENY.search(f.mbody()).group(0)))
                    if TWICE.search(f.mbody()):
                        raise Deny('%s uses %s (a trial runs a launch twice)' % (f.name, TWICE.search(f.mbody()).group(0)))
                    if re.search(r'\[[^\[\]]*\]\s*(?:\(|\{|mutable\b)', re.sub(r'[\w)\]]\s*\[', 'x(', f.mbody())):
                        raise Deny('a lambda in %s' % f.name)
                    if re.search(r'\bstatic\b(?![^;]*\b__shared__\b)', f.mbody()):
                        raise Deny('a static local in %s' % f.name)
                    if f is not k and nm not in barrier and THREAD_INDEX.search(f.mbody()):
                        raise Deny('%s, called between barriers, reads the thread index' % nm)
                    if re.search(r'\b(?:thread_rank|thread_index|dim_threads)\b', f.mbody()):
                        raise Deny('%s asks a group for the thread index' % nm)
                    if f is not k and nm in barrier:
                        if len(by_name[nm]) > 1 or f.template:
                            raise Deny('%s is overloaded or a template' % nm)
                        if re.search(r'\b__shared__\b', f.mbody()):
                            raise Deny('%s declares __shared__ memory' % nm)
                        if nm in calls(f):
                            raise Deny('%s is recursive' % nm)
                        inl[nm] = f
                    todo.extend(calls(f))
            reached = [k] + [f for nm in seen for f in by_name.get(nm, []) if f is not k]
            said = set()
            for f in reached:
                said |= set(re.findall(r'[A-Za-z_]\w*', f.mbody()))
            # a function or class that holds a barrier or a collective: inlined where the kernel
            # calls it by name, or the kernel stays on fibers (through a pointer, a member or a
            # header the loops would reach the runtime's own barrier, and fail the launch)
            for nm in sorted(said & held):
                if nm not in inl:
                    raise Deny('%s holds a barrier or a collective the loops version cannot inline' % nm)
                if not all(only_called(nm, f.mbody()) for f in reached):
                    raise Deny('%s, which holds a barrier, is named other than by a call' % nm)
            # the macros it says (the file's and its headers', and those theirs say)
            file_macros = {}
            for d in macros:
                im = re.match(r'^[ \t]*#[ \t]*define[ \t]+(\w+)', d)
                if im:
                    file_macros[im.group(1)] = re.sub(r'^[ \t]*#[ \t]*define[ \t]+\w+(?:\([^)]*\))?', '', d)
            used, todo_m = set(), sorted(said & (set(header_macros) | set(file_macros)))
            while todo_m:
                nm = todo_m.pop()
                if nm not in used:
                    used.add(nm)
                    body = header_macros.get(nm, '') + ' ' + file_macros.get(nm, '')
                    todo_m.extend(set(re.findall(r'[A-Za-z_]\w*', body)) & (set(header_macros) | set(file_macros)))
            for nm in sorted(used & set(header_macros)):
                if BARRIER_WORD.search(header_macros[nm]) or DENY.search(header_macros[nm]):
                    raise Deny('the macro %s holds a barrier or a warp collective' % nm)
            for nm in sorted(used):
                if STRINGIZE.search(header_macros.get(nm, '') + ' ' + file_macros.get(nm, '')):
                    raise Deny('the macro %s makes a string of its argument (the rewrite\'s names would show)' % nm)
            if said & located:
                raise Deny('%s takes its caller\'s line or name as a default argument' % sorted(said & located)[0])
            if said & unknown:
                raise Deny('%s, a variable of device code the runtime is not told of (a trial could not put it '
                           'back)' % sorted(said & unknown)[0])
            if mutable and any(not simple_type(t) for t, _ in param_list(k.params)):
                raise Deny('a parameter of class type, where a class has a mutable member')
            # a type or a name a kernel declares for itself would reach only the stretch it is
            # written in (the loops version's per-thread arrays, declared first, and the later
            # stretches would see the global one)
            for t in [k.mbody()] + [f.mbody() for f in inl.values()]:
                if re.search(r'\[\[|\b(?:alignas|__align__|__attribute__)\b', re.sub(r'\b__shared__\b[^;]*;', ' ', t)):
                    raise Deny('an attribute in the kernel (a declaration the rewrite would not read)')
                mt = re.search(r'\b(?:typedef|using|enum|namespace)\b|\b(?:struct|class|union)\s+(?:[A-Za-z_]\w*\s*)?[:{]', t)
                if mt:
                    raise Deny('a declaration of a type or a name in the kernel (%s)' % mt.group(0).split()[0])
            # the loops version is one line, in a function of another name: what names a line or
            # a function (assert's message) would name the wrong ones
            inlined_text = [k.mbody()] + [f.mbody() for f in inl.values()] + \
                [header_macros.get(nm, '') + file_macros.get(nm, '') for nm in used]
            for t in inlined_text:
                if WHERE_WORDS.search(t):
                    raise Deny('%s, which names the line or the function' % WHERE_WORDS.search(t).group(0))
            kernel_macro_names = set(macro_names)
            for nm in used & set(header_macros):
                kernel_macro_names |= said_by(header_macros[nm])
            blocks = [nm for typ, nm in param_list(k.params) if is_block_type(typ)]
            for mt in re.finditer(r'\b(?:cg|cooperative_groups)?\s*(?:::)?\s*thread_block\s+([A-Za-z_]\w*)', k.mbody()):
                blocks.append(mt.group(1))
            w = Writer(inl, k, blocks, src)
            w.macro_names = kernel_macro_names
            w.globals = globals_
            w.making = making
            w.const_macros = const_macros
            if k.template:
                tparams = split_top(k.template[k.template.index('<') + 1:-1])
                if any('...' in t for t in tparams):
                    raise Deny('a template parameter pack')
                targs = [re.search(r'([A-Za-z_]\w*)\s*$', t.split('=')[0].strip()).group(1) for t in tparams if t.strip()]
            else:
                targs = None
            text, params = w.write()
            call = '%s%s%s(%s)' % (PREFIX, k.name, '<%s>' % ', '.join(targs) if targs else '',
                                   ', '.join(nm for _, nm in params))
            edits.append((first_code(m, k.head_start), text + ' '))
            # the lines of the barriers the loops version holds: on fibers, a barrier elsewhere (a
            # macro's, another file's function's) keeps the kernel off the loops
            lines = sorted({src.count('\n', 0, f.open + mt.start()) + 1
                            for f in [k] + list(inl.values()) for mt in BARRIER_WORD.finditer(f.mbody())})
            # and, negative, those under a condition each thread tests (loops_entry)
            lines += [-ln for ln in w.cond_lines]
            edits.append((k.open + 1, ' { static const int %slines[] = {%s}; if (::scanlab_emu::loops_entry(__FILE__, '
                          '%slines, %d)) { %s; return; } }' % (PREFIX, ', '.join(map(str, lines or [0])), PREFIX,
                                                               len(lines), call)))
            notes.append((k.name, None))
        except Deny as e:
            notes.append((k.name, str(e)))
    out, last = [], 0
    for pos, text in sorted(edits, key=lambda e: e[0]):
        out.append(src[last:pos])
        out.append(text)
        last = pos
    out.append(src[last:])
    return ''.join(out), notes


def first_code(m, pos):
    """Where the code after pos begins: its first character that is not blank, a comment or a
    preprocessor line (m masked)."""
    while pos < len(m) and m[pos].isspace():
        pos += 1
    return pos


def with_loops(src_path, src):
    """src with its kernels' loops versions (cu2cpp.main's transform); with SCANLAB_EMU_LOOPS_WHY
    set, says which kernels have one, and why the others do not."""
    try:
        out, notes = add_loops(src, user_headers(src_path, src, INCLUDE_DIRS + SYSTEM_DIRS, FORCED))
    except Exception as e:  # a fault of this rewrite's: the file as it was, on fibers
        out, notes = src, [('(the file)', 'the loops rewrite failed: %r' % e)]
    if os.environ.get('SCANLAB_EMU_LOOPS_WHY'):
        for name, why in notes:
            sys.stderr.write('loops.py: %s: %s: %s\n' % (src_path, name, 'as loops' if why is None else
                                                          'on fibers (%s)' % why))
    return out


INCLUDE_DIRS = []  # the program's own -I folders (main), where its headers are read
SYSTEM_DIRS = []  # and its -isystem folders (emu-nvcc sets them)
FORCED = []  # the files its build forces in before each source (-include; emu-nvcc sets them)


def main(argv):
    INCLUDE_DIRS[:] = [a[2:] if a != '-I' else '' for a in argv[1:] if a.startswith('-I')]
    for k, a in enumerate(argv[1:-1]):
        if a == '-I':
            INCLUDE_DIRS.append(argv[k + 2])
    INCLUDE_DIRS[:] = [d for d in INCLUDE_DIRS if d]
    return cu2cpp.main(argv, transform=with_loops)


if __name__ == '__main__':
    sys.exit(main(sys.argv))
