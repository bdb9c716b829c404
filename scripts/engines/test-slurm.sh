#!/usr/bin/env bash
# Engine test: a single-node Slurm of its own (munged with a generated key, slurmctld and slurmd with a minimal
# slurm.conf in a temporary directory, on ports of their own), then srun -n 4 --mpi=pmix (rendezvous pmix) and
# srun -n 4 --mpi=none (rendezvous slurm: the step's first host) of a verified allReduce, a rank that leaves under
# each, and the sbatch job script of docs/launchers.md. Stops the daemons and removes the files at exit. When Slurm
# cannot run here (not installed, not root, a daemon that does not start, srun that cannot start `true`) it prints
# "engines: slurm SKIPPED: <why>" and exits 77; when only srun --mpi=pmix cannot, the rest runs and it exits 0 with
# such a line (JCCL_ENGINES_REQUIRE_SLURM=1 makes every skip a failure). Any failure prints "engines: slurm FAILED:"
# and exits 1. Run after ./jccl build.
set -uo pipefail
here="$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")"
cd "$here/../.."
repo="$PWD"

fail() {
    echo "engines: slurm FAILED: $*"
    exit 1
}

skip() {
    echo "engines: slurm SKIPPED: $*"
    if [[ "${JCCL_ENGINES_REQUIRE_SLURM:-0}" == 1 ]]; then
        fail "JCCL_ENGINES_REQUIRE_SLURM=1 and a part could not run: $*"
    fi
}

for c in munged munge slurmctld slurmd srun sbatch scontrol sinfo; do
    command -v "$c" >/dev/null || { skip "$c is not installed (scripts/engines/install.sh installs slurm-wlm, munge)"
        exit 77; }
done
if [[ $(id -u) != 0 ]]; then
    skip "slurmd must run as root to start jobs, and this is uid $(id -u)"
    exit 77
fi
./jccl params JCCL_RENDEZVOUS >/dev/null || fail "./jccl does not run (build it with ./jccl build)"

# a Slurm job of the caller's (CI inside Slurm) must not leak into ours
while read -r v; do unset "$v"; done < <(compgen -e | grep -E '^(SLURM_|PMIX_|PMI_|OMPI_)')
unset JCCL_COMM_ID NCCL_COMM_ID MASTER_ADDR MASTER_PORT RANK WORLD_SIZE JCCL_RANK JCCL_WORLD_SIZE JCCL_RENDEZVOUS \
    JCCL_COMM_SECRET EXAMPLE_EXIT_RANK EXAMPLE_EXIT_ATTEMPT \
    EXAMPLE_EXIT_CODE TORCHELASTIC_RESTART_COUNT

work="$(mktemp -d "${TMPDIR:-/tmp}/jccl-slurm.XXXXXX")"
chmod 755 "$work"
mkdir -p "$work/munge-key" "$work/munge" "$work/state" "$work/spool" "$work/log" "$work/out"
chmod 700 "$work/munge-key"
chmod 755 "$work/munge"
export SLURM_CONF="$work/slurm.conf"

cleanup() {
    if [[ -f "$work/slurmctld.pid" ]]; then
        timeout 20 scontrol shutdown >/dev/null 2>&1
    fi
    local f pid
    for f in "$work/slurmd.pid" "$work/slurmctld.pid" "$work/munge/munged.pid"; do
        pid="$(cat "$f" 2>/dev/null)" || continue
        for _ in $(seq 20); do
            kill -0 "$pid" 2>/dev/null || break
            kill "$pid" 2>/dev/null
            sleep 0.5
        done
        kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
    done
    rm -rf "$work"
}
trap cleanup EXIT

daemon_logs() {
    local f
    for f in "$work/munge/munged.log" "$work/log/slurmctld.log" "$work/log/slurmd.log"; do
        [[ -f "$f" ]] && { echo "--- $f"; tail -n 8 "$f"; }
    done
}

