#!/usr/bin/env python3
"""Runs the emulation backend's own tests (`make emu-test`).

Each test is one `.cu` file in this folder; comment lines at its top say what to expect:

    // emu-test: expect pass|fail|racy|compile-error
                                         pass: exit 0 under every schedule;
                                         fail: non-zero exit under every schedule;
                                         racy: a wrong answer (non-zero exit, no emu
                                         diagnostic) under at least one schedule;
                                         compile-error: the build fails, and its messages
                                         hold every `stderr` phrase (what the emu does not
                                         support fails when compiling, naming the feature)
    // emu-test: schedules forward reverse random:1   (default: forward reverse random:1
                                                      random:2 for pass and racy,
                                                      forward random:1 for fail)
    // emu-test: stderr PHRASE     PHRASE must appear on stderr (repeatable)
    // emu-test: stdout PHRASE     PHRASE must appear on stdout (repeatable)
    // emu-test: env KEY=VALUE     environment for the run (repeatable)
    // emu-test: rc N              the exact exit status (negative: killed by signal -N)
    // emu-test: extra FILE.c      a C11 file compiled with gcc and linked in
    // emu-test: args A B ...      command-line arguments
    // emu-test: max-ms N          the program prints `time_ms: X`; X must be below N (judged
                                   with the probe ratios: --probe-cost)
    // emu-test: timeout S         seconds before the run counts as hung (default 60)
    // emu-test: probe             built with the memory probes (counters, race detector)
    // emu-test: loops             rewritten by loops.py (cu2cpp.py's rewrite with each kernel's
                                   loops version), as emu-nvcc rewrites a program's files
    // emu-test: probe-ratio R N   also built with the probes beside the plain build; the best
                                   `time_ms` of N runs of each on one worker, taking turns
                                   (probe_cost.py): probed / plain must be below R
    // emu-test: native no WHY     a test that expects pass but checks the emu itself (its
                                   environment, poison, profile, or device functions called
                                   from host code): run_native.py, which builds the others
                                   with nvcc and runs them on a GPU, leaves it out, saying WHY

Prints one line per run (`name [schedule]: OK (0.12s)` or FAIL with the reason below),
keeps the output of failed runs in BUILD/logs/, and ends with `N passed, N failed`.
Filter with test names on the command line. Python 3 standard library only.
"""
import argparse
import concurrent.futures
import contextlib
import io
import os
import re
import shlex
import subprocess
import sys
import threading
import time
import traceback

import probe_cost

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import cu2cpp  # noqa: E402  (grader/emu/cu2cpp.py: the rewrite of a .cu file)
import loops  # noqa: E402  (grader/emu/loops.py: the same, each kernel's loops version first)
import pch  # noqa: E402  (grader/emu/pch.py: the emulator's headers, precompiled)

REWRITE_LOCK = threading.Lock()


def parse(path):
    spec = {'expect': 'pass', 'schedules': None, 'stderr': [], 'stdout': [], 'env': {}, 'rc': None,
            'extra': [], 'args': [], 'max_ms': None, 'timeout': 60.0, 'probe': False, 'probe_ratio': None,
            'native': '', 'loops': False}
    with open(path, encoding='utf-8') as fh:
        for line in fh:
            m = re.match(r'\s*//\s*emu-test:\s*(\S+)\s*(.*?)\s*$', line)
            if not m:
                continue
            key, val = m.group(1), m.group(2)
            if key == 'expect':
                spec['expect'] = val
            elif key == 'schedules':
                spec['schedules'] = val.split()
            elif key in ('stderr', 'stdout'):
                spec[key].append(val)
            elif key == 'env':
                k, _, v = val.partition('=')
                spec['env'][k] = v
            elif key == 'rc':
                spec['rc'] = int(val)
            elif key == 'extra':
                spec['extra'].append(val)
            elif key == 'args':
                spec['args'] = shlex.split(val)
            elif key == 'max-ms':
                spec['max_ms'] = float(val)
            elif key == 'timeout':
                spec['timeout'] = float(val)
            elif key == 'probe':
                spec['probe'] = True
            elif key == 'loops':
                spec['loops'] = True
            elif key == 'native':
                spec['native'] = val
            elif key == 'probe-ratio':
                limit, rounds = val.split()
                spec['probe_ratio'] = (float(limit), int(rounds))
    if spec['schedules'] is None:
        spec['schedules'] = (['forward', 'random:1'] if spec['expect'] == 'fail'
                             else ['forward', 'reverse', 'random:1', 'random:2'])
    return spec


def chosen(filters):
    """The tests whose names hold one of `filters` (all without), in order, and their specs."""
    names = sorted(f[:-3] for f in os.listdir(HERE) if f.endswith('.cu'))
    if filters:
        names = [n for n in names if any(s in n for s in filters)]
    return names, {n: parse(os.path.join(HERE, n + '.cu')) for n in names}


