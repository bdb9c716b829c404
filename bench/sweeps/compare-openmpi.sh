#!/usr/bin/env bash
# Runs Open MPI's MPI_Allreduce (Debian's openmpi-bin, shared memory) and ./jccl perf all_reduce on this machine, in
# the same run, and prints them side by side with ratios.
#   bench/sweeps/compare-openmpi.sh [-np N] [-b MIN] [-e MAX] [-f FACTOR] [-n ITERS] [-w WARMUP] [--registered]
#                                   [--rounds K] [--same-process]
# --rounds K runs both K times, alternating (Open MPI, JCCL, Open MPI, ...), and prints each one's median per size
# (on a 2-vCPU VM rows vary 2-3x from run to run for both), with the best and worst round's time ratio beside it.
# --same-process runs both libraries in the same processes instead (bench/openmpi/SameProcessCompare.java: mpirun
# starts JVMs that call MPI_Allreduce through FFM and JCCL's allReduce on the same buffers, in alternating ~30 ms phases,
# --rounds times, default 30), so every round compares the two under the same host state; -n and -w do not apply;
# with --registered both use buffers from comm.allocate.
# Installs openmpi-bin and libopenmpi-dev with apt-get when mpicc is missing (needs root).
set -euo pipefail
cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.."
np=2 minb=8 maxb=134217728 factor=4 iters=200 warm=20 rounds= extra=() same=0
. bench/sweeps/lib/sweep-options.sh
while [ $# -gt 0 ]; do
  if sweep_option "$@"; then shift 2; continue; fi
  case "$1" in
    --registered) extra+=(-R 1); shift ;;
    --rounds) rounds=$2; shift 2 ;;
    --same-process) same=1; shift ;;
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
if [ "$same" = 1 ]; then
  ./jccl java -version >/dev/null 2>&1 || ./jccl java -version  # builds once here, not in every rank
  . bench/sweeps/lib/bench-jar.sh
  echo "# Open MPI $(mpirun --version | head -1 | awk '{print $NF}') (btl vader) and JCCL in the same $np processes"
  # opal_signal "": Open MPI's SIGSEGV/SIGBUS handlers would replace the JVM's, which it relies on
  exec mpirun "${root[@]}" "${oversub[@]}" -np "$np" --mca btl self,vader --mca opal_signal "" \
    ./jccl java -cp "$BENCH_JAR" bench/openmpi/SameProcessCompare.java "$minb" "$maxb" "$factor" "${rounds:-30}" \
    "$([ ${#extra[@]} -gt 0 ] && echo registered || echo plain)"
fi
rounds=${rounds:-1}
echo "# Open MPI $(mpirun --version | head -1 | awk '{print $NF}'), $np ranks, shared memory (btl vader)"
echo "# JCCL ./jccl perf all_reduce -np $np${extra[*]:+ ${extra[*]}}; $rounds round(s)"
for ((k = 1; k <= rounds; k++)); do
  mpirun "${root[@]}" "${oversub[@]}" -np "$np" --mca btl self,vader "$out/allreduce_bench" "$minb" "$maxb" "$factor" \
    "$iters" "$warm" > "$out/ompi-$k.txt"
  ./jccl perf all_reduce -np "$np" -b "$minb" -e "$maxb" -f "$factor" -n "$iters" -w "$warm" -c 1 "${extra[@]}" \
    > "$out/jccl-$k.txt"
done
# Per size: each tool's median time and busbw over the rounds, the ratio of the medians, and (with several rounds)
# the best and worst of the per-round time ratios. Wrong: the largest #wrong of any JCCL round.
cat_rounds() { for ((k = 1; k <= rounds; k++)); do sed "s/^/$1 $k /" "$out/$1-$k.txt"; done; }
{ cat_rounds ompi; cat_rounds jccl; } | awk -v rounds="$rounds" '
  function median(a, n,    i, j, t) { for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
                                      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  $3 ~ /^[0-9]+$/ { tool = $1; r = $2; s = $3; t[tool, s, r] = $8; b[tool, s, r] = $10
                    if (tool == "jccl" && (!(s in w) || $11 + 0 > w[s] + 0)) w[s] = $11
                    if (!(s in seen)) { seen[s] = 1; order[++k] = s } }
  BEGIN { printf "%12s %12s %12s %9s %11s %11s %9s %7s", "bytes", "ompi_us", "jccl_us", "time_x", "ompi_busbw", "jccl_busbw", "busbw_x", "wrong"
          if (rounds > 1) printf " %15s", "time_x_range"; printf "\n" }
  END { for (i = 1; i <= k; i++) { s = order[i]; ok = 1; lo = 1e30; hi = 0
          for (r = 1; r <= rounds; r++) { if (!(("ompi", s, r) in t) || !(("jccl", s, r) in t)) { ok = 0; break }
            ot[r] = t["ompi", s, r]; jt[r] = t["jccl", s, r]; ob[r] = b["ompi", s, r]; jb[r] = b["jccl", s, r]
            x = jt[r] / ot[r]; if (x < lo) lo = x; if (x > hi) hi = x }
          if (!ok) continue
          mo = median(ot, rounds); mj = median(jt, rounds); mob = median(ob, rounds); mjb = median(jb, rounds)
          printf "%12d %12.2f %12.2f %9.2f %11.3f %11.3f %9.2f %7s", s, mo, mj, mj / mo, mob, mjb, (mob > 0 ? mjb / mob : 0), w[s]
          if (rounds > 1) printf " %7.2f-%-7.2f", lo, hi; printf "\n" } }'
echo "# time_x = JCCL time / Open MPI time (lower is better); busbw_x = JCCL busbw / Open MPI busbw (higher is better)"
if [ "$rounds" -gt 1 ]; then
  echo "# medians of $rounds rounds; time_x_range: the best and worst round's JCCL/Open MPI time ratio"
fi
