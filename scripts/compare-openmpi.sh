#!/usr/bin/env bash
# Runs Open MPI's MPI_Allreduce (Debian's openmpi-bin, shared memory) and ./jccl perf all_reduce on this machine, in
# the same run, and prints them side by side with ratios.
#   scripts/compare-openmpi.sh [-np N] [-b MIN] [-e MAX] [-f FACTOR] [-n ITERS] [-w WARMUP] [--registered]
# Installs openmpi-bin and libopenmpi-dev with apt-get when mpicc is missing (needs root).
set -euo pipefail
cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.."
np=2 minb=8 maxb=134217728 factor=4 iters=200 warm=20 extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    -np) np=$2; shift 2 ;;
    -b) minb=$2; shift 2 ;;
    -e) maxb=$2; shift 2 ;;
    -f) factor=$2; shift 2 ;;
    -n) iters=$2; shift 2 ;;
    -w) warm=$2; shift 2 ;;
    --registered) extra+=(-R 1); shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
to_bytes() { numfmt --from=iec "$1"; }
minb=$(to_bytes "$minb"); maxb=$(to_bytes "$maxb")
if ! command -v mpicc >/dev/null; then
  echo "# installing openmpi-bin libopenmpi-dev (apt-get)" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q openmpi-bin libopenmpi-dev >/dev/null
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mpicc -O2 -o "$out/allreduce_bench" bench/openmpi/allreduce_bench.c
root=(); [ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
oversub=(); [ "$np" -gt "$(nproc)" ] && oversub=(--oversubscribe)
echo "# Open MPI $(mpirun --version | head -1 | awk '{print $NF}'), $np ranks, shared memory (btl vader)"
mpirun "${root[@]}" "${oversub[@]}" -np "$np" --mca btl self,vader "$out/allreduce_bench" "$minb" "$maxb" "$factor" \
  "$iters" "$warm" | tee "$out/ompi.txt" | grep -v '^#' >/dev/null
echo "# JCCL ./jccl perf all_reduce -np $np"
./jccl perf all_reduce -np "$np" -b "$minb" -e "$maxb" -f "$factor" -n "$iters" -w "$warm" -c 1 "${extra[@]}" \
  > "$out/jccl.txt"
awk 'BEGIN { printf "%12s %12s %12s %9s %11s %11s %9s %7s\n", "bytes", "ompi_us", "jccl_us", "time_x", "ompi_busbw", "jccl_busbw", "busbw_x", "wrong" }
     FNR == 1 { file++ }
     /^ *[0-9]/ { if (file == 1) { ot[$1] = $6; ob[$1] = $8 } else { jt[$1] = $6; jb[$1] = $8; jw[$1] = $9 } ; if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 } }
     END { for (i = 1; i <= k; i++) { s = order[i]; if (!(s in ot) || !(s in jt)) continue;
             printf "%12d %12.2f %12.2f %9.2f %11.3f %11.3f %9.2f %7s\n", s, ot[s], jt[s], jt[s] / ot[s], ob[s], jb[s], (ob[s] > 0 ? jb[s] / ob[s] : 0), jw[s] } }' \
  "$out/ompi.txt" "$out/jccl.txt"
echo "# time_x = JCCL time / Open MPI time (lower is better); busbw_x = JCCL busbw / Open MPI busbw (higher is better)"
