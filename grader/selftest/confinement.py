"""Known-bad submissions aimed at the grader's confinement, one per attack, each graded and its
honest verdict checked:

  - what the compiler reads is not what a text check reads: #include spelt with a digraph, a
    trigraph, a line splice after #, a comment between # and include; #define and #undef of
    kit names spelt the same ways; asm and _Pragma built by pasting; a conditional, a string
    or a brace opened in one region and closed in the next;
  - what a lab's code may call: open64 reading another checkout, wordexp, timer_create, a raw
    system call through pasted inline assembly, or through machine code in .text (a section
    attribute) or on a stack a nested function made executable;
  - what the sandbox shows: sockets to the host's listeners (TCP on loopback, an abstract unix
    socket), SysV IPC that outlives the test (the sandbox itself is tried in isolation.py);
  - code that tells the emulator from a GPU: a region that is the solution under
    #ifdef SCANLAB_EMU and the skeleton otherwise, a host call hidden from nvcc's device check
    under #ifndef __CUDA_ARCH__, a test of a name only one backend defines as a macro.

Each case builds and grades one submission on the emu backend (cases_gpu: on cuda). The
attacks on the source and on what code may call are refused before anything runs, so each
grade builds nothing and runs one test.
"""
import json
import os
import shutil
import tempfile

import common as selftest  # noqa: E402  (grader/selftest/common.py)
import bad_submissions as bad  # noqa: E402

ROOT = selftest.ROOT
CheckFailed = selftest.CheckFailed
LAB01 = bad.LAB01_FILE
INC_BODY = bad.INC_BODY
REFUSED = r"(?s)does not build: student code does what this lab does not allow.*"
SECRET = "SCANLAB-SECRET-7d41c9"


class Secret:
    """A world-readable file outside the kit, as another student's checkout would be: next to
    the kit when its folder is writable, else in /var/tmp. Never in /tmp: every sandbox has a
    /tmp of its own, so a secret there is hidden with or without a root of its own, and a case
    reading it would pass whatever the sandbox shows."""

    def __enter__(self):
        parent = os.path.dirname(ROOT)
        in_tmp = os.path.realpath(parent).split(os.sep)[1:2] == ["tmp"]  # a kit checked out under /tmp
        self.dir = tempfile.mkdtemp(prefix="scanlab-other-checkout-",
                                    dir=parent if os.access(parent, os.W_OK) and not in_tmp else "/var/tmp")
        os.chmod(self.dir, 0o755)
        self.path = os.path.join(self.dir, "answer.h")
        with open(self.path, "w") as f:
            f.write(f"{SECRET} is what only the instructor knows\n")
        os.chmod(self.path, 0o644)
        return self

    def __exit__(self, *exc):
        shutil.rmtree(self.dir, ignore_errors=True)


def lab01_case(case, code, reason, tests=("inc_example",), secret=None):
    """Lab 01's solution with `code` before scanIncSerial's body; every test in `tests` must
    FAIL matching `reason`, and the secret's text must reach neither the output nor
    results.json nor the logs."""
    sub = bad.make_submission(case, LAB01, INC_BODY, code + INC_BODY)
    verdict = bad.all_fail(case, sub, "01", tests, reason)
    if secret:
        no_leak(case, sub)
    return verdict


def no_leak(case, sub):
    results = os.path.join(ROOT, "build", "selftest", f"bad-{case}.json")
    logs = os.path.join(ROOT, "build", "grade", "emu", selftest.grade.submission_key(sub))
    texts = [open(results, errors="replace").read()] if os.path.exists(results) else []
    for top, _, files in os.walk(logs):
        texts += [open(os.path.join(top, f), errors="replace").read() for f in files]
    if any(SECRET in t for t in texts):
        raise CheckFailed(f"case {case}: the secret file's text reached results.json or a log")


def cases(*pairs):
    """Runs each (name, fn) and joins their verdicts: several submissions of one attack."""
    return "; ".join(f"{name}: {fn()}" for name, fn in pairs)


# ---- what the compiler reads -----------------------------------------------------------------

INCLUDE = r"#include: student code may not include files"


