#!/usr/bin/env bash
# The engine stage of CI (.ci/run runs it after ./jccl test): installs the engines (install.sh), then runs every
# scripts/engines/test-*.sh, each of which starts a real engine (torchrun, mpirun, srun, a new user's Maven build),
# runs verified allReduces and failure cases under it, and exits
#   0   passed (a part that could not run here for an environment reason printed an "engines: X SKIPPED:" line)
#   77  skipped: the engine cannot run on this machine at all (it printed why)
#   else failed (124: it ran past JCCL_ENGINES_TIMEOUT_S, default 420 s; it is then stopped, daemons included)
# Uses the jars ./jccl test or ./jccl build left (builds once first only when sources are newer). Ends with
# "engines: N passed, N failed, N skipped in S s" and exits non-zero when any test failed. Arguments name tests to
# run (e.g. run-all.sh mpirun consumer); none: all of them.
set -uo pipefail
here="$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")"
cd "$here/../.."
start=$SECONDS
limit="${JCCL_ENGINES_TIMEOUT_S:-420}"

t0=$SECONDS
bash "$here/install.sh"
rc=$?
if ((rc != 0)); then
    echo "engines: install.sh exited $rc: an engine it could not install is SKIPPED by its test"
fi
echo "engines: install.sh took $((SECONDS - t0)) s"

# the tools jar ./jccl runs (as its module_jar picks it) and its modification time
jar() {
    local f
    for f in jccl-tools/target/jccl-tools-*.jar; do
        case "$f" in *-tests.jar | *-sources.jar | *-javadoc.jar) continue ;; esac
        [[ -f "$f" ]] && { echo "$f $(stat -c %Y "$f")"; return; }
    done
}
before="$(jar)"
t0=$SECONDS
if ! ./jccl params JCCL_RENDEZVOUS >/dev/null; then
    echo "engines: ./jccl does not run: 0 passed, 1 failed, 0 skipped"
    exit 1
fi
if [[ -n "$before" && "$(jar)" == "$before" ]]; then
    echo "engines: using the jars already built (${before%% *})"
else
    echo "engines: built the jars first ($((SECONDS - t0)) s)"
fi

tests=()
if (($# > 0)); then
    for n in "$@"; do
        [[ -f "$here/test-$n.sh" ]] || { echo "engines: no test $here/test-$n.sh"; exit 2; }
        tests+=("$here/test-$n.sh")
    done
else
    tests=("$here"/test-*.sh)
fi

passed=() failed=() skipped=() partial=()
log="$(mktemp "${TMPDIR:-/tmp}/jccl-engines.XXXXXX")"
trap 'rm -f "$log"' EXIT
for t in "${tests[@]}"; do
    name=$(basename "$t" .sh)
    name=${name#test-}
    echo "engines: $name ..."
    t0=$SECONDS
    timeout -k 60 "$limit" bash "$t" 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    took=$((SECONDS - t0))
    if ((rc == 0)); then
        passed+=("$name")
        if grep -q "SKIPPED:" "$log"; then
            partial+=("$name")
            echo "engines: $name passed in $took s, with parts skipped (SKIPPED lines above)"
        else
            echo "engines: $name passed in $took s"
        fi
    elif ((rc == 77)); then
        skipped+=("$name")
        echo "engines: $name SKIPPED in $took s: $(grep -m 1 -o "SKIPPED: .*" "$log" | cut -c10-)"
    else
        failed+=("$name")
        ((rc == 124 || rc == 137)) && echo "engines: $name ran past $limit s and was stopped"
        echo "engines: $name FAILED (exit code $rc) in $took s"
    fi
done

line="engines: ${#passed[@]} passed, ${#failed[@]} failed, ${#skipped[@]} skipped in $((SECONDS - start)) s"
((${#failed[@]} > 0)) && line+="; failed: ${failed[*]}"
((${#skipped[@]} > 0)) && line+="; skipped: ${skipped[*]}"
((${#partial[@]} > 0)) && line+="; passed with parts skipped: ${partial[*]}"
echo "$line"
((${#failed[@]} == 0))
