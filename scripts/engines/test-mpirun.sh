#!/usr/bin/env bash
# Engine test: Open MPI's mpirun starts JVMs with nothing set by hand; JCCL finds the pmix rendezvous (PMIx put,
# fence, get of the id), runs a verified allReduce, and fails cleanly when a rank leaves or a process never reaches
# the fence. Exits non-zero with an "engines: mpirun FAILED:" line on any failure, 77 ("SKIPPED") without mpirun.
# Run after ./jccl build.
set -uo pipefail
here="$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")"
cd "$here/../.."
work="$(mktemp -d "${TMPDIR:-/tmp}/jccl-mpirun.XXXXXX")"
trap 'rm -rf "$work"' EXIT

fail() {
    echo "engines: mpirun FAILED: $*"
    exit 1
}

if ! command -v mpirun >/dev/null; then
    echo "engines: mpirun SKIPPED: mpirun is not installed (scripts/engines/install.sh installs openmpi-bin)"
    exit 77
fi
./jccl params JCCL_RENDEZVOUS >/dev/null || fail "./jccl does not run (build it with ./jccl build)"
# nothing that names a root or a rank: the rendezvous must come from mpirun alone
clean=(env -u JCCL_COMM_ID -u NCCL_COMM_ID -u MASTER_ADDR -u MASTER_PORT -u RANK -u WORLD_SIZE -u JCCL_RANK
    -u JCCL_WORLD_SIZE -u JCCL_RENDEZVOUS -u JCCL_COMM_SECRET -u EXAMPLE_EXIT_RANK -u EXAMPLE_EXIT_ATTEMPT
    -u EXAMPLE_EXIT_CODE -u TORCHELASTIC_RESTART_COUNT)
mpi=(mpirun --allow-run-as-root --oversubscribe)

# 0. the struct layouts Pmix.java hard-codes (PROC_BYTES, PROC_RANK, VALUE_BYTES, VALUE_DATA, INFO_BYTES,
# INFO_VALUE) against the installed headers, when gcc and pmix.pc are here
if command -v gcc >/dev/null && pkg-config --exists pmix 2>/dev/null; then
    cat >"$work/layout.c" <<'EOF'
#include <stdio.h>
#include <stddef.h>
#include <pmix.h>
int main(void) {
    printf("%zu %zu %zu %zu %zu %zu\n", sizeof(pmix_proc_t), offsetof(pmix_proc_t, rank), sizeof(pmix_value_t),
           offsetof(pmix_value_t, data), sizeof(pmix_info_t), offsetof(pmix_info_t, value));
    return 0;
}
EOF
    # shellcheck disable=SC2046 # pkg-config's flags are several words
    gcc $(pkg-config --cflags pmix) -o "$work/layout" "$work/layout.c" || fail "cannot compile against pmix.h"
    got="$("$work/layout")"
    [[ "$got" == "260 256 32 8 552 520" ]] || fail "the installed pmix.h has other struct layouts ($got) than Pmix.java"
    echo "engines: mpirun: PMIx struct layouts match pmix.h (sizeof/offsetof: $got)"
else
    echo "engines: mpirun: gcc or pmix.pc missing: struct layouts not compared with pmix.h"
fi

# $1 a case's output directory (mpirun --output-filename), $2 rank, $3 stdout or stderr, $4 fixed text: that
# rank's stream holds the text
has() {
    cat "$1"/*/rank."$2"/"$3" 2>/dev/null | grep -qF -- "$4"
}

# the rank's stream, for a failure's message
show() {
    tail -n 15 "$1"/*/rank."$2"/"$3" 2>/dev/null
    tail -n 15 "$1.mpirun"
}

# 1. four ranks, the id shared over PMIx
log="$work/allreduce"
"${clean[@]}" NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=BOOTSTRAP timeout 240 "${mpi[@]}" --output-filename "$log" -np 4 \
    ./jccl java io.jccl.examples.AllReduceExample 4096 >"$log.mpirun" 2>&1
rc=$?
((rc == 0)) || { show "$log" 0 stderr; fail "mpirun -np 4 AllReduceExample exited $rc"; }
for r in 0 1 2 3; do
    has "$log" $r stdout "Rank $r: allReduce of 4096 floats over 4 ranks" || fail "rank $r printed no allReduce"
    has "$log" $r stdout "4 ranks took" && has "$log" $r stdout ", 0 wrong elements" \
        || { show "$log" 0 stderr; fail "rank $r: wrong elements"; }
    has "$log" $r stdout "Device $r correctly received sum: 6" || fail "rank $r: wrong two-element sum"
    has "$log" $r stderr "environment launch (mpirun (Open MPI), rendezvous pmix): rank $r of 4" \
        || { show "$log" $r stderr; fail "rank $r did not use rendezvous pmix"; }
    has "$log" $r stderr "PMIx: id shared over namespace" || fail "rank $r: no PMIx exchange in the log"
done
if grep -qi "finaliz" "$log.mpirun"; then
    grep -i "finaliz" "$log.mpirun" | head -3
    fail "mpirun complains about finalize"
fi
echo "engines: mpirun: 4 ranks verified (allReduce of 4096 floats), rendezvous pmix on every rank"