def case_include_spellings():
    """#include of a world-readable file outside the kit, spelt four ways a text check reads as
    something else. A text check passed each, and the compiler quoted the file's text in its
    errors (in results.json)."""
    with Secret() as s:
        return cases(
            ("digraph", lambda: lab01_case("include_digraph", f'%:include "{s.path}"\n', REFUSED + INCLUDE, secret=1)),
            ("splice", lambda: lab01_case("include_splice", f'#\\\ninclude "{s.path}"\n', REFUSED + INCLUDE, secret=1)),
            ("comment", lambda: lab01_case("include_comment", f'# /* */ include "{s.path}"\n', REFUSED + INCLUDE,
                                           secret=1)),
            # trigraphs are off (lab 01 builds in GNU C): ??= is not #, so nothing is included
            ("trigraph", lambda: lab01_case("include_trigraph", f'??=include "{s.path}"\n',
                                            r"(?s)does not compile|" + REFUSED[4:], secret=1)))


def case_kit_names_spelt():
    """#define and #undef of the kit's names, spelt with a digraph and a line splice."""
    rel = "04-warp-scan/warp_scan.cu"
    first = bad.SMEM_FIRST
    d = bad.make_submission("define_digraph", rel, first, "%:define warpScanBatch hijacked\n" + first)
    u = bad.make_submission("undef_splice", rel, first, "#\\\nundef WARP_SIZE\n" + first)
    return cases(
        ("digraph #define", lambda: bad.all_fail("define_digraph", d, "04", ("inc_one_warp",),
                                                 REFUSED + r"#define warpScanBatch: changes a name")),
        ("spliced #undef", lambda: bad.all_fail("undef_splice", u, "04", ("inc_one_warp",),
                                                REFUSED + r"#undef WARP_SIZE: changes a name")))


PASTE = "#define PASTE(a, b) a##b\n"


def case_asm_pasted():
    """A raw system call (getpid) through inline assembly whose asm keyword is pasted together:
    the pasting student macro, and asm however it comes out, are refused."""
    code = PASTE + ("  long pid;\n  PASTE(__as, m__) volatile(\"syscall\" : \"=a\"(pid) : \"a\"(39L) : \"rcx\", \"r11\", "
                    "\"memory\");\n  (void)pid;\n")
    return lab01_case("asm_pasted", code, REFUSED + r"#define PASTE: # and ## .*not allowed|__asm__: not allowed")


def case_machine_code():
    """Machine code without asm: a byte array placed in .text by a section attribute (a raw
    getpid system call, called through a pointer), and a GNU C nested function, whose trampoline
    makes the whole stack executable."""
    text = ("  static const unsigned char code[] __attribute__((section(\".text\"))) = "
            "{0xb8, 39, 0, 0, 0, 0x0f, 0x05, 0xc3};\n  if (n == 3) ((long (*)(void))(void *)code)();\n")
    nested = ("  int keep(int v) { return v + (int)n; }\n  int (*volatile via)(int) = keep;\n"
              "  if (n == 3) (void)via(1);\n")
    return cases(
        ("section(\".text\")", lambda: lab01_case("text_section", text, REFUSED + r"__attribute__\(\(section\)\): "
                                                                                  r"not allowed")),
        ("nested function", lambda: lab01_case("exec_stack", nested, REFUSED + r"needs an executable stack")))


def case_asm_header_paste():
    """asm pasted by a system header's macro (glibc's __CONCAT): no student macro pastes."""
    code = "  __CONCAT(__as, m__) volatile(\"\" ::: \"memory\");\n"
    return lab01_case("asm_header_paste", code, REFUSED + r"__CONCAT: a macro of a system header that pastes|"
                                                          r"__asm__: not allowed")


def case_pragma_pasted():
    """_Pragma spelt by pasting (the optimiser turned off for the rest of the file)."""
    code = PASTE + "  PASTE(_Pra, gma)(\"GCC optimize(\\\"O0\\\")\")\n"
    return lab01_case("pragma_pasted", code, REFUSED + r"#define PASTE: # and ##|only #pragma unroll")


