#!/usr/bin/env bash
# The allReduce sweep behind the GPU kernel limits, on 2 GPUs: 1..32 MiB with push (8K/16K/64K pipeline chunks),
# one-shot and two-shot forced, one ./jccl perf per configuration; tune.awk then picks the push chunk that was fastest
# and the push / one-shot limits that won, written as JVM flags to $OUT/tune.opts and printed with the table of times.
# gpu-run.sh phases named on the command line run afterwards with those flags added to $JOPTS:
#   bash bench/device/tune.sh [PHASE...]        e.g.  bash bench/device/tune.sh ar graph
# Runs on the GPU machine, from the repo root that carried .device/ (see jccl-cuda/device/bundle.sh). Output: $OUT
# (default: a new temporary directory). Per-run limit: $T s (default 240). NVLink multicast stays off.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
root=$(pwd)
gpu="$root/.device/gpu"
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -x "$gpu/jccl" ]; then
  echo "tune.sh: no $gpu/jccl: run jccl-cuda/device/bundle.sh, then start from the repo root that carried .device/" >&2
  exit 1
fi
export JCCL_JAVA="$root/.device/java" JCCL_LIB="$gpu/lib"
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
log="$out/tune-sweep.txt"
base="-Djccl.cuda.cubinDir=${CUBIN_DIR:-$gpu/cubin} ${JOPTS:-}"
for cfg in "push 16K" "push 8K" "push 64K" "oneshot 16K" "twoshot 16K"; do
  read -r alg chunk <<<"$cfg"
  echo "### cfg $alg $chunk" >> "$log"
  JCCL_JAVA_OPTS="$base -Djccl.cuda.algorithm=$alg -Djccl.cuda.pushMaxBytes=32M -Djccl.cuda.pushChunkBytes=$chunk" \
    timeout "${T:-240}" "$gpu/jccl" perf all_reduce -g 2 -b 1M -e 32M -f 2 -n 30 -w 5 -c 0 --backend jccl \
    >> "$log" 2>&1
  echo "rc=$? cfg $alg $chunk" | tee -a "$log"
done
awk -f "$here/tune.awk" "$log" > "$out/tune.opts"
echo "tuned: $(cat "$out/tune.opts")"
awk -f "$here/tune.awk" -v table=1 "$log"
echo "tune.sh: sweep log and flags in $out"
if [ $# -gt 0 ]; then
  JOPTS="${JOPTS:-} $(cat "$out/tune.opts")" OUT="$out" bash "$gpu/gpu-run.sh" "$@"
fi
