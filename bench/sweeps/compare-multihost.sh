#!/usr/bin/env bash
# Allreduce across two "hosts" (network namespaces joined by veths and a bridge, see scripts/netns-hosts.sh):
# JCCL (./jccl perf all_reduce --hostfile, socket transport), Open MPI over TCP (mpirun --mca btl tcp,self with
# bench/openmpi/allreduce_bench.c) and Gloo (torch.distributed, bench/gloo/allreduce_bench.py), on unshaped veths
# and on veths shaped with tbf, in the same run, printed as one table with ratios.
#
#   bench/sweeps/compare-multihost.sh [--ranks-per-host N] [--rates "none 10gbit"] [-b 1M] [-e 128M] [-f 2]
#                                     [-n ITERS] [-w WARMUP] [--small-iters N] [--prefix jcmp] [--subnet 10.77.0]
#
# Sizes: 8 B (latency, --small-iters iterations) and -b..-e by factor -f (bandwidth). float32 sum, out-of-place
# columns of every tool; every tool checks its results (#wrong). Needs root (namespaces), mpicc/mpirun
# (openmpi-bin libopenmpi-dev) and python3-torch (apt-get install -y python3-torch): missing ones are installed with
# apt-get. The namespaces are removed on exit, also on failure or Ctrl-C.
#
# How each runs across namespaces:
#   JCCL:   ./jccl perf all_reduce -np 2N --hostfile F --rsh 'ip netns exec' --master-addr 10.77.0.1, with
#           NCCL_SOCKET_IFNAME=<prefix>-e (the veths) and JCCL_PERF_JIT_WARMUP (default 20 here: perf's JIT warm-up
#           is sized for shared memory, where a call takes microseconds; over sockets it would take minutes)
#   Open MPI: mpirun --hostfile F --mca plm_rsh_agent <wrapper running 'ip netns exec HOST unshare --uts sh -c CMD'
#           with the host name set to HOST>, with the
#           bridge given an address in the root namespace so the orteds reach mpirun; btl tcp,self (+vader with 2
#           ranks per host), btl_tcp_if_include/oob_tcp_if_include the veths' subnet
#   Gloo:   one python process per rank started with 'ip netns exec', GLOO_SOCKET_IFNAME = that host's veth
set -euo pipefail
cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.."
ROOT="$PWD"

per_host=1 rates="none 10gbit" minb=1M maxb=128M factor=2 iters=5 warm=2 small_iters=200 prefix=jcmp subnet=10.77.0
while [[ $# -gt 0 ]]; do
    case "$1" in
        --ranks-per-host) per_host=$2; shift 2 ;;
        --rates) rates=$2; shift 2 ;;
        -b) minb=$2; shift 2 ;;
        -e) maxb=$2; shift 2 ;;
        -f) factor=$2; shift 2 ;;
        -n) iters=$2; shift 2 ;;
        -w) warm=$2; shift 2 ;;
        --small-iters) small_iters=$2; shift 2 ;;
        --prefix) prefix=$2; shift 2 ;;
        --subnet) subnet=$2; shift 2 ;;
        -h | --help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
[[ "$(id -u)" -eq 0 ]] || { echo "compare-multihost: network namespaces need root" >&2; exit 1; }
to_bytes() { numfmt --from=iec "$1"; }
minb=$(to_bytes "$minb"); maxb=$(to_bytes "$maxb")
np=$((2 * per_host))
STEP_TIMEOUT=${STEP_TIMEOUT:-900}

if ! command -v mpicc >/dev/null; then
    echo "# installing openmpi-bin libopenmpi-dev (apt-get)" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q openmpi-bin libopenmpi-dev >/dev/null
fi
PY=/usr/bin/python3
if ! "$PY" -c 'import torch.distributed' 2>/dev/null; then
    echo "# installing python3-torch (apt-get)" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-torch >/dev/null
fi