def case_open_across_markers():
    """A conditional, a string and a brace opened in one region and closed in the next. #if 0
    at the end of lab 01's first region and #endif at the start of the second took out the
    kit's code between them (the end of scanIncSerial, the start of scanExcSerial), which the
    second region wrote again: it scored full marks."""
    rel = LAB01
    end1 = "    memcpy(dst + i * size, acc, size);\n  }\n  /* STUDENT-END(lab01) */"
    head2 = ("  /* STUDENT-BEGIN(lab01) */\n  const unsigned char *src = (const unsigned char *)in;\n"
             "  unsigned char *dst = (unsigned char *)out;\n  unsigned char acc[SCAN_MAX_ELEM], x[")
    sub = bad.make_submission("if0_across", rel, end1, end1.replace("  }\n", "  }\n#if 0\n"), outside_ok=True,
                              edits=[(head2, head2.replace("/* STUDENT-BEGIN(lab01) */\n",
                                                           "/* STUDENT-BEGIN(lab01) */\n#endif\n}\n"
                                                           "void scanExcSerial(const void *in, void *out, size_t n, "
                                                           "size_t size, scan_op_fn op, const void *identity) {\n"))])
    across = r"student region 1 does not close where it ends"
    w4 = "04-warp-scan/warp_scan.cu"
    ret = "  return x;\n  /* STUDENT-END(lab04) */\n}\n\ntemplate <typename T, typename Op>\n__device__ T scanExcWarp"
    raw = bad.make_submission("string_across", w4, ret, ret.replace("  return x;\n", "  return x;\n  auto s = R\"k(\n"),
                              outside_ok=True, edits=[("  T inc = scanIncWarp(x, op, mask);\n",
                                                       ")k\";\n  (void)s;\n  T inc = scanIncWarp(x, op, mask);\n")])
    brace = bad.make_submission("brace_across", w4, ret, ret.replace("  return x;\n", "  return x;\n  if (0) {\n"),
                                outside_ok=True, edits=[("  T inc = scanIncWarp(x, op, mask);\n",
                                                         "  }\n  T inc = scanIncWarp(x, op, mask);\n")])
    return cases(
        ("#if 0 ... #endif", lambda: bad.all_fail("if0_across", sub, "01", ("inc_example", "exc_example"),
                                                  REFUSED + across)),
        ("raw string", lambda: bad.all_fail("string_across", raw, "04", ("inc_one_warp",), REFUSED + across)),
        ("brace", lambda: bad.all_fail("brace_across", brace, "04", ("inc_one_warp",),
                                       REFUSED + r"not closed in this student region|closes a bracket opened outside")))


# ---- what code may call ------------------------------------------------------------------------

NOT_ALLOWED = r"calls {} \(it is not in what this lab allows"


def case_open64():
    """open64 (not on the forbid list, which names open) reads another checkout's file; the
    driver prints it and aborts, so its last lines reach the test's reason."""
    with Secret() as s:
        code = ("  int open64(const char *, int, ...);\n  long read(int, void *, unsigned long);\n"
                "  int puts(const char *);\n  void abort(void);\n"
                f"  {{ static char b[200]; int fd = open64(\"{s.path}\", 0);\n"
                "    if (fd >= 0 && read(fd, b, 199) > 0) { puts(b); abort(); } }\n")
        return lab01_case("open64", code, REFUSED + NOT_ALLOWED.format("open64"), secret=1)


def case_wordexp():
    """wordexp runs a shell for $(...)."""
    code = ("  struct { unsigned long c; char **v; unsigned long o; } w;\n"
            "  int wordexp(const char *, void *, int);\n"
            "  if (n == 3) wordexp(\"$(touch /tmp/scanlab-wordexp)\", &w, 0);\n")
    return lab01_case("wordexp", code, REFUSED + NOT_ALLOWED.format("wordexp"))


def case_timer_create():
    """timer_create with SIGEV_THREAD starts a thread (pthread_create is forbidden)."""
    code = ("  int timer_create(int, void *, void *);\n  static char ev[64];\n"
            "  if (n == 3) timer_create(0, ev, (void *)ev);\n")
    return lab01_case("timer_create", code, REFUSED + NOT_ALLOWED.format("timer_create"))


