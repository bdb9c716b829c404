#!/usr/bin/env bash
# Measures the oversubscription target: allReduce time per byte with N ranks on this machine's cores against
# the 2-rank time, JCCL and (with --ompi) Open MPI, in one run.
#   bench/sweeps/oversubscribe-ratio.sh [-np N] [-b MIN] [-e MAX] [-f FACTOR] [-n ITERS] [-w WARMUP] [--rounds K]
#                                       [--ompi] [--keep FILE] [--paired]
# Each round runs 2 ranks then N ranks back to back (and the same with Open MPI), so both sides of a round's ratio
# see the same machine; on a 2-vCPU VM a row varies 2-3x from run to run. Prints, per size, the median time of each
# over the rounds, the ratio of the medians (target: <= 3 for 4 ranks on 2 cores) and the lowest and highest
# per-round ratio, and the same from only the runs in which the host kept CPUs 0 and 1 on cores sharing a last-level
# cache ("near") or not ("far"; cross-core copies ~3.5x slower). --keep FILE also writes every row (tool, ranks,
# round, state, bytes, us) to FILE.
# --paired measures inside one job instead: N ranks against 2 of them split off (io.jccl.bench.OversubscriptionBench
# of the bench module, and bench/openmpi/oversub_paired.c with --ompi), in ~30 ms phases that alternate within every
# round, so each round's ratio compares the two under the same host state; it prints the medians, their ratio and
# the per-round ratios' 10th/50th/90th percentiles (--rounds defaults to 100 there; -n and -w do not apply).
set -euo pipefail
cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.."
np=4 minb=32K maxb=8M factor=4 iters=200 warm=20 rounds= ompi=0 keep= paired=0
. bench/sweeps/lib/sweep-options.sh
while [ $# -gt 0 ]; do
  if sweep_option "$@"; then shift 2; continue; fi
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --ompi) ompi=1; shift ;;
    --keep) keep=$2; shift 2 ;;
    --paired) paired=1; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
minb=$(numfmt --from=iec "$minb"); maxb=$(numfmt --from=iec "$maxb")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
tools=(jccl)
if [ "$ompi" = 1 ]; then
  if ! command -v mpicc >/dev/null; then
    echo "# installing openmpi-bin libopenmpi-dev (apt-get)" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q openmpi-bin libopenmpi-dev >/dev/null
  fi
  mpicc -O2 -o "$out/allreduce_bench" bench/openmpi/allreduce_bench.c
  tools+=(ompi)
