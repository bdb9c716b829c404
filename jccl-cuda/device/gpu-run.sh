#!/usr/bin/env bash
# Runs jccl-cuda's GPU work on the GPU machine, from the repo root that carried .device/ (see bundle.sh).
#   .device/cuda/gpu-run.sh PHASE...     phases, in the order given:
#     info   nvidia-smi, topology, library versions
#     tests  the @Tag("gpu") JUnit tests (JUnit console launcher; classes named: the jlinked JRE has no zipfs)
#     dump   NCCL topology/graph dumps + INFO log of one 2-GPU allReduce ($OUT/h200x2-*.xml, nccl-info.log)
#     bench  JCCL vs NCCL allReduce table, 8 B .. 1 GiB, plus CUDA graph rows ($OUT/bench.txt)
#     sweep  every JCCL kernel forced, per size, vs NCCL ($OUT/sweep.txt)
# Extra JVM options for the bench/sweep come from $JOPTS (e.g. -Djccl.cuda.maxBlocks=32); the sweep also reads
# SWEEP_MIN, SWEEP_MAX, SWEEP_ALGOS, SWEEP_EXTRA (extra flags, default the graph rows), SWEEP_NAME, *_TIMEOUT.
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0 and friends are exported here).
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
here=$(cd "$(dirname "$0")" && pwd)
java="$here/../java"
cp="$here/jccl-core.jar:$here/jccl-cuda.jar"
out=${OUT:-/tmp/jccl-out}
mkdir -p "$out"
if [ -z "${JCCL_NCCL_LIBRARY:-}" ]; then
  d=$(python3 -c "import nvidia.nccl;print(list(nvidia.nccl.__path__)[0])" 2>/dev/null) && export JCCL_NCCL_LIBRARY="$d/lib/libnccl.so.2"
fi
bench=io.jccl.cuda.bench.GpuAllReduceBench
for phase in "$@"; do
  echo "=== $phase $(date +%T)"
  case "$phase" in
    info)
      nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,memory.total --format=csv
      nvidia-smi topo -m
      echo "NCCL: $JCCL_NCCL_LIBRARY"; nproc ;;
    tests)
      timeout ${TESTS_TIMEOUT:-150} "$java" -jar "$here"/test-lib/junit-platform-console-standalone-*.jar execute \
        --class-path "$cp:$here/jccl-cuda-tests.jar:$(ls "$here"/test-lib/assertj-core-*.jar):$(ls "$here"/test-lib/byte-buddy-*.jar)" \
        --select-class io.jccl.cuda.DriverGpuTest --select-class io.jccl.cuda.GpuCliqueGpuTest --include-tag gpu --details=tree --disable-banner --disable-ansi-colors 2>&1 | tee "$out/junit.txt" | tail -60 ;;
    dump)
      NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH,TUNING,ENV,P2P NCCL_TOPO_DUMP_FILE="$out/h200x2-topo.xml" \
      NCCL_GRAPH_DUMP_FILE="$out/h200x2-graph.xml" timeout 60 "$java" -cp "$cp" $bench --nccl-dump -g 2 \
        > "$out/nccl-info.log" 2>&1; echo "rc=$? $(wc -l < "$out/nccl-info.log") log lines"; tail -3 "$out/nccl-info.log" ;;
    bench)
      timeout ${BENCH_TIMEOUT:-300} "$java" ${JOPTS:-} -cp "$cp" $bench -g 2 -b 8 -e 1G -f 4 -n 50 -w 5 -r 7 --graph \
        --graph-sizes 8,2K,32K,128K,512K 2>&1 | tee "$out/bench.txt" ;;
    sweep)
      timeout ${SWEEP_TIMEOUT:-300} "$java" ${JOPTS:-} -cp "$cp" $bench -g 2 -b ${SWEEP_MIN:-8} -e ${SWEEP_MAX:-1G} \
        -f 4 -n 30 -w 3 -r 5 --algo ${SWEEP_ALGOS:-all} ${SWEEP_EXTRA---graph --graph-sizes 8,2K,32K,128K,512K,2M} 2>&1 \
        | tee "$out/${SWEEP_NAME:-sweep}.txt" ;;
    *) echo "unknown phase $phase" ;;
  esac
done
echo "=== done $(date +%T)"
