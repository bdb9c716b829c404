#!/usr/bin/env bash
# Compiles the CUDA C kernels of jccl-cuda to PTX for compute capability 9.0 (the driver JIT-compiles the PTX for
# the GPU at hand when io.jccl.cuda loads a module). The PTX files are committed, so machines without nvcc build
# the module unchanged; run this after editing src/main/cuda/* and commit the result.
#   jccl-cuda/build-ptx.sh [output-dir]      (default: src/main/resources/io/jccl/cuda/kernels)
#   ONLY="copy reduce_f32_sum" jccl-cuda/build-ptx.sh DIR   builds only the modules named
# Modules: reduce_<type>_<sum|any>.ptx (kernels_reduce.cu once per element type and operation class) and copy.ptx
# (kernels_copy.cu). Needs nvcc (CUDA 12.x or 13.x), no GPU. Unless PTXAS_CHECK=0, also assembles each PTX with
# ptxas for sm_90 to catch errors that would otherwise only show up at JIT time on the GPU machine.
# Each module starts with a "// jccl-sources sha256 <digest>" line: the digest of every file of src/main/cuda (in
# byte order of their names), so PtxRegenerationTest tells stale PTX without compiling every module.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src="$here/src/main/cuda"
out="${1:-$here/src/main/resources/io/jccl/cuda/kernels}"
nvcc=${NVCC:-nvcc}
command -v "$nvcc" >/dev/null || { echo "build-ptx.sh: nvcc not found (set NVCC or add CUDA's bin to PATH)" >&2; exit 2; }
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
jobs=${JOBS:-$(nproc)}

digest=$(cd "$src" && LC_ALL=C ls | while IFS= read -r f; do cat "$f"; done | sha256sum | cut -d' ' -f1)

# <module> <source> [-D...]: one PTX module, checked with ptxas.
build() {
  local name=$1 cu=$2
  shift 2
  "$nvcc" -ptx -arch=compute_90 -std=c++17 -O3 -I"$src" "$@" -o "$tmp/$name.ptx" "$src/$cu"
  { echo "// jccl-sources sha256 $digest"; cat "$tmp/$name.ptx"; } > "$out/$name.ptx"
  if [ "${PTXAS_CHECK:-1}" != 0 ]; then
    ptxas -arch=sm_90 -O3 ${PTXAS_VERBOSE:+-v} -o "$tmp/$name.cubin" "$out/$name.ptx"
  fi
}

types="float:f32 __half:f16 __nv_bfloat16:bf16 double:f64 int8_t:i8 uint8_t:u8 int32_t:i32 uint32_t:u32
       int64_t:i64 uint64_t:u64 jccl::fp8e4m3:e4m3 jccl::fp8e5m2:e5m2"
specs=("copy kernels_copy.cu")
for t in $types; do
  for oc in sum:1 any:0; do
    specs+=("reduce_${t##*:}_${oc%:*} kernels_reduce.cu -DJCCL_TYPE=${t%:*} -DJCCL_TYPE_NAME=${t##*:} -DJCCL_SUMONLY=${oc#*:}")
  done
done
[ -n "${ONLY:-}" ] || rm -f "$out"/*.ptx
pids=()
for s in "${specs[@]}"; do
  if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" ${s%% *} "* ]]; then continue; fi
  # shellcheck disable=SC2086
  build $s & pids+=($!)
  if [ ${#pids[@]} -ge "$jobs" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
for p in "${pids[@]}"; do wait "$p"; done
echo "build-ptx.sh: $(ls "$out"/*.ptx | wc -l) PTX files in $out (sources sha256 $digest)"
