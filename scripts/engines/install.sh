#!/usr/bin/env bash
# Installs the engines the engine tests run for real, from Debian's packages: torchrun (python3-torch), Open MPI's
# mpirun with PMIx (openmpi-bin, libpmix-dev), a single-node Slurm (slurm-wlm, munge). Needs root; does nothing for
# what is already there. Without recommended packages (--no-install-recommends: no libtorch-dev, GTK, Qt, Slurm's
# optional plugins): on Debian 12, 207 packages, 163 MB to download, 662 MB installed (with recommends: 284, 201 MB
# and 863 MB). Exits 2 when something is missing and cannot be installed; the tests then say SKIPPED for it.
set -euo pipefail
want=()
command -v torchrun >/dev/null || want+=(python3-torch)
command -v mpirun >/dev/null || want+=(openmpi-bin)
# Open MPI 4.1's mpirun refuses to start even local ranks without an ssh or rsh to launch with (a recommendation of
# openmpi-bin, so named here)
command -v ssh >/dev/null || command -v rsh >/dev/null || want+=(openssh-client)
[[ -e /usr/lib/x86_64-linux-gnu/libpmix.so.2 || -n "$(ls /usr/lib/*/libpmix.so.2 2>/dev/null)" ]] || want+=(libpmix-dev)
command -v slurmd >/dev/null || want+=(slurm-wlm)
command -v munged >/dev/null || want+=(munge)
if ((${#want[@]} == 0)); then
    echo "engines: torchrun, mpirun (and ssh), libpmix, slurm and munge are installed"
    exit 0
fi
if [[ $(id -u) != 0 ]]; then
    echo "engines: missing ${want[*]} and not root: install them (apt-get install ${want[*]})" >&2
    exit 2
fi
echo "engines: installing ${want[*]} (apt-get install --no-install-recommends)"
export DEBIAN_FRONTEND=noninteractive
log="$(mktemp "${TMPDIR:-/tmp}/jccl-engines-apt.XXXXXX")"
start=$SECONDS
apt-get update -q >"$log" 2>&1 || echo "engines: apt-get update failed; installing from the package lists there are"
if ! apt-get install -y -q --no-install-recommends "${want[@]}" >>"$log" 2>&1; then
    tail -n 20 "$log" >&2
    echo "engines: apt-get install failed (log: $log)" >&2
    exit 2
fi
echo "engines: installed in $((SECONDS - start)) s: $(grep -E '^[0-9]+ upgraded, [0-9]+ newly installed' "$log")" \
    "$(grep -E '^(Need to get|After this operation)' "$log" | tr '\n' ' ')"
rm -f "$log"
