#!/usr/bin/env bash
# Engine test: torchrun (torch.distributed.run) starts 4 JVMs of io.jccl.examples.LaunchedAllReduce (the allReduce
# example, with a crash on demand) and JCCL joins them with its torchrun rendezvous:
#   1. --standalone (c10d rendezvous): every rank's sums right, the log shows rendezvous torchrun
#   2. the static rendezvous (--rdzv_backend static, --master_addr/--master_port): the id goes through the agent's
#      own TCPStore on MASTER_PORT
#   3. --max_restarts 1, rank 2 exits with status 3 in attempt 0 only: attempt 1 succeeds, with a fresh id
#   4. rank 2 exits right after init in every attempt: torchrun ends non-zero, the other ranks' errors name rank 2
# Needs ./jccl build first (it builds once here when sources are newer) and torchrun (TORCHRUN, default
# /usr/bin/torchrun from python3-torch). Exits non-zero with a line saying what went wrong; logs are kept then.
# Without torchrun it says "SKIPPED" and exits 77.
set -uo pipefail
here="$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")"
root="$(cd "$here/../.." && pwd)"
torchrun="${TORCHRUN:-/usr/bin/torchrun}"
python="${TORCHRUN_PYTHON:-/usr/bin/python3}"
example=io.jccl.examples.LaunchedAllReduce
count=4096
start=$SECONDS

say() { echo "engines: torchrun: $*"; }
fail() {
    echo "engines: torchrun FAILED: $*"
    say "logs kept in $work"
    exit 1
}

# no torchrun is this machine's matter, not JCCL's: skipped (exit 77, as run-all.sh expects)
if [[ ! -x "$torchrun" ]]; then
    echo "engines: torchrun SKIPPED: no $torchrun (apt-get install python3-torch, or set TORCHRUN)"
    exit 77
fi
work="$(mktemp -d "${TMPDIR:-/tmp}/jccl-torchrun.XXXXXX")"
group=""
cleanup() {
    if [[ -n "$group" ]]; then
        kill -TERM -- "-$group" 2>/dev/null
        sleep 1
        kill -KILL -- "-$group" 2>/dev/null
        group=""
    fi
}
trap 'cleanup' EXIT
trap 'cleanup; exit 130' INT TERM

# Builds now, once, if sources changed, rather than in 4 workers at once.
"$root/jccl" params JCCL_RENDEZVOUS >/dev/null || fail "./jccl does not run (build it with ./jccl build)"

# torchrun starts Python programs unless told not to: --no_python where it exists, else a shim that execs.
help="$("$torchrun" --help 2>&1)"
if grep -q -- '--no[-_]python' <<<"$help"; then
    entry=(--no_python "$root/jccl")
else
    printf 'import os, sys\nos.execvp(sys.argv[1], sys.argv[1:])\n' >"$work/exec.py"
    entry=("$work/exec.py" "$root/jccl")
fi