# --- munge, slurmctld, slurmd ---------------------------------------------------------------------------------
dd if=/dev/urandom of="$work/munge-key/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$work/munge-key/munge.key"
sock="$work/munge/munge.sock"
if ! munged --force --key-file="$work/munge-key/munge.key" --socket="$sock" --pid-file="$work/munge/munged.pid" \
    --log-file="$work/munge/munged.log" --seed-file="$work/munge/munged.seed" 2>"$work/munge/start.err"; then
    cat "$work/munge/start.err"
    daemon_logs
    skip "munged does not start here: $(tail -n 1 "$work/munge/start.err")"
    exit 77
fi
munge -S "$sock" -n | unmunge -S "$sock" >/dev/null 2>&1 || { daemon_logs; skip "munge cannot encode/decode here"
    exit 77; }

host="$(hostname -s)"
port=$((17000 + ($$ % 1000) * 2))
cat >"$SLURM_CONF" <<EOF
# minimal single-node Slurm for JCCL's engine test: 4 CPUs declared whatever the hardware has
ClusterName=jccl$$
# job ids (and so the slurm rendezvous' derived root ports) apart from another such test's on this host
FirstJobId=$((1000 + $$ % 30000 * 3))
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SlurmdParameters=config_overrides
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=4 State=UNKNOWN
PartitionName=jccl Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
slurmctld -f "$SLURM_CONF" 2>"$work/log/slurmctld.err" || { cat "$work/log/slurmctld.err"; daemon_logs
    skip "slurmctld does not start here (see above)"; exit 77; }
slurmd -f "$SLURM_CONF" 2>"$work/log/slurmd.err" || { cat "$work/log/slurmd.err"; daemon_logs
    skip "slurmd does not start here (see above)"; exit 77; }
state=""
for _ in $(seq 60); do
    state="$(sinfo -h -n "$host" -o %t 2>/dev/null)"
    [[ "$state" == idle ]] && break
    sleep 0.5
done
if [[ "$state" != idle ]]; then
    daemon_logs
    skip "the node did not become idle in 30 s (state '${state:-none}'; logs above)"
    exit 77
fi
timeout 60 srun -n 1 true >"$work/out/true.log" 2>&1 || { cat "$work/out/true.log"; daemon_logs
    skip "srun cannot start a task here (see above)"; exit 77; }
echo "engines: slurm: single-node Slurm up (slurmctld on port $port, node $host with 4 CPUs)"

# $1 a case's output directory, $2 task, $3 out or err, $4 fixed text: that task's stream holds the text
has() {
    grep -qF -- "$4" "$1/$3.$2" 2>/dev/null
}

show() {
    tail -n 15 "$1/$3.$2" 2>/dev/null
    tail -n 15 "$1/srun.log" 2>/dev/null
}

# $1 case name, $2 --mpi value, then the program's arguments: runs srun -n 4 into out/<case>/
run_srun() {
    local name="$1" mpi="$2"
    shift 2
    local dir="$work/out/$name"
    mkdir -p "$dir"
    timeout 240 srun -n 4 --mpi="$mpi" -o "$dir/out.%t" -e "$dir/err.%t" ./jccl java "$@" >"$dir/srun.log" 2>&1
}

# 1 and 2. four verified ranks under each rendezvous
pmix=1
timeout 60 srun -n 1 --mpi=pmix true >"$work/out/pmix-probe.log" 2>&1 || pmix=0
if ((pmix == 0)); then
    cat "$work/out/pmix-probe.log"
    skip "srun --mpi=pmix cannot start a task here (the mpi/pmix plugin; see above): pmix parts not run"
