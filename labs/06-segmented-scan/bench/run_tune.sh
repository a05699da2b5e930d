#!/usr/bin/env bash
# Builds tune_segscan.cu once per tile shape of the single pass (in parallel), then runs each
# on the GPU, one after the other. Writes build/tune/<shape>/tune and prints RESULT lines.
#
#   labs/06-segmented-scan/bench/run_tune.sh [build|run|all] [extra tune arguments]
#
# Shapes: THREADSxITEMS[/MIN_BLOCKS]; the first (the shape of seg_scan.h) is also timed
# against the libraries; the others time the single pass alone. The H100 log in this folder
# was made with the order "128x64 128x32 128x48 256x32 128x64/4 64x64".
set -u
cd "$(dirname "$0")/../../.."
what=${1:-all}
shift || true
SM=${SM:-90}
SHAPES=${SHAPES:-"128x64/4 128x64 128x32 128x48 256x32 64x64"}
# The file timed: the solution where there is one, else your skeleton (SRC= to choose).
SRC=${SRC:-solutions/06-segmented-scan/seg_scan.cu}
[ -f "$SRC" ] || SRC=skeletons/06-segmented-scan/seg_scan.cu
NVCC="nvcc -O3 -std=c++17 -lineinfo -arch=sm_$SM -Igrader/trusted/include"
if [ "$what" = build ] || [ "$what" = all ]; then
  pids=()
  for s in $SHAPES; do
    t=${s%%x*}; rest=${s#*x}; i=${rest%%/*}; mb=1
    [ "$rest" != "$i" ] && mb=${rest#*/}
    dir=build/tune/${t}x${i}_${mb}
    mkdir -p "$dir"
    $NVCC -DSS_GLOBAL_THREADS=$t -DSS_GLOBAL_ITEMS=$i -DSS_GLOBAL_MIN_BLOCKS=$mb -Xptxas -v \
      "$SRC" labs/06-segmented-scan/bench/tune_segscan.cu \
      -o "$dir/tune" > "$dir/build.log" 2>&1 &
    pids+=($!)
  done
  ok=0
  for p in "${pids[@]}"; do wait "$p" || ok=1; done
  for s in $SHAPES; do
    t=${s%%x*}; rest=${s#*x}; i=${rest%%/*}; mb=1
    [ "$rest" != "$i" ] && mb=${rest#*/}
    dir=build/tune/${t}x${i}_${mb}
    regs=$(grep -A2 "segScanGlobalKernelIi3AddLb0" "$dir/build.log" | grep -o "Used [0-9]* registers" | head -1)
    echo "BUILT $s: ${regs:-build failed, see $dir/build.log}"
  done
  [ $ok -eq 0 ] || exit 1
fi
if [ "$what" = run ] || [ "$what" = all ]; then
  first=1
  for s in $SHAPES; do
    t=${s%%x*}; rest=${s#*x}; i=${rest%%/*}; mb=1
    [ "$rest" != "$i" ] && mb=${rest#*/}
    dir=build/tune/${t}x${i}_${mb}
    if [ $first -eq 1 ]; then "$dir/tune" "$@"; else "$dir/tune" --ours-only "$@"; fi
    first=0
  done
fi
