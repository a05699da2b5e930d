#!/bin/sh
# Lab 07's tile shape on a GPU: builds grader/measure/bench_apps.cu with the lab 07 solution at
# several (threads, elements per thread) pairs and times the single-pass kernels beside their
# libraries at 2^26 and 2^28 (each the median of 15 calls after 3 untimed ones, in one run of
# the bench program per shape). Usage, from the repository root on a machine with a GPU:
#     sh labs/07-applications/bench/run_tune.sh [OUT_DIR]
# The table it printed on an H100 is in labs/07-applications/README.md (Measurements).
set -e
out=${1:-build/tune07}
mkdir -p "$out"
for shape in "256 16" "128 32" "256 32" "128 16"; do
  set -- $shape
  bin="$out/bench_apps_$1x$2"
  nvcc -O3 -std=c++17 -arch=sm_90 -DAPP_THREADS="$1" -DAPP_ITEMS="$2" -Igrader/trusted/include \
    grader/measure/bench_apps.cu solutions/07-applications/apps.cu -o "$bin" -lcusparse
  for lg in 26 28; do
    "$bin" --min-log2 $lg --max-log2 $lg --reps 15 |
      sed -n 's/^RESULT //p' |
      python3 -c "import json,sys
for l in sys.stdin:
    r = json.loads(l)
    print('$1 x $2', '2^%d' % r['log2n'], '%-44s %.3f of copy  x lib %.2f %s' % (r['variant'], r['frac_copy'], r['x_cub'], '' if r['ok'] else 'WRONG'))"
  done
done
