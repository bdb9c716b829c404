#!/usr/bin/env bash
# Ring vs tree allReduce on 2 "hosts" x 2 ranks of this machine: NCCL_HOSTID makes ranks 0,1 one host and 2,3 another,
# so shared memory joins the ranks of a host and loopback TCP joins the hosts. Runs ./jccl perf all_reduce once per
# NCCL_ALGO value in ALGOS (default: "allreduce:ring allreduce:tree"; "auto" leaves it unset), rank 0's tables to
# stdout.
#   bench/sweeps/tree-vs-ring.sh [perf flags...]      e.g. bench/sweeps/tree-vs-ring.sh -b 8 -e 32M -f 4 -n 20 -w 5
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/../.."
algos=${ALGOS:-"allreduce:ring allreduce:tree"}
for algo in $algos; do
  port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
  secret=$(python3 -c 'import os;print(os.urandom(32).hex())')
  logs=$(mktemp -d)
  pids=()
  sel=()
  [ "$algo" = auto ] || sel=(NCCL_ALGO="$algo")
  for r in 0 1 2 3; do
    env RANK=$r WORLD_SIZE=4 LOCAL_RANK=$((r % 2)) LOCAL_WORLD_SIZE=2 JCCL_COMM_ID=127.0.0.1:$port \
        JCCL_COMM_SECRET=$secret NCCL_HOSTID=host-$((r / 2)) "${sel[@]}" JCCL_TIMEOUT_MS=${JCCL_TIMEOUT_MS:-120000} \
        ./jccl perf all_reduce "$@" > "$logs/r$r" 2>&1 &
    pids+=($!)
  done
  rc=0
  for p in "${pids[@]}"; do wait "$p" || rc=$?; done
  echo "## NCCL_ALGO=$algo (exit $rc)"
  grep -v '^#  Rank\|^# Using' "$logs/r0"
  [ $rc -eq 0 ] || tail -n 5 "$logs"/r*
  [ -n "${KEEP_LOGS:-}" ] && echo "logs in $logs" || rm -rf "$logs"
done
