#!/usr/bin/env bash
# Builds the CPU emulator of the CUDA driver (libjccl_emu.so) with every JCCL kernel compiled for the host.
#   jccl-cuda/src/test/emu/build-emu.sh [output-dir]     (default: jccl-cuda/target/emu)
# Needs g++ (C++20) and CUDA's headers (cuda_fp16.h, cuda_bf16.h, cuda_fp8.h, vector_types.h; CUDA_HOME, default
# /usr/local/cuda); no GPU, no nvcc. Then run the GPU tests or the perf tool against it:
#   mvn -pl jccl-cuda test -Dgroups=gpu -Djccl.cuda.library=$PWD/jccl-cuda/target/emu/libjccl_emu.so
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mod=$(cd "$here/../../.." && pwd)
out="${1:-$mod/target/emu}"
cuda=${CUDA_HOME:-/usr/local/cuda}
[ -f "$cuda/include/cuda_fp8.h" ] || { echo "build-emu.sh: CUDA headers not found under $cuda/include (set CUDA_HOME)" >&2; exit 2; }
mkdir -p "$out"
srcs=("$here/emu_driver.cpp" "$here/emu_memory.cpp" "$here/emu_kernels.cpp")
newest=$(ls -t "${srcs[@]}" "$here"/*.h "$mod"/src/main/cuda/* | head -1)
if [ -f "$out/libjccl_emu.so" ] && [ "$out/libjccl_emu.so" -nt "$newest" ]; then
  echo "$out/libjccl_emu.so"; exit 0
fi
flags=(-std=c++20 -O1 -g -fPIC -pthread -DJCCL_EMULATOR -I"$mod/src/main/cuda" -I"$here" -I"$cuda/include")
pids=()
for s in "${srcs[@]}"; do
  g++ "${flags[@]}" -c "$s" -o "$out/$(basename "$s" .cpp).o" & pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
g++ -shared -pthread -o "$out/libjccl_emu.so" "$out"/emu_driver.o "$out"/emu_memory.o "$out"/emu_kernels.o
echo "$out/libjccl_emu.so"
