#!/usr/bin/env bash
# Runs JCCL's GPU work on the GPU machine, from the repo root that carried .device/ (see bundle.sh), with the
# bundled Java runtime (.device/java) and prebuilt jars through the ./jccl launcher (JCCL_JAVA / JCCL_LIB).
#   .device/gpu/gpu-run.sh PHASE...     phases, in the order given:
#     info    nvidia-smi, topology, NCCL path
#     topo    ./jccl topo: the system JCCL discovers through sysfs, CUDA and NVML      ($OUT/topo.txt)
#     tests   the @Tag("gpu") tests of jccl-cuda (every collective, type, reduction; graphs; abort; 2 processes);
#             $TESTS (class names, space-separated; Class#method(types) for one method) runs those only
#     ar      ./jccl perf all_reduce -g 2 -b 8 -e 2G -f 4 -c 1 --backend both          ($OUT/perf-allreduce.txt)
#     graph   the same, 8 B .. 2 MiB, CUDA graphs of the iterations launched 20 times (-G 20)
#     sym     perf -R 2 (symmetric windows), -G 20, 8 B .. 64 MiB: JCCL on 2 ranks sharing GPU 0, then JCCL and
#             NCCL on 1 GPU                                                               ($OUT/perf-sym.txt)
#     ce      allGather and allToAll on 2 ranks sharing GPU 0 at 64 MiB .. 1 GiB, each beside a compute kernel
#             (--compute-beside): the kernels (-R 0, -R 2), then the copy engines (NCCL_CTA_POLICY=2, -R 2) with
#             one-warp wait kernels and with stream memory operations; then sendrecv by putSignal/waitSignal
#             (--put-signal) against the kernels' sendrecv and the copy-engine broadcast   ($OUT/perf-ce.txt)
#     others  all_gather, reduce_scatter, broadcast, sendrecv at 128 MiB .. 2 GiB, --backend both
#     np      one process per GPU (-np 2, IPC handles), all_reduce and all_gather, --backend both
#     small   alltoall, reduce, gather, scatter, small sizes (correctness of every collective in the perf tool)
#     hosts   2 "hosts" whose ranks share GPU 0 (network namespaces joined by a veth bridge where this machine allows
#             them, else distinct NCCL_HOSTID over loopback): every collective verified across hosts, all_reduce
#             and all_gather --backend both (NCCL's socket transport, same hosts), and the host communicators' own
#             busbw on the same link                                                      ($OUT/perf-hosts.txt)
#     tree    allReduce on NCCL's tree across 2 and 4 ($TREE_RANKS) NCCL_HOSTID hosts (one rank each, all on GPU 0), both
#             to $TREE_MAX bytes (128M),
#             libraries forced by NCCL_ALGO=allreduce:tree, then each library's own choice; --backend both
#                                                                                         ($OUT/perf-tree.txt)
#     mixed   4 ranks on 2 NCCL_HOSTID hosts (ranks 0, 1 and 2, 3), all on GPU 0: CUDA IPC inside a host and the
#             net proxy between them in the same kernels; every collective verified        ($OUT/perf-mixed.txt)
# Ends with a summary (JUnit totals, the side-by-side tables). Extra JVM flags: $JOPTS. Per-phase limit: $T s.
# CUBIN_DIR: pre-assembled kernels (default .device/gpu/cubin; a missing directory means JIT from the PTX).
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0 and friends are exported here).
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
java="$root/.device/java"
export JCCL_JAVA="$java" JCCL_LIB="$here/lib"
cubin=${CUBIN_DIR:-$here/cubin}
export JCCL_JAVA_OPTS="-Djccl.cuda.cubinDir=$cubin ${JOPTS:-}"
out=${OUT:-/tmp/jccl-out}
mkdir -p "$out"
if [ -z "${JCCL_NCCL_LIBRARY:-}" ]; then
  d=$(python3 -c "import nvidia.nccl;print(list(nvidia.nccl.__path__)[0])" 2>/dev/null) && export JCCL_NCCL_LIBRARY="$d/lib/libnccl.so.2"