out=$(mktemp -d)
cleanup() {
    scripts/netns-hosts.sh down --prefix "$prefix" >/dev/null 2>&1 || true
    rm -rf "$out"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mpicc -O2 -o "$out/allreduce_bench" bench/openmpi/allreduce_bench.c
cat >"$out/netns-rsh" <<'EOF'
#!/bin/sh
# Open MPI's plm_rsh_agent: "<agent> HOST CMD..." like ssh; runs CMD through sh inside namespace HOST, with its own
# host name (a UTS namespace): Open MPI names its session directory and shared-memory (vader) files after the host
# name, and two "hosts" sharing one would map each other's segments (segfaults in mca_btl_vader).
host="$1"; shift
exec ip netns exec "$host" unshare --uts sh -c "hostname '$host'; $*"
EOF
chmod +x "$out/netns-rsh"
printf '%s-h0 slots=%d\n%s-h1 slots=%d\n' "$prefix" "$per_host" "$prefix" "$per_host" >"$out/hosts"
./jccl build >/dev/null 2>&1 || ./jccl build

# run_jccl MIN MAX FACTOR ITERS WARMUP > file
run_jccl() {
    NCCL_SOCKET_IFNAME="${prefix}-e" JCCL_PERF_JIT_WARMUP="${JCCL_PERF_JIT_WARMUP:-20}" timeout "$STEP_TIMEOUT" \
        ./jccl perf all_reduce -np "$np" --hostfile "$out/hosts" --rsh 'ip netns exec' --master-addr "${subnet}.1" \
        -b "$1" -e "$2" -f "$3" -n "$4" -w "$5" -c 1 2>"$out/jccl.err" | grep -v '^\[' || {
        echo "# JCCL failed:" >&2; tail -20 "$out/jccl.err" >&2; }
}

run_ompi() {
    local btl=tcp,self
    [[ "$per_host" -gt 1 ]] && btl=tcp,vader,self
    timeout "$STEP_TIMEOUT" mpirun --allow-run-as-root -np "$np" --hostfile "$out/hosts" \
        --mca plm_rsh_agent "$out/netns-rsh" --mca btl "$btl" --mca btl_tcp_if_include "${subnet}.0/24" \
        --mca oob_tcp_if_include "${subnet}.0/24" "$out/allreduce_bench" "$1" "$2" "$3" "$4" "$5" 2>"$out/ompi.err" || {
        echo "# Open MPI failed:" >&2; tail -20 "$out/ompi.err" >&2; }
}

run_gloo() {
    local port=$((29500 + RANDOM % 1000)) r h pids=()
    for ((r = 0; r < np; r++)); do
        h=$((r / per_host))
        RANK=$r WORLD_SIZE=$np LOCAL_RANK=$((r % per_host)) MASTER_ADDR="${subnet}.1" MASTER_PORT=$port \
            GLOO_SOCKET_IFNAME="${prefix}-e$h" OMP_NUM_THREADS=1 timeout "$STEP_TIMEOUT" \
            ip netns exec "${prefix}-h$h" "$PY" bench/gloo/allreduce_bench.py "$1" "$2" "$3" "$4" "$5" \
            >"$out/gloo.$r.out" 2>"$out/gloo.$r.err" &
        pids+=($!)
    done
    local rc=0
    for p in "${pids[@]}"; do wait "$p" || rc=$?; done
    cat "$out/gloo.0.out"
    [[ $rc -eq 0 ]] || { echo "# Gloo failed (exit $rc):" >&2; tail -5 "$out"/gloo.*.err >&2; }
}

# tcp_ceiling LABEL: what TCP itself carries between the two hosts, both directions at once (iperf3 --bidir), with 1
# and 4 streams each way. A 2-rank allReduce sends and receives N bytes per rank, so its busbw cannot exceed the
# slower direction's rate (and the ranks must also reduce on the same cores).
tcp_ceiling() {
    command -v iperf3 >/dev/null || { echo "# $1: iperf3 not installed (apt-get install iperf3): no TCP ceiling" >&2; return; }
    local streams json
    for streams in 1 4; do
        ip netns exec "${prefix}-h1" timeout 30 iperf3 -s -1 -p 5299 >/dev/null 2>&1 &
        sleep 0.5
        json=$(ip netns exec "${prefix}-h0" timeout 30 iperf3 -c "${subnet}.2" -p 5299 --bidir -P "$streams" -t 4 -J 2>/dev/null || true)
        wait || true
        "$PY" -c '
import json, sys
try:
    e = json.loads(sys.stdin.read())["end"]
    a, b = e["sum_sent"]["bits_per_second"] / 8e9, e["sum_sent_bidir_reverse"]["bits_per_second"] / 8e9
    print("# link %s: TCP ceiling, %s stream(s) each way at once: %.2f GB/s h0->h1, %.2f GB/s h1->h0" % (sys.argv[1], sys.argv[2], a, b))
except Exception as x:
    print("# link %s: iperf3 gave no result (%s)" % (sys.argv[1], x))
' "$1" "$streams" <<<"$json" | tee -a "$out/ceiling.txt" >&2
    done
}

for rate in $rates; do
    shape=()
    [[ "$rate" != none ]] && shape=(--rate "$rate")
    scripts/netns-hosts.sh up 2 --prefix "$prefix" --subnet "$subnet" --host-addr "${shape[@]}" >/dev/null
    label="${rate/none/unshaped}"
    tcp_ceiling "$label"
    echo "# link $label: JCCL" >&2
    { run_jccl 8 8 1 "$small_iters" 20; run_jccl "$minb" "$maxb" "$factor" "$iters" "$warm"; } \
        | sed "s/^/$label jccl /" >>"$out/all.txt"
    echo "# link $label: Open MPI" >&2
    { run_ompi 8 8 1 "$small_iters" 20; run_ompi "$minb" "$maxb" "$factor" "$iters" "$warm"; } \
        | sed "s/^/$label ompi /" >>"$out/all.txt"
    echo "# link $label: Gloo" >&2
    { run_gloo 8 8 1 "$small_iters" 20; run_gloo "$minb" "$maxb" "$factor" "$iters" "$warm"; } \
        | sed "s/^/$label gloo /" >>"$out/all.txt"
    scripts/netns-hosts.sh down --prefix "$prefix" >/dev/null
done

echo "# allreduce float32 sum across 2 namespace hosts, $per_host rank(s) per host ($np ranks); $(nproc) cores;" \
    "Open MPI $(mpirun --version | head -1 | awk '{print $NF}'), torch $("$PY" -c 'import torch; print(torch.__version__)')"
awk '
    $3 ~ /^[0-9]+$/ && $4 ~ /^[0-9]+$/ { key = $1 " " $3; t[$2, key] = $8; bw[$2, key] = $10; wr[$2, key] = $11
                      if (!(key in seen)) { seen[key] = 1; order[++k] = key } }
    function ratio(a, b) { return (b > 0 && a > 0) ? sprintf("%.2f", a / b) : "-" }
    function v(x) { return x == "" ? "-" : x }
    END {
        printf "%-9s %10s %11s %11s %11s %8s %8s %8s %7s %7s %7s %7s %s\n", "link", "bytes", "jccl_us", "ompi_us",
            "gloo_us", "jccl_bw", "ompi_bw", "gloo_bw", "t_j/o", "t_j/g", "bw_j/o", "bw_j/g", "wrong(j/o/g)"
        for (i = 1; i <= k; i++) {
            key = order[i]; split(key, p, " ")
            printf "%-9s %10d %11s %11s %11s %8s %8s %8s %7s %7s %7s %7s %s/%s/%s\n", p[1], p[2],
                v(t["jccl", key]), v(t["ompi", key]), v(t["gloo", key]),
                v(bw["jccl", key]), v(bw["ompi", key]), v(bw["gloo", key]),
                ratio(t["jccl", key], t["ompi", key]), ratio(t["jccl", key], t["gloo", key]),
                ratio(bw["jccl", key], bw["ompi", key]), ratio(bw["jccl", key], bw["gloo", key]),
                v(wr["jccl", key]), v(wr["ompi", key]), v(wr["gloo", key])
        }
    }' "$out/all.txt"
[[ -f "$out/ceiling.txt" ]] && cat "$out/ceiling.txt"
echo "# *_us: time per call (out-of-place); *_bw: busbw GB/s; t_j/x = JCCL time / other's (lower is better);"
echo "# bw_j/x = JCCL busbw / other's (higher is better). One run on a shared machine: compare within the run only."
