#!/usr/bin/env bash
# The engine stage of CI: each scripts/engines/test-*.sh starts a real engine (torchrun, mpirun, srun, ...), runs a
# verified allReduce and a failure case under it, and exits non-zero when either goes wrong. Run after ./jccl build.
set -uo pipefail
here="$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")"
cd "$here/../.."
bash "$here/install.sh" || exit $?
failed=()
start=$SECONDS
for t in "$here"/test-*.sh; do
    name=$(basename "$t" .sh)
    echo "engines: $name ..."
    t0=$SECONDS
    if timeout 900 bash "$t"; then
        echo "engines: $name passed in $((SECONDS - t0)) s"
    else
        echo "engines: $name FAILED (rc $?) in $((SECONDS - t0)) s"
        failed+=("$name")
    fi
done
echo "engines: ${#failed[@]} failed of $(ls "$here"/test-*.sh | wc -l) in $((SECONDS - start)) s ${failed[*]:-}"
((${#failed[@]} == 0))
