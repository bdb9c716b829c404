#!/usr/bin/env bash
# The acceptance check of failure detection, repeated: runs
#   ./jccl perf all_reduce -np N -b 32M -e 32M -n 100000
# kills one rank (chosen at random) with SIGKILL a random time after the timed loop started, and checks that the
# launcher exits non-zero within 15 s and that every survivor's error names the killed rank.
#   bench/sweeps/fault-perf.sh [-runs K] [-np N] [--tcp] [-seed S]
# Prints one line per run and a summary: runs, hangs (launcher still running 15 s after the kill), runs where a
# survivor's error did not name the lost rank, and wrong results (#wrong > 0 in any printed row).
set -euo pipefail
cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.."
runs=5 np=4 seed=$RANDOM tcp=0
while [ $# -gt 0 ]; do
  case "$1" in
    -runs) runs=$2; shift 2 ;;
    -np) np=$2; shift 2 ;;
    -seed) seed=$2; shift 2 ;;
    --tcp) tcp=1; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
RANDOM=$seed
./jccl build >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
hangs=0 unnamed=0 wrong=0 zero_exit=0
for ((run = 0; run < runs; run++)); do
  if [ "$tcp" = 1 ]; then export NCCL_SHM_DISABLE=1; fi
  ./jccl perf all_reduce -np "$np" -b 32M -e 32M -n 100000 >"$out/out" 2>"$out/err" &
  launcher=$!
  # wait until every rank is in the timed loop (the table header is printed before the first size)
  for ((i = 0; i < 600; i++)); do
    grep -q "(elements)" "$out/out" 2>/dev/null && break
    sleep 0.1
  done
  sleep "$((RANDOM % 4)).$((RANDOM % 10))"
  victim=$((RANDOM % np)) pid=""
  ranks=$(pgrep -f "io.jccl.tools.perf.PerfMain all_reduce -b" || true)
  for p in $ranks; do
    if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "RANK=$victim"; then pid=$p; fi
  done
  if [ -z "$pid" ]; then
    echo "run $run: rank $victim not found (did the job start?)"; sed 's/^/    /' "$out/err" | tail -5
    kill "$launcher" 2>/dev/null || true; wait "$launcher" || true
    continue
  fi
  t0=$(date +%s%N)
  kill -9 "$pid"
  code=""
  for ((i = 0; i < 150; i++)); do
    if ! kill -0 "$launcher" 2>/dev/null; then break; fi
    sleep 0.1
  done
  if kill -0 "$launcher" 2>/dev/null; then
    hangs=$((hangs + 1)); code=hang
    pkill -9 -P "$launcher" || true; kill -9 "$launcher" || true
  fi
  set +e; wait "$launcher"; rc=$?; set -e
  ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  for p in $ranks; do rm -f /dev/shm/jccl-*-"$p"-*; done   # what killed or stopped ranks could not clean up
  [ -z "$code" ] && code=$rc
  [ "$code" = 0 ] && zero_exit=$((zero_exit + 1))
  named=0 survivors=$((np - 1))
  named=$(grep -c "jccl perf: rank [0-9]* failed: .*rank $victim (pid" "$out/err" || true)
  [ "$named" -lt "$survivors" ] && unnamed=$((unnamed + 1))
  w=$(awk '$1 ~ /^[0-9]+$/ && ($10 > 0 || $14 > 0)' "$out/out" | wc -l)
  [ "$w" -gt 0 ] && wrong=$((wrong + 1))
  echo "run $run: killed rank $victim of $np; launcher exit $code after $ms ms; $named of $survivors survivors named it"
  [ "$named" -lt "$survivors" ] && sed 's/^/    /' "$out/err" | head -20
done
echo "fault-perf: $runs runs, $hangs hangs, $zero_exit zero exit codes, $unnamed runs where a survivor did not name the lost rank, $wrong runs with wrong results"
[ "$hangs" = 0 ] && [ "$zero_exit" = 0 ] && [ "$unnamed" = 0 ] && [ "$wrong" = 0 ]