def case_sockets_and_ipc():
    """A TCP connection to a listener on the host's loopback, an abstract unix socket (another
    student's test, in a class run), SysV shared memory and a message queue left behind: each
    refused by what the lab may call (the sandbox refuses them again: isolation.py)."""
    tcp = ("  int socket(int, int, int);\n  int connect(int, const void *, unsigned);\n"
           "  if (n == 3) { unsigned char a[16] = {2, 0, 0x1f, 0x90, 127, 0, 0, 1};\n"
           "    connect(socket(2, 1, 0), a, 16); }\n")
    unix_ = ("  int socket(int, int, int);\n  int connect(int, const void *, unsigned);\n"
             "  if (n == 3) { char a[110] = {1, 0, 0, 's', 'c', 'a', 'n'};\n    connect(socket(1, 1, 0), a, 7); }\n")
    sysv = ("  int shmget(int, unsigned long, int);\n  int msgget(int, int);\n"
            "  if (n == 3) { shmget(0x5ca7, 4096, 01666); msgget(0x5ca7, 01666); }\n")
    return cases(
        ("TCP", lambda: lab01_case("tcp_loopback", tcp, REFUSED + NOT_ALLOWED.format("socket"))),
        ("abstract unix socket", lambda: lab01_case("abstract_unix", unix_, REFUSED + NOT_ALLOWED.format("socket"))),
        ("SysV IPC", lambda: lab01_case("sysv_ipc", sysv, REFUSED + NOT_ALLOWED.format("(shmget|msgget)"))))


def case_fortified():
    """A C library built with _FORTIFY_SOURCE (Ubuntu's GCC turns it on at -O2) makes the
    compiler call glibc's checked forms: lab 01's solution then calls __memcpy_chk, which is
    judged as memcpy and allowed (it was refused, and the solution scored 0); a direct call of
    __read_chk is judged as read, and refused."""
    env = {"CC": "gcc -D_FORTIFY_SOURCE=2"}
    sol = bad.make_submission("fortified_solution", LAB01, INC_BODY, INC_BODY)
    read = bad.make_submission("fortified_read", LAB01, INC_BODY,
                               "  long __read_chk(int, void *, unsigned long, unsigned long);\n"
                               "  { static char b[64]; if (n == 3) __read_chk(0, b, 8, sizeof b); }\n" + INC_BODY)
    return cases(
        ("__memcpy_chk", lambda: bad.expect("fortified_solution", sol, "01", ("inc_example", "edge_sizes"), {},
                                            env=env)),
        ("__read_chk", lambda: bad.all_fail("fortified_read", read, "01", ("inc_example",),
                                            REFUSED + NOT_ALLOWED.format("__read_chk"), env=env)))


def case_named_by_string():
    """Attributes that name a symbol by a string, which neither the source check nor the
    object's undefined symbols see: a weakref to the emu's counters (a kernel then subtracted
    its own traffic from them, and a serial scan passed emu_traffic at 8.00 bytes per element),
    a versioned definition of memset (memset@@GLIBC_2.2.5: the kit's own calls went to it), an
    alias; and code that runs as the driver loads, outside any test (a constructor, in GNU and
    C++11 spelling)."""
    rel = "05-global-scan/global_scan.cu"
    cases_ = {
        "weakref": "static unsigned long long tot_[1] __attribute__((weakref(\"_ZN11scanlab_emu8g_totalsE\")));\n",
        "symver": "extern \"C\" void *my_ms(void *d, int c, size_t n) __attribute__((symver(\"memset@@GLIBC_2.2.5\")));\n"
                  "extern \"C\" void *my_ms(void *d, int c, size_t n) {\n"
                  "  char *p = (char *)d;\n  for (size_t i = 0; i < n; i++) p[i] = (char)c;\n  return d;\n}\n",
        "alias": "extern \"C\" void my_f(void) {}\nextern \"C\" void my_g(void) __attribute__((alias(\"my_f\")));\n",
        "constructor": "[[gnu::constructor]] static void early(void) {}\n",
    }
    out = []
    for attr, code in cases_.items():
        sub = bad.make_submission(f"attr_{attr}", rel, bad.SCRATCH, code + bad.SCRATCH)
        out.append((attr, lambda sub=sub, attr=attr: bad.all_fail(
            f"attr_{attr}", sub, "05", ("block_example",),
            REFUSED + rf"__attribute__\(\({attr}\)\): not allowed in student code")))
    return cases(*out)


# ---- code that tells the emulator from a GPU --------------------------------------------------

WARP_REL = "04-warp-scan/warp_scan.cu"