fi
root=(); [ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
if [ "$paired" = 1 ]; then
  rounds=${rounds:-100}
  . bench/sweeps/lib/bench-jar.sh
  ./jccl run -np "$np" -cp "$BENCH_JAR" io.jccl.bench.OversubscriptionBench -b "$minb" -e "$maxb" -f "$factor" \
    --rounds "$rounds" 2> >(grep -v "^jccl run:" >&2) | sed -e 's/^\[0\] //' -e 's/^# allReduce/# jccl: allReduce/'
  if [ "$ompi" = 1 ]; then
    mpicc -O2 -o "$out/oversub_paired" bench/openmpi/oversub_paired.c
    oversub=(); [ "$np" -gt "$(nproc)" ] && oversub=(--oversubscribe)
    mpirun "${root[@]}" "${oversub[@]}" -np "$np" --mca btl self,vader "$out/oversub_paired" "$minb" "$maxb" "$factor" \
      "$rounds"
  fi
  exit 0
fi
rounds=${rounds:-3}
# On a 2-vCPU VM the host may move the two vCPUs between cores that share a last-level cache and cores that do not,
# and a cross-core copy is then ~3.5x slower: a probe (bench/probe/crosscore.c) before and after every run tags its
# rows.
far_ns=300
if [ "$(nproc)" -ge 2 ] && command -v cc >/dev/null; then
  cc -O2 -pthread -o "$out/crosscore" bench/probe/crosscore.c
fi
probe() { if [ -x "$out/crosscore" ]; then "$out/crosscore"; else echo 0; fi; }
run() { # tool ranks round
  local oversub=(); [ "$2" -gt "$(nproc)" ] && oversub=(--oversubscribe)
  local before after state
  before=$(probe)
  if [ "$1" = jccl ]; then
    ./jccl perf all_reduce -np "$2" -b "$minb" -e "$maxb" -f "$factor" -n "$iters" -w "$warm" -c 1 \
      2> >(grep -v "^jccl run:" >&2) > "$out/last"
  else
    mpirun "${root[@]}" "${oversub[@]}" -np "$2" --mca btl self,vader "$out/allreduce_bench" "$minb" "$maxb" \
      "$factor" "$iters" "$warm" > "$out/last"
  fi
  after=$(probe)
  # near: CPUs 0 and 1 shared a last-level cache before and after the run; far: neither time; mixed: it moved
  if [ "$before" = 0 ]; then state=unknown
  elif [ "$before" -lt "$far_ns" ] && [ "$after" -lt "$far_ns" ]; then state=near
  elif [ "$before" -ge "$far_ns" ] && [ "$after" -ge "$far_ns" ]; then state=far
  else state=mixed; fi
  awk -v t="$1" -v n="$2" -v r="$3" -v st="$state" '$1 ~ /^[0-9]+$/ && NF >= 8 { print t, n, r, st, $1, $6 }' "$out/last"
}
echo "# allReduce float sum, out of place: $np ranks against 2 on $(nproc) CPUs; tools: ${tools[*]}; $rounds round(s)"
for ((k = 1; k <= rounds; k++)); do
  for t in "${tools[@]}"; do
    run "$t" 2 "$k" >> "$out/rows"
    run "$t" "$np" "$k" >> "$out/rows"
  done
done
[ -n "$keep" ] && cp "$out/rows" "$keep"
python3 - "$out/rows" "$np" <<'PY'
import collections, statistics, sys
rows, n = sys.argv[1], sys.argv[2]
t = collections.defaultdict(dict)
state = collections.defaultdict(dict)
for line in open(rows):
    tool, ranks, rnd, st, size, us = line.split()
    t[(tool, int(size))][(ranks, int(rnd))] = float(us)
    state[(tool, int(size))][(ranks, int(rnd))] = st
def med(xs):
    return statistics.median(xs) if xs else float('nan')
print(f"{'tool':5} {'bytes':>10} {'2r_us':>10} {n + 'r_us':>10} {'ratio':>7} {'round_range':>13}   "
      f"{'near: 2r':>9} {n + 'r':>8} {'ratio':>6}   {'far: 2r':>9} {n + 'r':>8} {'ratio':>6}")
for (tool, size) in sorted(t, key=lambda k: (k[0] != 'jccl', k[1])):
    d, sd = t[(tool, size)], state[(tool, size)]
    rounds = sorted({r for (_, r) in d if ('2', r) in d and (n, r) in d})
    if not rounds:
        continue
    two = med([d[('2', r)] for r in rounds])
    many = med([d[(n, r)] for r in rounds])
    per = [d[(n, r)] / d[('2', r)] for r in rounds]
    line = f"{tool:5} {size:10d} {two:10.2f} {many:10.2f} {many / two:7.2f} {min(per):6.2f}-{max(per):<6.2f}"
    for st in ('near', 'far'):
        a = med([v for k, v in d.items() if k[0] == '2' and sd[k] == st])
        b = med([v for k, v in d.items() if k[0] == n and sd[k] == st])
        line += f"   {a:9.2f} {b:8.2f} {b / a:6.2f}"
    print(line)
print(f"# ratio = median {n}-rank time / median 2-rank time (same bytes per rank); round_range: the per-round ratios")
print("# near / far: only the runs during which CPUs 0 and 1 shared a last-level cache (cross-core round trip < "
      "300 ns before and after the run) / did not; nan: no such run")
runs = {(tool, k[0], k[1]): v for (tool, _), sd in state.items() for k, v in sd.items()}
counts = collections.Counter((tool, r, st) for (tool, r, _), st in runs.items())
print("# runs by state: " + ", ".join(f"{tool} {r} ranks {st}: {c}" for (tool, r, st), c in sorted(counts.items())))
PY
