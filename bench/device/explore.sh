#!/usr/bin/env bash
# Knob exploration for the allReduce kernels on 2 GPUs (one ./jccl perf per variant), run on the GPU machine from
# the repo root that carried .device/ (see jccl-cuda/device/bundle.sh):
#   bash bench/device/explore.sh SET      ->  $OUT/explore.txt and a summary table ($OUT: default a new temporary
#                                             directory, printed)
# SET (default pdl) is one of the case labels below: knobs, pdl, ll, packed, v2, v3, v4, final, stall, stall2..stall8,
# blocks8, gather8, ll128b2. Variants: pull unroll (2/4/8 packs in flight per source), packs per thread (grid
# density), push chunk, grid limit, programmatic launch, protocol limits, the stall diagnostics (-Djccl.perf.trace).
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
root=$(pwd)
here="$root/.device/gpu"
export JCCL_JAVA="$root/.device/java" JCCL_LIB="$here/lib"
d=$(python3 -c "import nvidia.nccl;print(list(nvidia.nccl.__path__)[0])" 2>/dev/null) && export JCCL_NCCL_LIBRARY="$d/lib/libnccl.so.2"
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
[ -n "${OUT:-}" ] || echo "explore.sh: output in $out"
log="$out/explore.txt"
# variant <ranks: "-g 2" or "-np 2"> <header prefix> <name> <jvm props> <perf args...>: one logged perf run
variant() {
  local ranks=$1 prefix=$2 name=$3 props=$4
  shift 4
  echo "### $name | $props | $prefix$*" >> "$log"
  echo "# started $(date +%s.%N)" >> "$log"
  # shellcheck disable=SC2086  # $ranks is two words
  JCCL_JAVA_OPTS="-Djccl.cuda.cubinDir=$here/cubin $props" timeout 150 "$here/jccl" perf all_reduce $ranks "$@" >> "$log" 2>&1
  echo "rc=$? $name" >> "$log"
}
run() { variant "-g 2" "" "$@"; }          # run <name> <jvm props> <perf args...>: one process, 2 GPUs
runnp() { variant "-np 2" "-np 2 " "$@"; }  # the same with one process per GPU
S="-n 100 -w 20 -c 1"
case "${1:-pdl}" in
  knobs)
    run base-both "" -b 64K -e 16M -f 2 $S --backend both
    for u in 2 4 8; do
      run "twoshot-u$u" "-Djccl.cuda.algorithm=twoshot -Djccl.cuda.pullUnroll=$u" -b 8 -e 16M -f 4 $S --backend jccl
      run "oneshot-u$u" "-Djccl.cuda.algorithm=oneshot -Djccl.cuda.pullUnroll=$u" -b 8 -e 16M -f 4 $S --backend jccl
    done
    for p in 1 4; do
      run "auto-ppt$p" "-Djccl.cuda.packsPerThread=$p" -b 128K -e 8M -f 2 $S --backend jccl
    done
    for c in 64K 256K; do
      run "push-$c" "-Djccl.cuda.algorithm=push -Djccl.cuda.pushMaxBytes=32M -Djccl.cuda.pushChunkBytes=$c" -b 128K -e 16M -f 2 $S --backend jccl
    done
    for m in 64 96; do
      run "twoshot-u4-b$m" "-Djccl.cuda.algorithm=twoshot -Djccl.cuda.pullUnroll=4 -Djccl.cuda.maxBlocks=$m" -b 2M -e 16M -f 2 $S --backend jccl
    done
    run graph-auto "" -b 128K -e 8M -f 4 $S -G 20 --backend jccl ;;
  pdl)
    run base-both "" -b 64K -e 16M -f 2 $S --backend both
    run nopdl "-Djccl.cuda.pdl=false" -b 64K -e 16M -f 2 $S --backend jccl
    run pdl-u4 "-Djccl.cuda.pullUnroll=4" -b 64K -e 16M -f 2 $S --backend jccl
    run pdl-ppt1 "-Djccl.cuda.packsPerThread=1" -b 64K -e 16M -f 2 $S --backend jccl
    run pdl-u4-ppt1 "-Djccl.cuda.pullUnroll=4 -Djccl.cuda.packsPerThread=1" -b 8 -e 16M -f 2 $S --backend jccl
    run pdl-ll256 "-Djccl.cuda.llMaxBytes=256K" -b 64K -e 512K -f 2 $S --backend jccl
    run nopdl-u4-ppt1 "-Djccl.cuda.pdl=false -Djccl.cuda.pullUnroll=4 -Djccl.cuda.packsPerThread=1" -b 8 -e 16M -f 2 $S --backend jccl
    run graph-pdl "" -b 8 -e 8M -f 4 $S -G 20 --backend both
    run graph-nopdl "-Djccl.cuda.pdl=false" -b 8 -e 8M -f 4 $S -G 20 --backend jccl
    run base-both-2 "-Djccl.cuda.pullUnroll=4 -Djccl.cuda.packsPerThread=1" -b 8 -e 16M -f 2 $S --backend both ;;
  ll)
    B="-Djccl.cuda.pullUnroll=4 -Djccl.cuda.packsPerThread=1"
    run base-both "$B" -b 64K -e 16M -f 2 $S --backend both
    run ll-2M "$B -Djccl.cuda.llMaxBytes=2M" -b 64K -e 2M -f 2 $S --backend jccl
    run push-16K "$B -Djccl.cuda.pushChunkBytes=16K" -b 256K -e 4M -f 2 $S --backend jccl
    run push-32K "$B -Djccl.cuda.pushChunkBytes=32K" -b 256K -e 4M -f 2 $S --backend jccl
    run oneshot "$B -Djccl.cuda.algorithm=oneshot" -b 256K -e 4M -f 2 $S --backend jccl
    run twoshot "$B -Djccl.cuda.algorithm=twoshot" -b 256K -e 4M -f 2 $S --backend jccl
    run blocks132 "$B -Djccl.cuda.maxBlocks=132" -b 256K -e 16M -f 2 $S --backend jccl
    run ll-2M-b132 "$B -Djccl.cuda.maxBlocks=132 -Djccl.cuda.llMaxBytes=2M" -b 64K -e 2M -f 2 $S --backend jccl
    run base-both-2 "$B -Djccl.cuda.maxBlocks=132 -Djccl.cuda.llMaxBytes=256K" -b 64K -e 16M -f 2 $S --backend both ;;
  packed)
    run base-both "" -b 64K -e 16M -f 2 $S --backend both
    run packed-forced "-Djccl.cuda.algorithm=llpacked -Djccl.cuda.llPackedMaxBytes=16M" -b 512K -e 16M -f 2 $S --backend jccl
    run no-packed "-Djccl.cuda.llPackedMaxBytes=0" -b 512K -e 8M -f 2 $S --backend jccl
    run types "" -b 1M -e 2M -f 2 -n 20 -w 5 -c 1 -d all --backend jccl
    run bf16-ops "" -b 1M -e 2M -f 2 -n 20 -w 5 -c 1 -d bfloat16 -o all --backend jccl
    run graph "" -b 8 -e 8M -f 4 $S -G 20 --backend both
    run base-both-2 "" -b 64K -e 16M -f 2 $S --backend both ;;
  v2)
    P="-Djccl.cuda.algorithm=llpacked -Djccl.cuda.llPackedMaxBytes=16M"
    run base-both "" -b 64K -e 16M -f 2 $S --backend both
    run packed-g128 "$P" -b 64K -e 16M -f 2 $S --backend jccl
    for g in 64 256 512; do
      run "packed-g$g" "$P -Djccl.cuda.llPackedBlockGroups=$g" -b 256K -e 4M -f 2 $S --backend jccl
    done
    for p in 1 2 4; do
      for c in 4K 8K 16K; do
        run "push-ppt$p-c$c" "-Djccl.cuda.algorithm=push -Djccl.cuda.packsPerThread=$p -Djccl.cuda.pushChunkBytes=$c" -b 512K -e 8M -f 2 $S --backend jccl
      done
    done
    run types "$P" -b 1M -e 2M -f 2 -n 20 -w 5 -c 1 -d all --backend jccl
    run bf16-ops "$P" -b 1M -e 2M -f 2 -n 20 -w 5 -c 1 -d bfloat16 -o all --backend jccl
    run odd "$P" -b 999997 -e 999997 -n 20 -w 5 -c 1 -d all --backend jccl
    run auto-p4M "-Djccl.cuda.llPackedMaxBytes=4M" -b 64K -e 16M -f 2 $S --backend both
    run auto-p4M-ll256 "-Djccl.cuda.llPackedMaxBytes=4M -Djccl.cuda.llMaxBytes=256K" -b 64K -e 4M -f 2 $S --backend jccl
    run graph-p4M "-Djccl.cuda.llPackedMaxBytes=4M" -b 8 -e 8M -f 4 $S -G 20 --backend both ;;
  v3)
    L="-Djccl.cuda.algorithm=ll128 -Djccl.cuda.ll128MaxBytes=16M"
    run base-both "" -b 8 -e 16M -f 4 $S --backend both
    run ll128 "$L" -b 8 -e 16M -f 2 $S --backend jccl
    run packed-small "-Djccl.cuda.algorithm=llpacked -Djccl.cuda.llPackedMaxBytes=16M" -b 8 -e 64K -f 4 $S --backend jccl
    run ll128-types "$L" -b 1M -e 4M -f 4 -n 20 -w 5 -c 1 -d all --backend jccl
    run ll128-bf16-ops "$L" -b 1M -e 1M -n 20 -w 5 -c 1 -d bfloat16 -o all --backend jccl
    run ll128-odd "$L" -b 999997 -e 999997 -n 20 -w 5 -c 1 -d all --backend jccl
    A="-Djccl.cuda.llMaxBytes=64K -Djccl.cuda.llPackedMaxBytes=512K -Djccl.cuda.ll128MaxBytes=8M"
    B="-Djccl.cuda.llMaxBytes=64K -Djccl.cuda.llPackedMaxBytes=0 -Djccl.cuda.ll128MaxBytes=8M"
    run auto-A "$A" -b 8 -e 16M -f 2 $S --backend both
    run auto-B "$B" -b 32K -e 16M -f 2 $S --backend jccl
    run graph-A "$A" -b 8 -e 16M -f 4 $S -G 20 --backend both
    run auto-A-2 "$A" -b 256K -e 16M -f 2 $S --backend both ;;
  v4)
    L="-Djccl.cuda.algorithm=ll128 -Djccl.cuda.ll128MaxBytes=16M"
    run base-both "" -b 8 -e 16M -f 2 $S --backend both
    run ll128 "$L" -b 256K -e 16M -f 2 $S --backend jccl
    run ll128-types "$L" -b 1M -e 4M -f 4 -n 20 -w 5 -c 1 -d all --backend jccl
    run ll128-bf16-ops "$L" -b 1M -e 1M -n 20 -w 5 -c 1 -d bfloat16 -o all --backend jccl
    run ll128-odd "$L" -b 999997 -e 999997 -n 20 -w 5 -c 1 -d all --backend jccl
    run graph "" -b 8 -e 8M -f 4 $S -G 20 --backend both
    runnp np "" -b 8 -e 16M -f 4 $S --backend both ;;
  final)
    for i in 1 2 3; do
      run "base-both-$i" "" -b 8 -e 16M -f 2 $S --backend both
    done
    run graph "" -b 8 -e 8M -f 4 $S -G 20 --backend both ;;
  stall)
    # Rare 50-100 ms means (one stalled stretch of a timed loop): which setting makes them go away?
    L="-b 64K -e 4M -f 2 -n 1000 -w 20 -c 1 --backend jccl"
    for i in 1 2; do
      run "default-$i" "" $L
      run "nopdl-$i" "-Djccl.cuda.pdl=false" $L
      run "noll128-$i" "-Djccl.cuda.ll128MaxBytes=0" $L
    done ;;
  stall3)
    # Where in the loop, on which rank, and is it the JIT warm-up? (-Djccl.perf.trace=segments: 2 events per loop)
    G="-Djccl.perf.trace=segments -Xlog:safepoint=info:file=$out/safepoint-%p.log"
    for i in 1 2; do
      run "seg-$i" "$G" -b 8 -e 16M -f 2 $S --backend jccl
      run "seg-nowarm-$i" "$G -Djccl.perf.gpuJitWarmupCalls=0" -b 8 -e 16M -f 2 $S --backend jccl
    done
    run "seg-nopdl" "$G -Djccl.cuda.pdl=false" -b 8 -e 16M -f 2 $S --backend jccl
    run "seg-both" "$G" -b 8 -e 16M -f 2 $S --backend both ;;
  stall4)
    # The stall with nothing added to the stream: host timings per loop and rank (-Djccl.perf.trace=host)
    H="-Djccl.perf.trace=host -Xlog:safepoint=info:file=$out/safepoint-%p.log"
    for i in 1 2 3; do
      run "host-both-$i" "$H" -b 8 -e 16M -f 2 $S --backend both
    done ;;
  stall5)
    # PDL or not: 6 sweeps each, interleaved, host timings only
    H="-Djccl.perf.trace=host"
    for i in 1 2 3 4 5 6; do
      run "host-pdl-$i" "$H" -b 8 -e 4M -f 2 $S --backend jccl
      run "host-nopdl-$i" "$H -Djccl.cuda.pdl=false" -b 8 -e 4M -f 2 $S --backend jccl
    done ;;
  stall6)
    # Is it the warm-up, LL128 at 512 KiB, or the place in the sweep?
    H="-Djccl.perf.trace=host"
    for i in 1 2 3; do
      run "host-def-$i" "$H" -b 8 -e 4M -f 2 $S --backend jccl
      run "host-nowarm-$i" "$H -Djccl.perf.gpuJitWarmupCalls=0" -b 8 -e 4M -f 2 $S --backend jccl
      run "host-ll128to256K-$i" "$H -Djccl.cuda.ll128MaxBytes=256K" -b 8 -e 4M -f 2 $S --backend jccl
      run "host-from512K-$i" "$H" -b 512K -e 4M -f 2 $S --backend jccl
    done ;;
  blocks8)
    # 8 MiB (two-shot, 1.45-1.53x NCCL against the 1.5 target): a grid of more than 128 blocks?
    for i in 1 2; do
      run "base-both-$i" "" -b 2M -e 16M -f 2 $S --backend both
      for m in 132 144 160; do
        run "b$m-$i" "-Djccl.cuda.maxBlocks=$m" -b 2M -e 16M -f 2 $S --backend jccl
      done
      run "b132-u8-$i" "-Djccl.cuda.maxBlocks=132 -Djccl.cuda.pullUnroll=8" -b 2M -e 16M -f 2 $S --backend jccl
    done ;;
  gather8)
    # 8 MiB: two-shot gathering by remote reads (no NVLink writes to drain before the end barrier) against the default,
    # both with the fence-free publishing barrier; steps of 16 KiB (default), 8 KiB and 64 KiB per block slice;
    # fenced / nofence: the older fenced publishing barrier against the fence-free one, 8 B-16 MiB
    for i in 1 2 3; do
      run "base-both-$i" "" -b 2M -e 16M -f 2 $S --backend both
      run "fenced-$i" "-Djccl.cuda.fencedPublish=true" -b 8 -e 16M -f 8 $S --backend jccl
      run "nofence-$i" "" -b 8 -e 16M -f 8 $S --backend jccl
      run "gather-$i" "-Djccl.cuda.pullGather=true" -b 2M -e 16M -f 2 $S --backend jccl
      run "gather-s8K-$i" "-Djccl.cuda.pullGather=true -Djccl.cuda.gatherStepBytes=8192" -b 4M -e 16M -f 2 $S --backend jccl
      run "gather-s64K-$i" "-Djccl.cuda.pullGather=true -Djccl.cuda.gatherStepBytes=65536" -b 4M -e 16M -f 2 $S --backend jccl
    done
    run "gather-graph" "-Djccl.cuda.pullGather=true" -b 2M -e 8M -f 2 $S -G 20 --backend both ;;
  ll128b2)
    # LL128 with 2 blocks of 512 threads per SM (its 43 registers allow it): more warps, more lines in flight
    for i in 1 2; do
      run "base-both-$i" "" -b 64K -e 16M -f 2 $S --backend both
      run "b2-$i" "-Djccl.cuda.ll128BlocksPerSm=2" -b 64K -e 16M -f 2 $S --backend jccl
      run "b2-to16M-$i" "-Djccl.cuda.ll128BlocksPerSm=2 -Djccl.cuda.ll128MaxBytes=16M" -b 4M -e 16M -f 2 $S --backend jccl
    done
    run "b2-graph" "-Djccl.cuda.ll128BlocksPerSm=2 -Djccl.cuda.ll128MaxBytes=8M" -b 512K -e 8M -f 4 $S -G 20 --backend jccl ;;
  stall8)
    # Does aligning the ranks before each loop, or cuStreamQuery after each launch, make it go away?
    H="-Djccl.perf.trace=host"
    for i in 1 2 3; do
      run "host-def-$i" "$H" -b 8 -e 4M -f 2 $S --backend jccl
      run "host-align-$i" "$H -Djccl.perf.alignLoops=true" -b 8 -e 4M -f 2 $S --backend jccl
      run "host-query-$i" "$H -Djccl.perf.queryAfterLaunch=true" -b 8 -e 4M -f 2 $S --backend jccl
      run "host-nccl-$i" "$H" -b 8 -e 4M -f 2 $S --backend nccl
      runnp "host-np-$i" "$H" -b 8 -e 4M -f 2 $S --backend jccl
    done ;;
  stall7)
    # Fixed time after start, or place in the sweep? Does NCCL stall at the same time? First with nothing else
    # running, then with nvidia-smi sampling clocks, throttle reasons and the GPUs' compute processes.
    H="-Djccl.perf.trace=host"
    for i in 1 2; do
      run "host-def-$i" "$H" -b 8 -e 4M -f 2 $S --backend jccl
      run "host-nccl-$i" "$H" -b 8 -e 4M -f 2 $S --backend nccl
    done
    run "host-cycles512K" "$H" -b 512K -e 4M -f 2 $S -N 15 --backend jccl
    nvidia-smi --query-gpu=timestamp,index,clocks.sm,clocks.mem,clocks_throttle_reasons.active,power.draw,temperature.gpu,pstate --format=csv -lms 100 > "$out/smi.csv" 2>&1 &
    smi=$!
    nvidia-smi --query-compute-apps=timestamp,gpu_bus_id,pid,process_name,used_memory --format=csv -lms 200 > "$out/apps.csv" 2>&1 &
    apps=$!
    for i in 1 2; do
      run "smi-def-$i" "$H" -b 8 -e 4M -f 2 $S --backend jccl
    done
    run "smi-nccl" "$H" -b 8 -e 4M -f 2 $S --backend nccl
    kill $smi $apps ;;
  stall2)
    for i in 1 2; do
      run "both-$i" "" -b 8 -e 16M -f 2 $S --backend both
      run "jccl-$i" "" -b 8 -e 16M -f 2 $S --backend jccl
    done ;;
esac
# summary: variant, size, oop time, ip time, wrong
awk '/^### /{split($0,h," [|] "); v=substr(h[1],5)} /^# Backend: NCCL/{v=v"/nccl"} /^ +[0-9]+ +[0-9]+ +[a-z0-9]+ +[a-z]+ / && $6!="|"{printf "%-22s %10s %-8s %-6s %8s %8s %s/%s\n", v, $1, $3, $4, $6, $10, $9, $13}' "$log" > "$out/explore-table.txt"
grep -E "^rc=[^0]" "$log"
awk '$2>=131072' "$out/explore-table.txt"