fi
modes=()
((pmix)) && modes+=("pmix:pmix")
modes+=("none:slurm")
for m in "${modes[@]}"; do
    mpi="${m%%:*}" rv="${m#*:}" dir="$work/out/allreduce-$mpi"
    NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=BOOTSTRAP run_srun "allreduce-$mpi" "$mpi" \
        io.jccl.examples.AllReduceExample 4096
    rc=$?
    ((rc == 0)) || { show "$dir" 0 err; fail "srun -n 4 --mpi=$mpi AllReduceExample exited $rc"; }
    for r in 0 1 2 3; do
        has "$dir" $r out "Rank $r: allReduce of 4096 floats over 4 ranks" && has "$dir" $r out ", 0 wrong elements" \
            || { show "$dir" $r out; fail "--mpi=$mpi: rank $r: no verified allReduce"; }
        has "$dir" $r out "Device $r correctly received sum: 6" || fail "--mpi=$mpi: rank $r: wrong two-element sum"
        has "$dir" $r err "environment launch (srun (Slurm), rendezvous $rv): rank $r of 4" \
            || { show "$dir" $r err; fail "--mpi=$mpi: rank $r did not use rendezvous $rv"; }
    done
    echo "engines: slurm: srun -n 4 --mpi=$mpi: 4 ranks verified (allReduce of 4096 floats), rendezvous $rv"
done

# 3. rank 2 exits with status 3 right after joining: the step fails, every survivor's error names rank 2
for m in "${modes[@]}"; do
    mpi="${m%%:*}" dir="$work/out/exit-$mpi"
    EXAMPLE_EXIT_RANK=2 run_srun "exit-$mpi" "$mpi" io.jccl.examples.LaunchedAllReduce 4096
    rc=$?
    ((rc != 0 && rc != 124)) || { show "$dir" 0 err; fail "--mpi=$mpi: a step with a leaving rank exited $rc"; }
    has "$dir" 2 out "rank 2 attempt 0: exiting with status 3 (EXAMPLE_EXIT_RANK)" || fail "--mpi=$mpi: no exit"
    grep -q "task 2: Exited with exit code 3" "$dir/srun.log" || { cat "$dir/srun.log"; fail "srun: no exit code 3"; }
    for r in 0 1 3; do
        has "$dir" $r out "rank $r attempt 0: communicator " || fail "--mpi=$mpi: rank $r did not join"
        has "$dir" $r out "correctly received sum" && fail "--mpi=$mpi: rank $r finished an allReduce without rank 2"
        has "$dir" $r err "LaunchedAllReduce: rank 2 " || { show "$dir" $r err; fail "--mpi=$mpi: survivor $r"; }
    done
    first="$(grep -h "LaunchedAllReduce: rank 2" "$dir/err.0" | head -1 | cut -c1-100)"
    echo "engines: slurm: --mpi=$mpi, rank 2 left: srun exited $rc, all 3 survivors name rank 2 ($first...)"
done

# 4. the sbatch job script of docs/launchers.md
mpi=none
((pmix)) && mpi=pmix
cat >"$work/job.sh" <<EOF
#!/bin/bash
#SBATCH --job-name=jccl-allreduce
#SBATCH --nodes=1
#SBATCH --ntasks=4
srun --mpi=$mpi ./jccl java io.jccl.examples.AllReduceExample 4096
EOF
timeout 240 sbatch --wait --chdir="$repo" -o "$work/out/batch.out" -e "$work/out/batch.err" "$work/job.sh" \
    >"$work/out/sbatch.log" 2>&1
rc=$?
((rc == 0)) || { cat "$work/out/sbatch.log"; tail -n 20 "$work/out/batch.err" "$work/out/batch.out"
    fail "sbatch of the job script exited $rc"; }
n="$(grep -c "allReduce of 4096 floats over 4 ranks took .* 0 wrong elements" "$work/out/batch.out")"
((n == 4)) || { tail -n 20 "$work/out/batch.out"; fail "the sbatch job verified $n of 4 ranks"; }
echo "engines: slurm: sbatch --ntasks=4 with srun --mpi=$mpi: 4 ranks verified"
((pmix)) || { skip "srun --mpi=pmix parts did not run (see above); the rest passed"; exit 0; }
echo "engines: slurm passed"
