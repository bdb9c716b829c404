#!/usr/bin/env bash
# netns-hosts.sh — N "hosts" on this machine as Linux network namespaces joined by veth pairs and a bridge, for
# multi-host tests and comparisons without a second machine. JCCL's host hash includes the network namespace, so
# ranks in different namespaces are different hosts to it (socket transport between them, shm within one).
#
#   scripts/netns-hosts.sh up N [--rate 10gbit] [--prefix P] [--subnet 10.77.0] [--host-addr]
#   scripts/netns-hosts.sh down [N] [--prefix P]
#   scripts/netns-hosts.sh list [--prefix P]
#
# up:   namespaces P-h0..P-h(N-1); a bridge P-br in the root namespace; per host a veth pair P-vI (root side, on the
#       bridge) <-> P-eI (inside P-hI) with address SUBNET.(I+1)/24; loopback up in every namespace. --rate shapes
#       both ends of every veth with tbf (egress of the host and egress towards it: a full-duplex link of that rate).
#       --host-addr gives the bridge SUBNET.254/24 so programs in the root namespace (mpirun) reach the hosts.
#       Leftovers of an earlier run with the same prefix are removed first.
# down: removes the namespaces, the bridge and every link named P-*. N is accepted and ignored (symmetry with up).
# list: the namespaces with this prefix and their addresses.
#
# Defaults: --prefix jccl, --subnet 10.77.0. Use a distinct prefix (and subnet, with --host-addr) per concurrent run.
# NCCL_SOCKET_IFNAME=P-e selects the veths inside every host (prefix match). Needs root and iproute2 (ip, tc).
# Run a command on host I:  ip netns exec P-hI <command>      (what `./jccl run --rsh 'ip netns exec'` does)
set -euo pipefail

usage() {
    sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    exit 2
}

die() {
    printf 'netns-hosts: %s\n' "$*" >&2
    exit 1
}

[[ $# -ge 1 ]] || usage
cmd="$1"
shift
n=""
rate=""
prefix="jccl"
subnet="10.77.0"
host_addr=0
while [[ $# -gt 0 ]]; do
    case "$1" in
        --rate) rate="$2"; shift 2 ;;
        --prefix) prefix="$2"; shift 2 ;;
        --subnet) subnet="$2"; shift 2 ;;
        --host-addr) host_addr=1; shift ;;
        -h | --help) usage ;;
        [0-9]*) n="$1"; shift ;;
        *) die "unknown argument '$1'" ;;
    esac
done

[[ "$prefix" =~ ^[A-Za-z][A-Za-z0-9]*$ ]] || die "prefix must be letters and digits, got '$prefix'"
[[ ${#prefix} -le 10 ]] || die "prefix '$prefix' is too long (interface names are limited to 15 characters)"
[[ "$subnet" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "subnet must be three octets like 10.77.0, got '$subnet'"
command -v ip >/dev/null 2>&1 || die "the 'ip' command (iproute2) is missing: apt-get install iproute2"
[[ "$(id -u)" -eq 0 ]] || die "network namespaces need root (run as root or with sudo)"

# Seconds every ip/tc command may take before we give up on it (a wedged netlink call must not hang a test).
T=10

namespaces() {
    ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${prefix}-h[0-9]+$" || true
}

links() {
    ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -E "^${prefix}-(br|v[0-9]+|e[0-9]+)$" || true
}

down() {
    local ns l
    for ns in $(namespaces); do
        # processes left in the namespace (a crashed rank) would keep it alive: end them first
        for pid in $(timeout "$T" ip netns pids "$ns" 2>/dev/null || true); do
            kill -9 "$pid" 2>/dev/null || true
        done
        timeout "$T" ip netns del "$ns" 2>/dev/null || true
    done
    for l in $(links); do
        timeout "$T" ip link del "$l" 2>/dev/null || true
    done
}

# tbf's bucket must hold at least one timer tick of traffic (rate / HZ) or the rate is not reached; 8 MiB covers
# 10 Gbit/s at HZ=250 with room to spare, and at least 256 KiB for slow rates.
shape() {
    local dev="$1" netns="${2:-}"
    local run=(timeout "$T")
    [[ -n "$netns" ]] && run+=(ip netns exec "$netns")
    "${run[@]}" tc qdisc replace dev "$dev" root tbf rate "$rate" burst 8mb latency 20ms
}

up() {
    [[ -n "$n" && "$n" -ge 1 && "$n" -le 200 ]] || die "up needs a host count N in 1..200"
    down
    trap 'down' ERR
    timeout "$T" ip link add "${prefix}-br" type bridge
    timeout "$T" ip link set "${prefix}-br" up
    if [[ "$host_addr" -eq 1 ]]; then
        timeout "$T" ip addr add "${subnet}.254/24" dev "${prefix}-br"
    fi
    local i ns
    for ((i = 0; i < n; i++)); do
        ns="${prefix}-h$i"
        timeout "$T" ip netns add "$ns"
        timeout "$T" ip link add "${prefix}-v$i" type veth peer name "${prefix}-e$i"
        timeout "$T" ip link set "${prefix}-e$i" netns "$ns"
        timeout "$T" ip link set "${prefix}-v$i" master "${prefix}-br"
        timeout "$T" ip link set "${prefix}-v$i" up
        timeout "$T" ip netns exec "$ns" ip link set lo up
        timeout "$T" ip netns exec "$ns" ip addr add "${subnet}.$((i + 1))/24" dev "${prefix}-e$i"
        timeout "$T" ip netns exec "$ns" ip link set "${prefix}-e$i" up
        if [[ -n "$rate" ]]; then
            shape "${prefix}-v$i"
            shape "${prefix}-e$i" "$ns"
        fi
    done
    trap - ERR
    list
}

list() {
    local ns i
    for ns in $(namespaces | sort -V); do
        i="${ns##*-h}"
        printf '%s %s %s-e%s %s\n' "$ns" \
            "$(ip netns exec "$ns" ip -4 -o addr show dev "${prefix}-e$i" 2>/dev/null | awk '{print $4}' | cut -d/ -f1)" \
            "$prefix" "$i" "${rate:-unshaped}"
    done
}

case "$cmd" in
    up) up ;;
    down) down ;;
    list) list ;;
    *) usage ;;
esac
