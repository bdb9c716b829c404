#!/usr/bin/env bash
# Compiles the CUDA C kernels of jccl-cuda to PTX for compute capability 9.0 (the driver JIT-compiles the PTX for
# the GPU at hand when io.jccl.cuda loads it with cuModuleLoadData). The PTX files are committed, so machines
# without nvcc build the module unchanged; run this after editing src/main/cuda/*.cu and commit the result.
#   jccl-cuda/build-ptx.sh [output-dir]      (default: src/main/resources/io/jccl/cuda/kernels)
# Needs nvcc (CUDA 12.x or 13.x); no GPU is needed. Also assembles each PTX with ptxas for sm_90 to catch errors
# that would otherwise only show up at JIT time on the GPU machine.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src="$here/src/main/cuda"
out="${1:-$here/src/main/resources/io/jccl/cuda/kernels}"
nvcc=${NVCC:-nvcc}
command -v "$nvcc" >/dev/null || { echo "build-ptx.sh: nvcc not found (set NVCC or add CUDA's bin to PATH)" >&2; exit 2; }
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
build() {
  local name; name=$(basename "$1" .cu)
  "$nvcc" -ptx -arch=compute_90 -std=c++17 -O3 -I"$src" -o "$out/$name.ptx" "$1"
  ptxas -arch=sm_90 -O3 ${PTXAS_VERBOSE:+-v} -o "$tmp/$name.cubin" "$out/$name.ptx"
}
pids=()
for cu in "$src"/*.cu; do
  build "$cu" & pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
echo "build-ptx.sh: $(ls "$out"/*.ptx | wc -l) PTX files in $out"