def emu_branch(case, backend="emu"):
    """Lab 04's regions: the solution under #ifdef SCANLAB_EMU, the skeleton otherwise. It
    scored full marks on emu (Gradescope), with a skeleton on the GPU."""
    split = selftest.grade.split_regions
    sol = open(os.path.join(ROOT, "solutions", WARP_REL)).read().splitlines(keepends=True)
    outside, k_regions = split(open(os.path.join(ROOT, "skeletons", WARP_REL)).read().splitlines(keepends=True),
                               "04", WARP_REL)
    _, s_regions = split(sol, "04", WARP_REL)
    text = ""
    for i, part in enumerate(outside):
        text += "".join(part)
        if i < len(k_regions):
            text += f"#ifdef SCANLAB_EMU\n{''.join(s_regions[i])}#else\n{''.join(k_regions[i])}#endif\n"
    sub = os.path.join(bad.BAD, case)
    shutil.rmtree(sub, ignore_errors=True)
    os.makedirs(os.path.dirname(os.path.join(sub, WARP_REL)))
    open(os.path.join(sub, WARP_REL), "w").write(text)
    return bad.all_fail(case, sub, "04", ("inc_one_warp", "smem_ops"),
                        REFUSED + r"SCANLAB_EMU: tells one compiler or backend from another", backend=backend)


def case_emu_branch():
    return emu_branch("emu_branch")


def case_device_check_hidden():
    """A host call in a kernel, hidden from nvcc's device check under #ifndef __CUDA_ARCH__ (the
    emu compiles the host branch and runs it); and a test of threadIdx, a macro on the emu and
    not on a GPU."""
    rel = "02-kogge-stone/kogge_stone.cu"
    old = "  extern __shared__ int s[];                      /* 2 * blockDim.x ints: two buffers */\n"
    hidden = bad.make_submission("cuda_arch_hidden", rel, old, old + "#ifndef __CUDA_ARCH__\n"
                                 "  if (n == 123456789) { int rand(void); out[0] = rand(); }\n#endif\n")
    tested = bad.make_submission("threadidx_tested", rel, old, old + "#ifdef threadIdx\n"
                                 "  if (n == 123456789) out[0] = 1;\n#endif\n")
    return cases(
        ("__CUDA_ARCH__", lambda: bad.all_fail("cuda_arch_hidden", hidden, "02", ("ks_example",),
                                               REFUSED + r"__CUDA_ARCH__: tells one compiler or backend")),
        ("threadIdx", lambda: bad.all_fail("threadidx_tested", tested, "02", ("ks_example",),
                                           REFUSED + r"tests threadIdx, which the student regions do not define")))


def case_messages_own_lines():
    """A compile error in a region: the message a student sees names the region's line, and
    quotes no other file's text (a header's lines stay in the instructor's log)."""
    sub = bad.make_submission("own_lines", LAB01, INC_BODY, "  int broken = ;\n" + INC_BODY)
    code, out, data = bad.grade("own_lines", sub, ["01"], tests=("inc_example",))
    got = selftest.by_name(data).get("inc_example", {}).get("output", "")
    if not __import__("re").search(r"does not compile\n01-serial/scan_serial.c:14: error: expected expression", got):
        raise CheckFailed(f"case own_lines: {json.dumps(got)[:400]}")
    return "the error names 01-serial/scan_serial.c:14, nothing else"


CASES = [
    ("#include spelt with a digraph, a splice, a comment, a trigraph", case_include_spellings),
    ("#define and #undef of kit names spelt with a digraph and a splice", case_kit_names_spelt),
    ("a raw system call through pasted inline assembly", case_asm_pasted),
    ("machine code in .text, an executable stack", case_machine_code),
    ("asm pasted by a system header's macro", case_asm_header_paste),
    ("_Pragma spelt by pasting", case_pragma_pasted),
    ("a conditional, a string, a brace open across a STUDENT marker", case_open_across_markers),
    ("open64 reads another checkout", case_open64),
    ("wordexp runs a shell", case_wordexp),
    ("timer_create makes a thread", case_timer_create),
    ("sockets to the host, SysV IPC left behind", case_sockets_and_ipc),
    ("a fortified C library's __memcpy_chk allowed as memcpy, __read_chk refused as read", case_fortified),
    ("a symbol named by a string (weakref, symver, alias); a constructor", case_named_by_string),
    ("the solution under #ifdef SCANLAB_EMU", case_emu_branch),
    ("a host call hidden from nvcc under #ifndef __CUDA_ARCH__; #ifdef threadIdx", case_device_check_hidden),
    ("compile errors show the student's own lines", case_messages_own_lines),
]

GPU_CASES = [
    ("the solution under #ifdef SCANLAB_EMU is refused on cuda too", lambda: emu_branch("emu_branch_cuda", "cuda")),
]
