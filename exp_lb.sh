#!/bin/sh
# lab 05's look-back timing at several calls per batch (same number of timed calls)
for pb in 16 4 1 16 8; do
  d=build/exp/m$pb; rm -rf $d; mkdir -p $d; cp grader/manifests/*.toml $d/
  reps=$((80 / pb))
  sed -i "s/params = { n = 67108864, reps = 5, per_batch = 16, threshold = 0.70 }/params = { n = 67108864, reps = $reps, per_batch = $pb, threshold = 0.70 }/; s/params = { n = 67108864, reps = 5, per_batch = 16, threshold = 0.45 }/params = { n = 67108864, reps = $reps, per_batch = $pb, threshold = 0.45 }/" $d/lab05.toml
  grep -c "per_batch = $pb" $d/lab05.toml
  SCANLAB_MANIFESTS=$d python3 grader/grade.py --backend cuda --submission solutions --lab 05 --test timing_lookback --test timing_rts --results build/exp/r$pb.json 2>&1 | grep 'of copy' | sed "s/^/pb=$pb /"
done