# 2. placement from PMIx alone (no OMPI_COMM_WORLD_* variables): job size, local rank and size from PMIx_Get
log="$work/pmix-placement"
"${clean[@]}" NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=BOOTSTRAP timeout 240 "${mpi[@]}" --output-filename "$log" -np 2 env \
    -u OMPI_COMM_WORLD_RANK -u OMPI_COMM_WORLD_SIZE -u OMPI_COMM_WORLD_LOCAL_RANK -u OMPI_COMM_WORLD_LOCAL_SIZE \
    ./jccl java io.jccl.examples.AllReduceExample 1024 >"$log.mpirun" 2>&1
rc=$?
((rc == 0)) || { show "$log" 0 stderr; fail "mpirun -np 2 without OMPI_COMM_WORLD_* exited $rc"; }
for r in 0 1; do
    has "$log" $r stderr "PMIx: namespace" && has "$log" $r stderr "rank $r of 2, local rank $r of 2" \
        || { show "$log" 0 stderr; fail "rank $r: placement not read from PMIx"; }
    has "$log" $r stderr "environment launch (PMIx, rendezvous pmix): rank $r of 2" || fail "rank $r: launcher"
    has "$log" $r stdout ", 0 wrong elements" || fail "rank $r: wrong elements"
done
echo "engines: mpirun: placement from PMIx alone (pmix.job.size, pmix.lrank, pmix.local.size) verified"

# 3. rank 2 exits with status 3 right after joining; mpirun aborts the job, the survivors' errors name rank 2
log="$work/exit"
"${clean[@]}" EXAMPLE_EXIT_RANK=2 timeout 240 "${mpi[@]}" --output-filename "$log" -np 4 \
    ./jccl java io.jccl.examples.LaunchedAllReduce 4096 >"$log.mpirun" 2>&1
rc=$?
((rc != 0 && rc != 124)) || { show "$log" 0 stderr; fail "the job with a leaving rank exited $rc (expected non-zero)"; }
has "$log" 2 stdout "rank 2 attempt 0: exiting with status 3 (EXAMPLE_EXIT_RANK)" || fail "rank 2 did not leave"
grep -q "Exit code: *3" "$log.mpirun" || { show "$log" 0 stderr; fail "mpirun did not report rank 2's exit code 3"; }
named=0
for r in 0 1 3; do
    has "$log" $r stdout "rank $r attempt 0: communicator " || fail "rank $r did not join"
    has "$log" $r stdout "correctly received sum" && fail "rank $r finished an allReduce without rank 2"
    has "$log" $r stderr "LaunchedAllReduce: rank 2 " && named=$((named + 1))
done
((named >= 1)) || { show "$log" 0 stderr; fail "no survivor's error names rank 2"; }
echo "engines: mpirun: rank 2 left: job exited $rc, $named of 3 survivors reported rank 2 before mpirun ended them"

# 3b. the same with mpirun's abort off, every survivor's own exit code and error checked
log="$work/exit-all"
"${clean[@]}" EXAMPLE_EXIT_RANK=2 timeout 240 "${mpi[@]}" --output-filename "$log" \
    --mca orte_abort_on_non_zero_status 0 -np 4 \
    bash -c './jccl java io.jccl.examples.LaunchedAllReduce 4096; echo "exit code $?"' >"$log.mpirun" 2>&1
for r in 0 1 3; do
    has "$log" $r stdout "exit code 1" || { show "$log" 0 stderr; fail "survivor $r did not exit 1"; }
    has "$log" $r stderr "LaunchedAllReduce: rank 2 " || { show "$log" $r stderr; fail "survivor $r: no rank 2"; }
done
has "$log" 2 stdout "exit code 3" || fail "rank 2 did not exit 3"
first="$(grep -h LaunchedAllReduce "$log"/*/rank.0/stderr | head -1 | cut -c1-110)"
echo "engines: mpirun: rank 2 left: all 3 survivors exited 1 with an error naming rank 2 ($first...)"

# 4. a process that never reaches the fence: rank 0 gives up at JCCL_TIMEOUT_MS with a TIMEOUT naming the call
log="$work/fence"
"${clean[@]}" JCCL_TIMEOUT_MS=12000 timeout 120 "${mpi[@]}" --output-filename "$log" -np 2 bash -c \
    'if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then sleep 60; else
         exec ./jccl java io.jccl.examples.AllReduceExample 64; fi' \
    >"$log.mpirun" 2>&1
rc=$?
((rc != 0 && rc != 124)) || { show "$log" 0 stderr; fail "a fence one rank never reaches ended with $rc"; }
has "$log" 0 stderr "still waiting in PMIx_Fence after 10 s" || { show "$log" 0 stderr; fail "no 10 s wait line"; }
has "$log" 0 stderr "PMIx: PMIx_Fence of rank 0 in namespace" && has "$log" 0 stderr "timed out after" \
    || { show "$log" 0 stderr; fail "rank 0's error is not a fence timeout"; }
first="$(grep -h AllReduceExample "$log"/*/rank.0/stderr | head -1 | cut -c1-120)"
echo "engines: mpirun: a fence rank 1 never reaches: rank 0 timed out ($first...)"
echo "engines: mpirun passed"