def build(name, spec, opt):
    """Rewrites, compiles and links one test; returns (binary, error text)."""
    out = os.path.join(opt.build, name)
    src = os.path.join(HERE, name + '.cu')
    rw = shlex.split(opt.rewrite) + [src, out + '.cpp']
    if os.path.realpath(rw[-3]) == os.path.realpath(cu2cpp.__file__):
        # the kit's rewrite, run here (a second Python's start took as long as the rewrite),
        # one at a time: its messages go to sys.stderr, caught for this test alone
        err = io.StringIO()
        with REWRITE_LOCK, contextlib.redirect_stderr(err):
            try:
                code = (loops.main if spec['loops'] else cu2cpp.main)(rw[-3:])
            except Exception:  # a fault of the rewrite's fails this test, as its own process did
                traceback.print_exc()
                code = 1
        if code != 0:
            return None, '$ ' + ' '.join(rw) + '\n' + err.getvalue()
    else:
        r = subprocess.run(rw, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            return None, '$ ' + ' '.join(rw) + '\n' + r.stdout
    with open(out + '.cpp', encoding='utf-8', errors='replace') as fh:
        lockstep = fh.readline().startswith('/* scanlab-emu: volatile */')  # cu2cpp.LOCKSTEP_MARK
    cmds = [shlex.split(opt.cxx) + shlex.split(opt.cxxflags) + ['-Wall', '-Wextra', '-Werror']
            + (shlex.split(opt.probe_flags) if spec['probe'] else
               shlex.split(opt.lockstep_flags) if lockstep else [])
            + (['-DSCANLAB_EMU_LOOPS_BUILD=1'] if spec['loops'] else [])
            + shlex.split(opt.cppflags) + ['-I' + HERE, '-c', out + '.cpp', '-o', out + '.o']]
    cmds[0] = pch.command(cmds[0], out + '.cpp', out + '.o', os.path.join(os.path.dirname(opt.build), 'emu-pch'))
    objs = [out + '.o']
    for extra in spec['extra']:
        obj = os.path.join(opt.build, name + '_' + os.path.splitext(extra)[0] + '.o')
        cmds.append(['gcc', '-std=c11', '-Wall', '-Wextra', '-Werror', '-pedantic'] + shlex.split(opt.cflags)
                    + ['-c', os.path.join(HERE, extra), '-o', obj])
        objs.append(obj)
    cmds.append(shlex.split(opt.cxx) + shlex.split(opt.cxxflags) + objs + [opt.lib] + shlex.split(opt.ldlibs)
                + ['-o', out])
    # the compiler's messages in the C locale, whatever the machine's: a test's `stderr` phrase
    # quotes them ('name', not the typographic quotes of a UTF-8 locale)
    env = dict(os.environ, LC_ALL='C')
    for c in cmds:
        r = subprocess.run(c, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        if r.returncode != 0:
            return None, '$ ' + ' '.join(c) + '\n' + r.stdout
    return out, ''


def run_one(binary, name, spec, sched, opt):
    env = dict(os.environ)
    env.pop('SCANLAB_EMU_STRICT', None)  # a test that wants it says so (its env lines)
    env.setdefault('SCANLAB_EMU_WORKERS', '2')
    env['SCANLAB_EMU_SCHEDULE'] = sched
    env.update(spec['env'])
    t0 = time.time()
    try:
        r = subprocess.run([binary] + spec['args'], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env=env, timeout=spec['timeout'])
        rc, out, err = r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired as e:
        rc, out, err = None, (e.stdout or b'').decode(errors='replace') if isinstance(e.stdout, bytes) else (e.stdout or ''), \
            (e.stderr or b'').decode(errors='replace') if isinstance(e.stderr, bytes) else (e.stderr or '')
    dt = time.time() - t0
    return rc, out, err, dt


def judge(spec, rc, out, err, timed=True):
    """Reason a single run failed, or '' (for pass and fail expectations)."""
    if rc is None:
        return 'hung (no exit within %gs)' % spec['timeout']
    if spec['rc'] is not None and rc != spec['rc']:
        return 'exit status %d, expected %d' % (rc, spec['rc'])
    if spec['expect'] == 'pass' and rc != 0:
        return 'exit status %d, expected 0' % rc
    if spec['expect'] == 'fail' and rc == 0:
        return 'exit status 0, expected a failure'
    for p in spec['stderr']:
        if p not in err:
            return 'stderr lacks "%s"' % p
    for p in spec['stdout']:
        if p not in out:
            return 'stdout lacks "%s"' % p
    if spec['max_ms'] is not None and timed:
        m = re.search(r'time_ms:\s*([0-9.]+)', out)
        if not m:
            return 'no "time_ms:" line in the output'
        if float(m.group(1)) >= spec['max_ms']:
            return 'took %s ms, the limit is %g ms' % (m.group(1), spec['max_ms'])
    return ''


def main():
    ap = argparse.ArgumentParser()
    probe_cost.add_compiler_options(ap)  # --build, --cxx, --probe-flags, ...: one list for both
    ap.add_argument('--cflags', default='-Igrader/emu/include')
    ap.add_argument('--jobs', type=int, default=os.cpu_count() or 2)
    ap.add_argument('--probe-cost', choices=('yes', 'no', 'only'), default='yes',
                    help='what times itself (the probe-ratio measurements and the max-ms limits: wall times, '
                         'judged on a quiet machine): with the tests, left out, or alone (make check judges '
                         'them last, alone)')
    ap.add_argument('names', nargs='*')
    opt = ap.parse_args()
    os.makedirs(os.path.join(opt.build, 'logs'), exist_ok=True)

    names, specs = chosen(opt.names)
    if opt.probe_cost == 'only':  # what times itself, alone: the probes' cost, and a limit in ms
        names = [n for n in names if specs[n]['probe_ratio'] or specs[n]['max_ms'] is not None]

    with concurrent.futures.ThreadPoolExecutor(opt.jobs) as ex:
        built = dict(zip(names, ex.map(lambda n: build(n, specs[n], opt), names)))

    passed = failed = 0

    def record(ok, label, dt, reason, log):
        nonlocal passed, failed
        if ok:
            passed += 1
            print('%s: OK (%.2fs)' % (label, dt), flush=True)
        else:
            failed += 1
            path = os.path.join(opt.build, 'logs', re.sub(r'[^\w.-]', '_', label) + '.log')
            with open(path, 'w') as fh:
                fh.write(log)
            print('%s: FAIL (%.2fs)\n    %s\n    (full output in %s)' % (label, dt, reason, path), flush=True)

    for n in names:
        spec = specs[n]
        binary, err = built[n]
        if spec['expect'] == 'compile-error':
            missing = [p for p in spec['stderr'] if p not in err]
            reason = ('it built; a compile error was expected' if binary else
                      'the compiler\'s messages lack "%s"' % missing[0] if missing else '')
            record(not reason, n + ' [compile error]', 0.0, reason, err)
            continue
        if not binary:
            record(False, n + ' [build]', 0.0, 'does not build: ' + err.strip().splitlines()[-1][:200]
                   if err.strip() else 'does not build', err)
            continue
        wrong = []
        timed = spec['max_ms'] is not None
        for sched in spec['schedules'] if opt.probe_cost != 'only' else spec['schedules'][:1] if timed else ():
            rc, out, errtxt, dt = run_one(binary, n, spec, sched, opt)
            alone_later = timed and opt.probe_cost == 'no'  # its time is judged alone (--probe-cost only)
            label = '%s [%s]' % (n, sched) + (' (its %g ms limit judged alone)' % spec['max_ms'] if alone_later
                                              else ' [time]' if opt.probe_cost == 'only' else '')
            log = 'exit status: %s\n--- stdout\n%s\n--- stderr\n%s' % (rc, out, errtxt)
            if spec['expect'] == 'racy':
                if rc is None:
                    record(False, label, dt, 'hung', log)
                elif 'emu: ' in errtxt:
                    record(False, label, dt, 'an emu diagnostic where only a wrong answer was expected', log)
                else:
                    if rc != 0:
                        wrong.append(sched)
                    print('%s: %s (%.2fs)' % (label, 'wrong answer' if rc else 'right answer', dt), flush=True)
                continue
            reason = judge(spec, rc, out, errtxt, timed=not alone_later)
            record(not reason, label, dt, reason, log)
        if spec['expect'] == 'racy':
            record(bool(wrong), n + ' [some schedule exposes the race]', 0.0,
                   'the answer was right under every schedule: the race went unnoticed', '')
        if spec['probe_ratio'] and opt.probe_cost == 'no':
            print('%s [probe cost]: not measured here (--probe-cost no)' % n, flush=True)
        elif spec['probe_ratio'] and not opt.probe_flags:
            print('%s [probe cost]: SKIPPED (no --probe-flags)' % n, flush=True)
        elif spec['probe_ratio']:
            limit, rounds = spec['probe_ratio']
            t0 = time.time()
            # A ratio of wall times on a shared machine: a busy neighbour (another build, the CI
            # runner's own work) can slow one side for a whole round. Over the limit, it is
            # measured again, up to three times in all; a real regression is over the limit each
            # time. (A fresh clone's make check read 5.13x, its probed runs 1484 ms against 950 to
            # 1000 ms elsewhere in the same series, then 3.79x.)
            ratio, notes, error = None, [], None
            for attempt in range(3):
                try:
                    plain, probed = probe_cost.bench_ratio(opt, os.path.join(HERE, n + '.cu'), rounds)
                except (RuntimeError, subprocess.TimeoutExpired) as e:
                    error = e
                    break
                notes.append('%.2fx: %.0f ms probed, %.0f ms plain' % (probed / plain, probed, plain))
                ratio = probed / plain if ratio is None else min(ratio, probed / plain)
                if ratio < limit:
                    break
            if error is not None:
                record(False, n + ' [probe cost]', time.time() - t0, str(error).strip().splitlines()[-1][:200],
                       str(error))
                continue
            what = '; again: '.join(notes) + ', best of %d on one worker' % rounds
            if ratio < limit:
                print('%s [probe cost]: OK (%.2fs) %s' % (n, time.time() - t0, what), flush=True)
                passed += 1
            else:
                record(False, n + ' [probe cost]', time.time() - t0, '%s; the limit is %gx' % (what, limit), what)

    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
