#!/usr/bin/env python3
"""What the memory probes cost (`make emu-probe-cost`): the same code timed with and without
the probe flags (EMU_PROBE_FLAGS), on one worker (SCANLAB_EMU_WORKERS=1), the two builds taking
turns, best of N rounds each; prints both times and their ratio.

    probe_cost.py [--rounds 5] [--lab NN]... [--no-bench] [compiler options of run_tests.py]

- the micro-benchmark: tests/bench_scan3.cu, a three-kernel scan of 2^20 ints, its `time_ms`
  (the three launches);
- `--lab NN`: a graded run, every test of lab NN's manifest as `make grade` runs it on the emu
  (grade.py's parameters and sandbox), the lab's solution spliced as the grader splices it,
  built into two drivers: the probed one the grader builds, and the same without the probe
  flags. A round's time is the wall time of all its tests (the test programs included: their
  inputs, references and checks are the kit's, never probed, so this ratio is smaller than the
  kernels' own). Builds the lab's kit first, as `make grade` does.

The self-test's `probe-ratio` check (run_tests.py) measures the micro-benchmark the same way.
Python 3 standard library only.
"""
import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))


def build_pair(src, opt, out_dir):
    """Builds one test program twice, without and with the probe flags; returns the two
    binaries, or raises RuntimeError with the failing command's output."""
    os.makedirs(out_dir, exist_ok=True)
    name = os.path.splitext(os.path.basename(src))[0]
    cpp = os.path.join(out_dir, name + '.cpp')
    cmds = [shlex.split(opt.rewrite) + [src, cpp]]
    bins = []
    for tag, extra in (('plain', []), ('probed', shlex.split(opt.probe_flags))):
        obj = os.path.join(out_dir, '%s.%s.o' % (name, tag))
        binary = os.path.join(out_dir, '%s.%s' % (name, tag))
        cmds.append(shlex.split(opt.cxx) + shlex.split(opt.cxxflags) + extra + shlex.split(opt.cppflags)
                    + ['-I' + os.path.dirname(src), '-c', cpp, '-o', obj])
        cmds.append(shlex.split(opt.cxx) + shlex.split(opt.cxxflags) + [obj, opt.lib] + shlex.split(opt.ldlibs)
                    + ['-o', binary])
        bins.append(binary)
    for c in cmds:
        r = subprocess.run(c, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT)
        if r.returncode != 0:
            raise RuntimeError('$ ' + ' '.join(c) + '\n' + r.stdout)
    return bins


def run_time_ms(binary, workers=1):
    """Runs a program that prints `time_ms: X`; returns X, or raises RuntimeError."""
    env = dict(os.environ, SCANLAB_EMU_WORKERS=str(workers))
    env.pop('SCANLAB_EMU_PROFILE', None)
    r = subprocess.run([binary], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                       cwd=ROOT, timeout=120)
    m = re.search(r'time_ms:\s*([0-9.]+)', r.stdout)
    if r.returncode != 0 or not m:
        raise RuntimeError('%s: exit status %d\n%s' % (binary, r.returncode, r.stdout[-2000:]))
    return float(m.group(1))


def best_of(rounds, measures):
    """Calls each of `measures` once per round, in turn; returns the smallest result of each."""
    best = [float('inf')] * len(measures)
    for _ in range(rounds):
        for i, m in enumerate(measures):
            best[i] = min(best[i], m())
    return best


def bench_ratio(opt, src=None, rounds=5):
    """(plain ms, probed ms) of a test program's time_ms, best of `rounds` taking turns."""
    src = src or os.path.join(HERE, 'bench_scan3.cu')
    plain, probed = build_pair(src, opt, os.path.join(ROOT, opt.build, 'probe-cost'))
    return best_of(rounds, [lambda: run_time_ms(plain), lambda: run_time_ms(probed)])


# ---- a graded run ------------------------------------------------------------------------------