free_port() {
    "$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Runs torchrun in a process group of its own (its workers join it), at most 120 s; sets rc. Worker stdout is teed
# to the console, stderr kept in the log files (-r 2 -t 1: Debian's torch 1.13 on Python 3.11 cannot parse -r 3
# nor the default 0).
run_torchrun() {
    local name="$1"
    shift
    mkdir -p "$work/$name"
    setsid env NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=BOOTSTRAP JCCL_TIMEOUT_MS=60000 "$@" \
        "$torchrun" --nproc_per_node 4 --monitor_interval 2 -r 2 -t 1 --log_dir "$work/$name/logs" \
        "${rdzv[@]}" "${entry[@]}" java "$example" "$count" >"$work/$name/console.log" 2>&1 &
    group=$!
    local waited=0
    while kill -0 "$group" 2>/dev/null && ((waited < 1200)); do
        sleep 0.1
        waited=$((waited + 1))
    done
    if kill -0 "$group" 2>/dev/null; then
        cleanup
        fail "$name: torchrun did not finish in 120 s (console: $work/$name/console.log)"
    fi
    wait "$group"
    rc=$?
    cleanup
}

# log <case> <attempt> <local rank> <stdout|stderr>: the worker's log file.
log() {
    local f
    f="$(ls "$work/$1/logs"/*/"attempt_$2/$3/$4.log" 2>/dev/null | head -n 1)"
    [[ -n "$f" ]] || fail "$1: no $4 log of rank $3 in attempt $2 under $work/$1/logs"
    echo "$f"
}

# Every rank of the attempt printed correct sums and took rendezvous torchrun.
check_correct() {
    local name="$1" attempt="$2" r out err
    for r in 0 1 2 3; do
        out="$(log "$name" "$attempt" "$r" stdout)"
        err="$(log "$name" "$attempt" "$r" stderr)"
        grep -q "^Device $r correctly received sum: 6$" "$out" \
            && grep -q "^Device $r correctly received sum: 10$" "$out" \
            || fail "$name: rank $r of attempt $attempt has no correct sums ($out)"
        grep -q "^Rank $r: allReduce of $count floats over 4 ranks took .* 0 wrong elements$" "$out" \
            || fail "$name: rank $r of attempt $attempt has no correct allReduce ($out)"
        grep -q "environment launch (torchrun, rendezvous torchrun): rank $r of 4" "$err" \
            || fail "$name: rank $r of attempt $attempt did not take rendezvous torchrun ($err)"
    done
}

# The communicator id rank <r> printed in <attempt>.
comm_id() {
    sed -n "s/^rank $3 attempt $2: communicator \([0-9a-f]*\) of 4 ranks$/\1/p" "$(log "$1" "$2" "$3" stdout)"
}

# --standalone's c10d store takes port 29400; when that is busy (another run), the same rendezvous on a free port.
standalone() {
    if "$python" -c 'import socket; socket.create_server(("127.0.0.1", 29400)).close()' 2>/dev/null; then
        rdzv=(--standalone)
    else
        rdzv=(--nnodes 1 --rdzv_backend c10d --rdzv_endpoint "127.0.0.1:$(free_port)")
        say "port 29400 is busy: the c10d rendezvous of --standalone on a free port instead"
    fi
}

# 1. --standalone.
standalone
t0=$SECONDS
run_torchrun standalone
((rc == 0)) || fail "standalone: torchrun exited $rc (console: $work/standalone/console.log)"
check_correct standalone 0
mode="$(grep -ho "torchrun: no agent store[^,]*\|in the agent's store at [^ ]* ([^)]*)" \
    "$(log standalone 0 0 stderr)" | head -n 1)"
say "standalone: 4 ranks correct, rendezvous torchrun ($mode) in $((SECONDS - t0)) s"

# 2. The static rendezvous: the agent serves a TCPStore on MASTER_PORT; the id must go through it.
rdzv=(--nnodes 1 --rdzv_backend static --master_addr 127.0.0.1 --master_port "$(free_port)" --node_rank 0)
t0=$SECONDS
run_torchrun static
((rc == 0)) || fail "static: torchrun exited $rc (console: $work/static/console.log)"
check_correct static 0
store="$(grep -ho "in the agent's store at [^ ]* ([^)]*)" "$(log static 0 0 stderr)" | head -n 1)"
[[ -n "$store" ]] || fail "static: rank 0 did not publish the id in the agent's store ($(log static 0 0 stderr))"
for r in 1 2 3; do
    grep -q "got the communicator id from key /jccl/.*/attempt_0/unique_id/0" "$(log static 0 "$r" stderr)" \
        || fail "static: rank $r did not get the id from the agent's store"
done
say "static: 4 ranks correct, id $store in $((SECONDS - t0)) s"

# 3. A restart: rank 2 dies in attempt 0 only; attempt 1 must re-form the communicator with a fresh id.
rdzv=(--nnodes 1 --rdzv_backend static --master_addr 127.0.0.1 --master_port "$(free_port)" --node_rank 0
    --max_restarts 1)
t0=$SECONDS
run_torchrun restart EXAMPLE_EXIT_RANK=2 EXAMPLE_EXIT_ATTEMPT=0 EXAMPLE_EXIT_CODE=3
((rc == 0)) || fail "restart: torchrun exited $rc; attempt 1 should have succeeded ($work/restart/console.log)"
grep -q "^rank 2 attempt 0: exiting with status 3" "$(log restart 0 2 stdout)" \
    || fail "restart: rank 2 did not exit in attempt 0"
check_correct restart 1
id0="$(comm_id restart 0 0)"
id1="$(comm_id restart 1 0)"
[[ -n "$id0" && -n "$id1" && "$id0" != "$id1" ]] || fail "restart: attempt 0 had communicator '$id0', attempt 1 '$id1'"
for r in 1 2 3; do
    [[ "$(comm_id restart 1 "$r")" == "$id1" ]] || fail "restart: rank $r of attempt 1 is not in communicator $id1"
done
grep -q "key /jccl/.*/attempt_1/unique_id/0" "$(log restart 1 0 stderr)" || fail "restart: attempt 1 used no fresh key"
say "restart: rank 2 exited 3 in attempt 0 (communicator $id0); attempt 1 re-formed as $id1, 4 ranks correct," \
    "in $((SECONDS - t0)) s"

# 4. A rank that dies after init every time: the job fails, and the others say which rank it was: by pid and host
# when they learnt it, by address when the others were still finishing init (as rank 2 leaves the moment its own
# init returns).
named_rank2="rank 2 \((pid [0-9]+ on [^)]*|at [^)]*)\) exited without closing the communicator"
standalone
rdzv+=(--max_restarts 1)
t0=$SECONDS
run_torchrun failure EXAMPLE_EXIT_RANK=2 EXAMPLE_EXIT_CODE=3
((rc != 0)) || fail "failure: torchrun exited 0 although rank 2 died in every attempt"
named=0
for attempt in 0 1; do
    grep -q "^rank 2 attempt $attempt: exiting with status 3" "$(log failure "$attempt" 2 stdout)" \
        || fail "failure: rank 2 did not exit in attempt $attempt"
    for r in 0 1 3; do
        err="$(log failure "$attempt" "$r" stderr)"
        grep -Eq "$named_rank2" "$err" \
            || fail "failure: rank $r of attempt $attempt does not name rank 2 ($err)"
        named=$((named + 1))
    done
done
say "failure: torchrun exited $rc after 2 attempts; all $named surviving ranks' errors name rank 2, e.g.:"
grep -Eho "$named_rank2[^;]*" "$(log failure 1 0 stderr)" \
    | head -n 1 | sed 's/^/engines: torchrun:   /'
say "passed 4 cases in $((SECONDS - start)) s"
echo "engines: torchrun passed"
rm -rf "$work"
