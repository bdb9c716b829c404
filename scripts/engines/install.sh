#!/usr/bin/env bash
# Installs the engines the engine tests run for real, from Debian's packages: torchrun (python3-torch), Open MPI's
# mpirun with PMIx (openmpi-bin, libpmix-dev), a single-node Slurm (slurm-wlm, munge). Needs root; does nothing for
# what is already there.
set -euo pipefail
want=()
command -v torchrun >/dev/null || want+=(python3-torch)
command -v mpirun >/dev/null || want+=(openmpi-bin)
[[ -e /usr/lib/x86_64-linux-gnu/libpmix.so.2 || -n "$(ls /usr/lib/*/libpmix.so.2 2>/dev/null)" ]] || want+=(libpmix-dev)
command -v slurmd >/dev/null || want+=(slurm-wlm)
command -v munged >/dev/null || want+=(munge)
if ((${#want[@]} == 0)); then
    echo "engines: torchrun, mpirun, libpmix, slurm and munge are installed"
    exit 0
fi
if [[ $(id -u) != 0 ]]; then
    echo "engines: missing ${want[*]} and not root: install them (apt-get install ${want[*]})" >&2
    exit 2
fi
echo "engines: installing ${want[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null || true
apt-get install -y -q "${want[@]}" >/tmp/jccl-engines-apt.log 2>&1 || {
    tail -20 /tmp/jccl-engines-apt.log >&2
    exit 2
}
