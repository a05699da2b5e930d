#!/bin/bash
# Lab 08's ranks as processes on one host: starts G copies of PROGRAM, one a rank, as srun starts
# one task a rank, and waits for them all.
#   labs/08-multi-gpu/ranks/run_ranks.sh G PROGRAM [ARGS...]
# Each gets SCANLAB_RANK, SCANLAB_RANKS, SCANLAB_LOCAL_RANK, SCANLAB_LOCAL_RANKS and a fresh
# SCANLAB_RANKS_DIR (unless one is set). The exit status is the worst of the ranks'.
set -u
if [ $# -lt 2 ] || ! [[ "$1" =~ ^[0-9]+$ ]] || [ "$1" -lt 1 ]; then
  echo "usage: $0 G PROGRAM [ARGS...]   (G ranks, one process each)" >&2
  exit 2
fi
G=$1
shift
made=""
if [ -z "${SCANLAB_RANKS_DIR:-}" ]; then
  SCANLAB_RANKS_DIR=$(mktemp -d "${TMPDIR:-/tmp}/scanlab-ranks.XXXXXX") || exit 2
  made=$SCANLAB_RANKS_DIR
fi
export SCANLAB_RANKS_DIR SCANLAB_RANKS=$G SCANLAB_LOCAL_RANKS=$G
pids=()
for ((r = 0; r < G; r++)); do
  SCANLAB_RANK=$r SCANLAB_LOCAL_RANK=$r "$@" &
  pids+=($!)
done
worst=0
for p in "${pids[@]}"; do
  wait "$p"
  rc=$?
  [ $rc -gt $worst ] && worst=$rc
done
[ -n "$made" ] && rm -rf "$made"
exit $worst