fi
perf() {   # perf <log> <args...>: one ./jccl perf run appended to $out/<log>.txt
  local log=$1
  shift
  echo "### jccl perf $*" >> "$out/$log.txt"
  local t0=$SECONDS
  timeout "${T:-240}" "$here/jccl" perf "$@" >> "$out/$log.txt" 2>&1
  echo "rc=$? $((SECONDS - t0))s jccl perf $*" | tee -a "$out/$log.txt"
}
for phase in "$@"; do
  echo "=== $phase $(date +%T)"
  case "$phase" in
    info)
      { nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,memory.total,clocks.sm --format=csv
        nvidia-smi topo -m; echo "NCCL: ${JCCL_NCCL_LIBRARY:-none}"; nproc; } > "$out/info.txt" 2>&1
      head -4 "$out/info.txt" ;;
    tests)
      cp="$(ls "$here"/test/*.jar | tr '\n' ':')$here/lib/*"
      timeout "${T:-240}" "$java" -Djccl.cuda.cubinDir="$cubin" ${JOPTS:-} -cp "$cp" org.junit.platform.console.ConsoleLauncher \
        execute $(if [ -n "${TESTS:-}" ]; then printf '%s\n' $TESTS; else cat "$here/test/gpu-tests.txt"; fi \
          | sed -E '/#/s/^/--select-method /; /^--select-method /!s/^/--select-class /') \
        --include-tag gpu --details=tree --disable-banner --disable-ansi-colors > "$out/junit.txt" 2>&1
      echo "rc=$?"; grep -E "tests (successful|failed|aborted)|✘" "$out/junit.txt" | head -20
      grep -qE "\[ +[1-9][0-9]* tests (successful|failed)" "$out/junit.txt" \
        || echo "gpu-run.sh: NO TEST RAN ($(wc -l < "$here/test/gpu-tests.txt") classes listed; see $out/junit.txt)" ;;
    ar) perf perf-allreduce all_reduce -g 2 -b 8 -e 2G -f 4 -c 1 --backend both ;;
    graph) perf perf-graph all_reduce -g 2 -b 8 -e 2M -f 4 -c 1 -G 20 --backend both ;;
    sym)
      JCCL_JAVA_OPTS="-Djccl.cuda.shareDevices=true" \
        perf perf-sym all_reduce -g 2 -R 2 -G 20 -b 8 -e 64M -f 8 -c 1 --backend jccl
      perf perf-sym all_reduce -g 1 -R 2 -G 20 -b 8 -e 64M -f 8 -c 1 --backend both ;;
    ce)
      for c in all_gather alltoall; do
        for v in "0 0 stream" "2 0 stream" "2 2 kernel" "2 2 stream"; do
          read -r reg policy waits <<< "$v"
          echo "== $c -R $reg NCCL_CTA_POLICY=$policy copyEngineWaits=$waits" >> "$out/perf-ce.txt"
          NCCL_CTA_POLICY=$policy \
            JCCL_JAVA_OPTS="$JCCL_JAVA_OPTS -Djccl.cuda.shareDevices=true -Djccl.cuda.copyEngineWaits=$waits" \
            perf perf-ce "$c" -g 2 -R "$reg" -b 64M -e 1G -f 4 -n 20 -w 5 -c 1 --backend jccl --compute-beside
        done
      done
      JCCL_JAVA_OPTS="$JCCL_JAVA_OPTS -Djccl.cuda.shareDevices=true" \
        perf perf-ce sendrecv -g 2 -R 2 -b 8 -e 1G -f 8 -n 50 -w 5 -c 1 --backend jccl --put-signal
      JCCL_JAVA_OPTS="$JCCL_JAVA_OPTS -Djccl.cuda.shareDevices=true" \
        perf perf-ce sendrecv -g 2 -R 2 -b 8 -e 1G -f 8 -n 50 -w 5 -c 1 --backend jccl
      NCCL_CTA_POLICY=2 JCCL_JAVA_OPTS="$JCCL_JAVA_OPTS -Djccl.cuda.shareDevices=true" \
        perf perf-ce broadcast -g 2 -R 2 -b 8 -e 1G -f 8 -n 50 -w 5 -c 1 --backend jccl ;;
    others)
      for c in all_gather reduce_scatter broadcast sendrecv; do
        perf perf-others "$c" -g 2 -b 128M -e 2G -f 4 -c 1 --backend both
      done ;;
    np)
      perf perf-np all_reduce -np 2 -b 8 -e 256M -f 16 -c 1 --backend both
      perf perf-np all_gather -np 2 -b 8 -e 256M -f 16 -c 1 --backend both ;;
    hosts)
      hf=$(mktemp)
      if "$root/scripts/netns-hosts.sh" up 2 --prefix jgh --subnet 10.78.0 > "$out/netns.txt" 2>&1; then
        printf 'jgh-h0 slots=1\njgh-h1 slots=1\n' > "$hf"
        launch=(--hostfile "$hf" --rsh 'ip netns exec' --master-addr 10.78.0.1)
        export NCCL_SOCKET_IFNAME=jgh-e
        echo "hosts: two network namespaces, veth over a bridge" | tee -a "$out/perf-hosts.txt"
      else
        # the hostfile's host words are variable assignments that env applies; each rank's NCCL_HOSTID is its word
        printf 'SIMHOST=h0 slots=1\nSIMHOST=h1 slots=1\n' > "$hf"
        # (the data sockets use the first non-loopback interface, as across real hosts; the kernel loops it back)
        launch=(--hostfile "$hf" --rsh env --master-addr 127.0.0.1)
        unset NCCL_SOCKET_IFNAME
        echo "hosts: no network namespaces here ($(tail -1 "$out/netns.txt")); NCCL_HOSTID per rank, one machine" \
          | tee -a "$out/perf-hosts.txt"
      fi
      # two processes time-slice the GPU (each call waits for the other's kernel to be scheduled): short warm-ups
      saved=${JCCL_JAVA_OPTS}
      export JCCL_JAVA_OPTS="$saved -Djccl.cuda.shareDevices=true -XX:ErrorFile=$out/hs_err_%p.log"
      export JCCL_PERF_JIT_WARMUP_MS=${JCCL_PERF_JIT_WARMUP_MS:-300}
      for c in all_reduce all_gather; do
        perf perf-hosts "$c" -np 2 "${launch[@]}" -b 8 -e 128M -f 16 -n 10 -w 2 -c 1 --backend both
      done
      for c in reduce_scatter broadcast reduce alltoall sendrecv gather scatter; do
        perf perf-hosts "$c" -np 2 "${launch[@]}" -b 8 -e 16M -f 64 -n 5 -w 1 -c 1 --backend jccl
      done
      perf perf-hosts all_reduce -np 2 "${launch[@]}" -b 8 -e 2M -f 256 -n 3 -w 1 -c 1 -d all --backend jccl
      export JCCL_JAVA_OPTS="$saved"
      perf perf-hosts all_reduce -np 2 "${launch[@]}" -b 8 -e 128M -f 16 -n 10 -w 2 -c 1 --backend host
      "$root/scripts/netns-hosts.sh" down --prefix jgh >/dev/null 2>&1
      rm -f "$hf" ;;
    tree)
      hf=$(mktemp)
      saved=${JCCL_JAVA_OPTS}
      export JCCL_JAVA_OPTS="$saved -Djccl.cuda.shareDevices=true -XX:ErrorFile=$out/hs_err_%p.log"
      export JCCL_PERF_JIT_WARMUP_MS=${JCCL_PERF_JIT_WARMUP_MS:-300}
      for n in ${TREE_RANKS:-2 4}; do
        for h in $(seq 0 $((n - 1))); do echo "SIMHOST=t$h slots=1"; done > "$hf"
        hl=(-np "$n" --hostfile "$hf" --rsh env --master-addr 127.0.0.1 -b 8 -e "${TREE_MAX:-128M}" -f 16 -n 5 -w 1 -c 1)
        NCCL_ALGO=allreduce:tree NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING \
          perf perf-tree all_reduce "${hl[@]}" --backend both
        perf perf-tree all_reduce "${hl[@]}" --backend both
      done
      export JCCL_JAVA_OPTS="$saved"
      rm -f "$hf" ;;
    mixed)
      hf=$(mktemp)
      printf 'SIMHOST=h0 slots=2\nSIMHOST=h1 slots=2\n' > "$hf"
      saved=${JCCL_JAVA_OPTS}
      export JCCL_JAVA_OPTS="$saved -Djccl.cuda.shareDevices=true -XX:ErrorFile=$out/hs_err_%p.log"
      export JCCL_PERF_JIT_WARMUP_MS=${JCCL_PERF_JIT_WARMUP_MS:-300}
      for c in all_reduce all_gather reduce_scatter broadcast reduce alltoall sendrecv gather scatter; do
        dbg=WARN; [ "$c" = all_reduce ] && dbg=INFO   # the init log names each peer's transport
        NCCL_DEBUG=$dbg NCCL_DEBUG_SUBSYS=INIT perf perf-mixed "$c" -np 4 --hostfile "$hf" --rsh env --master-addr 127.0.0.1 \
          -b 8 -e 16M -f 64 -n 3 -w 1 -c 1 --backend jccl
      done
      export JCCL_JAVA_OPTS="$saved"
      rm -f "$hf" ;;
    topo)
      "$here/jccl" topo > "$out/topo.txt" 2>&1; echo "rc=$? topo"; head -20 "$out/topo.txt" ;;
    small)
      for c in alltoall reduce gather scatter; do
        perf perf-small "$c" -g 2 -b 8 -e 256M -f 32 -c 1 --backend jccl
      done
      perf perf-small all_reduce -g 2 -b 8 -e 64M -f 64 -c 1 -d all -o sum --backend jccl
      perf perf-small all_reduce -g 2 -b 8 -e 64M -f 64 -c 1 -d bfloat16 -o all --backend jccl ;;
    *) echo "gpu-run.sh: unknown phase $phase (info topo tests ar graph others np small hosts tree mixed)" >&2 ;;
  esac
done
echo "=== summary $(date +%T)"
[ -f "$out/junit.txt" ] && grep -E "tests (successful|failed)" "$out/junit.txt"
for f in "$out"/perf-*.txt; do
  [ -f "$f" ] || continue
  echo "--- $(basename "$f")"
  grep -E "^rc=|Out of bounds|rror|xception" "$f" | grep -v "^rc=0" | head -12
  awk '/^# JCCL vs NCCL/{p=1} p && /^(#|[ 0-9])/{print} /^rc=/{p=0}' "$f" | grep -vE "^#$" | head -40
done
