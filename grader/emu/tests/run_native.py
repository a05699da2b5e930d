#!/usr/bin/env python3
"""The emu's own tests that expect pass, built with nvcc and run on the GPU (make check-gpu).

A test that passes on the emu claims what CUDA does: that claim holds only where the same
program builds with nvcc and passes on a GPU. Each test that expects pass is built with
`nvcc -std=c++17 -arch=native` (its `extra` C files with gcc) and run once: it must exit with
its `rc` (default 0) and print each of its `stdout` phrases (its `stderr` phrases are the
emu's diagnostics, which a GPU does not print). Left out, and listed with the reason: a test
marked `native no WHY`, and one whose SCANLAB_EMU_DEVICES asks for more GPUs than the machine
has. Prints one line a test and ends with `N passed, N failed`. Python 3 standard library only.
"""
import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_tests  # noqa: E402  (the tests' headers, parsed as make emu-test parses them)


def gpu_count():
    try:
        out = subprocess.run(['nvidia-smi', '-L'], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return 0
    return len(re.findall(r'^GPU \d+:', out, re.M))


def build(name, spec, opt):
    """nvcc's build of one test; returns (binary, error text)."""
    out = os.path.join(opt.build, name)
    cuda_inc = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(opt.nvcc))), 'include')
    objs, cmds = [], []
    for extra in spec['extra']:
        obj = os.path.join(opt.build, name + '_' + os.path.splitext(extra)[0] + '.o')
        cmds.append(['gcc', '-std=c11', '-I' + cuda_inc, '-c', os.path.join(HERE, extra), '-o', obj])
        objs.append(obj)
    cmds.append([opt.nvcc, '-std=c++17', '-arch=native', '-I' + HERE, '-o', out, os.path.join(HERE, name + '.cu')]
                + objs + ['-lcurand', '-lcuda'])
    for c in cmds:
        r = subprocess.run(c, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           env=dict(os.environ, LC_ALL='C'))
        if r.returncode != 0:
            return None, '$ ' + ' '.join(c) + '\n' + r.stdout
    return out, ''


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--build', default='build/emu-test-native')
    ap.add_argument('--nvcc', default=shutil.which('nvcc') or 'nvcc')
    ap.add_argument('--jobs', type=int, default=os.cpu_count() or 2)
    ap.add_argument('names', nargs='*')
    opt = ap.parse_args()
    os.makedirs(os.path.join(opt.build, 'logs'), exist_ok=True)
    names, specs = run_tests.chosen(opt.names)
    names = [n for n in names if specs[n]['expect'] == 'pass']
    gpus = gpu_count()
    left_out, todo = [], []
    for n in names:
        want = int(specs[n]['env'].get('SCANLAB_EMU_DEVICES', '1') or 1)
        if specs[n]['native']:
            why = re.sub(r'^no\s*', '', specs[n]['native'])
            if not re.match(r'no\s', specs[n]['native']) or not why:
                print('%s: FAIL\n    `native` must read `native no WHY`, got `%s`' % (n, specs[n]['native']))
                print('0 passed, 1 failed')
                return 1
            left_out.append('%s (%s)' % (n, why))
        elif want > gpus:
            left_out.append('%s (needs %d GPU%s, this machine has %d)' % (n, want, 's' if want > 1 else '', gpus))
        else:
            todo.append(n)
    if not gpus:
        print('run_native.py runs the tests on a GPU, and nvidia-smi finds none here (make emu-test runs '
              'them on the emu)', file=sys.stderr)
        print('0 passed, 1 failed')
        return 2
    with concurrent.futures.ThreadPoolExecutor(opt.jobs) as ex:
        built = dict(zip(todo, ex.map(lambda n: build(n, specs[n], opt), todo)))
    passed = failed = 0
    for n in todo:  # one at a time: a test that times itself runs on a quiet GPU
        spec, (binary, err) = specs[n], built[n]
        reason, log, t0 = '', err, time.time()
        if not binary:
            reason = 'does not build with nvcc: ' + (err.strip().splitlines()[1:2] or ['?'])[0][:200]
        else:
            try:
                r = subprocess.run([binary] + spec['args'], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   stdin=subprocess.DEVNULL,
                                   errors='replace', timeout=spec['timeout'])
                want = spec['rc'] if spec['rc'] is not None else 0
                log = 'exit status: %s\n--- stdout\n%s\n--- stderr\n%s' % (r.returncode, r.stdout, r.stderr)
                missing = [p for p in spec['stdout'] if p not in r.stdout]
                if r.returncode != want:
                    tail = (r.stdout + r.stderr).strip().splitlines()[-1:] or ['']
                    reason = 'exit status %d, not %d: %s' % (r.returncode, want, tail[0][:200])
                elif missing:
                    reason = 'stdout lacks "%s"' % missing[0]
            except subprocess.TimeoutExpired:
                reason = 'hung (no end within %g s)' % spec['timeout']
        dt = time.time() - t0
        if reason:
            failed += 1
            path = os.path.join(opt.build, 'logs', n + '.log')
            with open(path, 'w') as fh:
                fh.write(log)
            print('%s [native]: FAIL (%.2fs)\n    %s\n    (full output in %s)' % (n, dt, reason, path), flush=True)
        else:
            passed += 1
            print('%s [native]: OK (%.2fs)' % (n, dt), flush=True)
    print('left out: ' + ('; '.join(left_out) if left_out else 'none'))
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