def lab_drivers(lab, opt, work):
    """Lab `lab`'s kit, and two drivers of its solution: probed (as graded) and plain."""
    sys.path.insert(0, os.path.join(ROOT, 'grader', 'grading'))
    import grade  # noqa: E402  (the grader's manifests, splicing, kit build and test settings)
    manifest = [m for m in grade.all_manifests() if m['lab'] == lab]
    if not manifest or grade.lab_backend(manifest[0], 'emu') != 'emu':
        raise RuntimeError('lab %s: no such lab with kernels' % lab)
    manifest = manifest[0]
    log = os.path.join(work, 'kit.log')
    if not grade.build_kit(manifest, 'emu', opt.sm, log):
        raise RuntimeError('lab %s: the kit does not build (see %s)' % (lab, log))
    kit_dir = os.path.join(grade.KIT, 'emu', 'student', 'lab' + lab)
    flags = open(os.path.join(kit_dir, 'flags.mk')).read()
    m = re.search(r'^STUDENT_CXX = (.*)$', flags, re.M)
    probe = ' '.join(shlex.split(opt.probe_flags))
    if not m or probe not in m.group(1):
        raise RuntimeError('%s/flags.mk: STUDENT_CXX does not hold the probe flags "%s"' % (kit_dir, probe))
    plain_cxx = m.group(1).replace(probe, ' ')
    drivers = []
    link = ['DRIVER_LIBS=%s -pthread -lm' % os.path.abspath(opt.driver_lib)] if opt.driver_lib else []
    for tag, override in (('probed', link), ('plain', link + ['STUDENT_CXX=' + plain_cxx])):
        d = os.path.join(work, tag)
        shutil.copytree(kit_dir, d, ignore=shutil.ignore_patterns('.ready'))
        src_dir = os.path.join(d, 'src', manifest['dir'])
        os.makedirs(src_dir)
        for name in manifest['student_files']:
            sub = os.path.join(ROOT, opt.submission, manifest['dir'], name)
            kit_file = os.path.join(ROOT, 'skeletons', manifest['dir'], name)
            text = grade.splice(kit_file, sub, lab, manifest['dir'] + '/' + name)[0]
            with open(os.path.join(src_dir, name), 'w') as f:
                f.write(text)
        srcs = ' '.join('src/%s/%s' % (manifest['dir'], n) for n in manifest['student_files'])
        r = subprocess.run(['make', '--no-print-directory', '-f', 'student.mk', 'driver', 'LAB=' + lab,
                            'SRCS=' + srcs] + override, cwd=d, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        if r.returncode != 0:
            raise RuntimeError('lab %s, %s driver:\n%s' % (lab, tag, r.stdout[-3000:]))
        drivers.append(os.path.join(d, 'out', 'lab%s_driver' % lab))
    return grade, manifest, drivers


def lab_round(grade, manifest, driver, workers):
    """Runs every test of the lab once with this driver, as the grader runs them; returns the
    wall time of all of them, or raises RuntimeError at the first test that fails."""
    lab = manifest['lab']
    tests_bin = os.path.join(grade.KIT, 'tests', 'lab%s_tests' % lab)
    clean = os.path.join(grade.KIT, 'emu', 'scanlab-clean-driver')
    env = dict(os.environ, SCANLAB_EMU_WORKERS=str(workers), SCANLAB_EMU_SCHEDULE=grade.GRADE_SCHEDULE)
    env.pop('SCANLAB_EMU_PROFILE', None)
    total = 0.0
    for test in manifest['test']:
        timeout, params = grade.run_settings(manifest, test, 'emu')
        cmd = [tests_bin, '--driver', driver, '--clean-driver', clean, '--sandbox', grade.SANDBOX,
               '--backend', 'emu', '--timeout', '%g' % timeout, '--host-copy-bytes', '0']
        for o in grade.sandbox_options(manifest, 'emu', timeout):
            cmd += ['--sandbox-opt', o]
        for k, v in params.items():
            cmd += ['--param', '%s=%s' % (k, v)]
        cmd.append(test['name'])
        env.setdefault('SCANLAB_EMU_WATCHDOG_S', str(max(1, int(timeout) - 3)))
        t0 = time.monotonic()
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=ROOT,
                           timeout=timeout + 30)
        total += time.monotonic() - t0
        if r.returncode != 0:
            raise RuntimeError('lab %s %s with %s: exit status %d\n%s' % (lab, test['name'], driver, r.returncode,
                                                                          r.stdout[-2000:]))
    return total


def lab_ratio(lab, opt):
    """(plain s, probed s) of lab `lab`'s graded tests, best of opt.rounds taking turns."""
    work = tempfile.mkdtemp(prefix='scanlab-probe-cost-')
    os.chmod(work, 0o755)
    try:
        grade, manifest, (probed, plain) = lab_drivers(lab, opt, work)
        return best_of(opt.rounds, [lambda: lab_round(grade, manifest, plain, opt.workers),
                                    lambda: lab_round(grade, manifest, probed, opt.workers)])
    finally:
        shutil.rmtree(work, ignore_errors=True)


def add_compiler_options(ap):
    """The options that say how to build a test, shared with run_tests.py."""
    ap.add_argument('--build', default='build/emu-test')
    ap.add_argument('--cxx', default='g++')
    ap.add_argument('--probe-flags', default='')
    ap.add_argument('--lockstep-flags', default='', help='for a plain build of a file that uses volatile')
    ap.add_argument('--cxxflags', default='-std=c++17 -O2 -g1 -pthread -Wno-unknown-pragmas')
    ap.add_argument('--cppflags', default='-Igrader/emu/include -include scanlab_emu.h')
    ap.add_argument('--lib', default='build/emu-rt/libscanlab_emu.a')
    ap.add_argument('--ldlibs', default='-pthread')
    ap.add_argument('--rewrite', default='python3 grader/emu/cu2cpp.py')


def main():
    ap = argparse.ArgumentParser(description='What the memory probes cost: with and without them.')
    add_compiler_options(ap)
    ap.add_argument('--rounds', type=int, default=5, help='rounds; each build runs once per round')
    ap.add_argument('--lab', action='append', default=[], help='also time this lab\'s graded tests')
    ap.add_argument('--no-bench', action='store_true', help='skip the micro-benchmark')
    ap.add_argument('--workers', type=int, default=1, help='SCANLAB_EMU_WORKERS for the graded tests')
    ap.add_argument('--submission', default='solutions', help='whose files the lab drivers are built from')
    ap.add_argument('--sm', default='90')
    ap.add_argument('--driver-lib', help='link the lab drivers with this runtime instead of the kit\'s')
    opt = ap.parse_args()
    if not opt.probe_flags:
        ap.error('--probe-flags is required (make emu-probe-cost passes EMU_PROBE_FLAGS)')
    try:
        if not opt.no_bench:
            plain, probed = bench_ratio(opt, rounds=opt.rounds)
            print('bench_scan3 (2^20 ints, 1 worker, best of %d): %.0f ms plain, %.0f ms probed: %.2fx'
                  % (opt.rounds, plain, probed, probed / plain), flush=True)
        for lab in opt.lab:
            plain, probed = lab_ratio(lab, opt)
            print('lab %s graded tests (%s, %d worker%s, best of %d): %.1f s plain, %.1f s probed: %.2fx'
                  % (lab, opt.submission, opt.workers, '' if opt.workers == 1 else 's', opt.rounds, plain, probed,
                     probed / plain), flush=True)
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        print('probe_cost: %s' % e, file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
