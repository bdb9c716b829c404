package io.jccl.cuda.internal.comm;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.internal.enqueue.KernelArgs;
import io.jccl.internal.comm.GpuAccess;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * What the ranks of a one-process-per-GPU communicator agree on while {@link ProcessWiring#connect} wires them, so
 * that every rank plans alike: which peers live on other hosts, how each peer is reached (for the init log), the
 * NVLinks between every pair of GPUs and the ring orders the ring kernels follow. The agreements are collective over
 * the host communicator (allGathers of each rank's view).
 *
 * <p>Thread: the communicator's owner during init. Mirrors the parts of NCCL's init that exchange peer info and graph
 * results ({@code bootstrapAllGather} of peerInfo, the ring search's result shared by every rank).
 */
final class RankAgreement {
    private RankAgreement() {
    }

    /** Bit r set for each rank r whose host (hash, honouring NCCL_HOSTID) differs from rank {@code me}'s. */
    static int remoteMask(long[] hostHashes, int me) {
        int mask = 0;
        for (int r = 0; r < hostHashes.length; r++) {
            if (hostHashes[r] != hostHashes[me]) {
                mask |= 1 << r;
            }
        }
        return mask;
    }

    static long[] hostHashes(GpuAccess access, int n) {
        long[] h = new long[n];
        for (int r = 0; r < n; r++) {
            h[r] = access.hostHash(r);
        }
        return h;
    }

    /**
     * How rank {@code me} reaches each peer, as NCCL's init log names transports: "rank 2 via P2P/IPC, ranks 1, 3 via
     * NET/Socket (proxy)" (P2P/direct for a rank of this process).
     */
    static String describePeers(List<RankInfo> all, int me, int remoteMask, String net) {
        java.util.Map<String, List<Integer>> by = new java.util.LinkedHashMap<>();
        for (int r = 0; r < all.size(); r++) {
            if (r != me) {
                String via = (remoteMask >>> r & 1) != 0 ? net + " (proxy)"
                        : all.get(r).sameProcess(all.get(me)) ? "P2P/direct" : "P2P/IPC";
                by.computeIfAbsent(via, k -> new ArrayList<>()).add(r);
            }
        }
        StringBuilder sb = new StringBuilder();
        by.forEach((via, ranks) -> {
            sb.append(sb.isEmpty() ? "" : ", ").append(ranks.size() == 1 ? "rank " : "ranks ");
            sb.append(String.join(", ", ranks.stream().map(String::valueOf).toList())).append(" via ").append(via);
        });
        return sb.toString();
    }

    /**
     * The NVLinks between every pair of ranks' GPUs: each rank counts its links to the peers' GPUs
     * ({@link CudaGpuProbe#linkCounts}: NVML, or native peer atomics, {@link CudaDevice#nativeAtomicsWith(String)},
     * for GPUs found by PCI bus id among those this process sees; a GPU it cannot see counts as not linked, and no
     * context is created on them), the ranks allgather their counts, and a pair counts as linked only when both of its
     * ranks say so (with the smaller count), so every rank plans alike. Collective over host; it also serves as the
     * barrier after the IPC mappings. A GPU of another host is never linked (its bus id may be that of a GPU here).
     */
    static int[][] agreeOnLinks(Communicator host, CudaDevice device, List<RankInfo> all) {
        int n = host.size();
        RankInfo self = all.get(host.rank());
        List<String> busIds = all.stream().map(RankInfo::busId).toList();
        int[] mine = CudaGpuProbe.linkCounts(device.pciBusId(), busIds,
                q -> q != host.rank() && all.get(q).hostHash() == self.hostHash()
                        && device.nativeAtomicsWith(busIds.get(q)));
        for (int q = 0; q < n; q++) {
            if (all.get(q).hostHash() != self.hostHash()) {
                mine[q] = 0;
            }
        }
        int[][] links = new int[n][n];
        try (Arena a = Arena.ofShared()) {
            MemorySegment send = a.allocate(n);
            MemorySegment recv = a.allocate((long) n * n);
            for (int q = 0; q < n; q++) {
                send.set(JAVA_BYTE, q, (byte) Math.min(mine[q], 127));
            }
            host.allGather(send, recv, n, DataType.UINT8);
            for (int r = 0; r < n; r++) {
                for (int q = 0; q < n; q++) {
                    links[r][q] = r == q ? 0 : Math.min(recv.get(JAVA_BYTE, (long) r * n + q),
                            recv.get(JAVA_BYTE, (long) q * n + r));
                }
            }
        }
        return links;
    }

    /**
     * What the cost model across hosts is built from, the same on every rank (the planner's channel counts follow
     * it, and the ranks' kernels must agree): the smallest compute capability and network link speed of any rank,
     * and the fewest and most ranks on one host. Collective over host.
     */
    static NetShape agreeOnNet(Communicator host, List<RankInfo> all, int compCap, int netMbps) {
        int n = host.size();
        int[] mins = {compCap, netMbps};
        try (Arena a = Arena.ofShared()) {
            MemorySegment send = a.allocate(8);
            MemorySegment recv = a.allocate(8L * n);
            send.set(java.lang.foreign.ValueLayout.JAVA_INT, 0, compCap);
            send.set(java.lang.foreign.ValueLayout.JAVA_INT, 4, netMbps);
            host.allGather(send, recv, 8, DataType.UINT8);
            for (int r = 0; r < n; r++) {
                mins[0] = Math.min(mins[0], recv.get(java.lang.foreign.ValueLayout.JAVA_INT, 8L * r));
                mins[1] = Math.min(mins[1], recv.get(java.lang.foreign.ValueLayout.JAVA_INT, 8L * r + 4));
            }
        }
        java.util.Map<Long, Integer> perHost = new java.util.HashMap<>();
        for (RankInfo r : all) {
            perHost.merge(r.hostHash(), 1, Integer::sum);
        }
        int minLocal = perHost.values().stream().mapToInt(Integer::intValue).min().orElse(1);
        int maxLocal = perHost.values().stream().mapToInt(Integer::intValue).max().orElse(1);
        return new NetShape(perHost.size(), minLocal, maxLocal, mins[0], mins[1]);
    }

    /** {@link GpuRings#byHost} of the ranks' host hashes, logged at INFO. */
    static int[][] byHost(List<RankInfo> all, int me) {
        long[] hosts = new long[all.size()];
        for (int r = 0; r < hosts.length; r++) {
            hosts[r] = all.get(r).hostHash();
        }
        int[][] rings = GpuRings.byHost(hosts);
        if (Log.enabled(Log.Level.INFO, Subsys.GRAPH)) {
            Log.info(Subsys.GRAPH, me, "GPU ring across hosts, each host's ranks together: %s",
                    GpuRings.describe(rings));
        }
        return rings;
    }

    /**
     * Every rank searched the rings from the same inputs; they still take rank 0's, so that ranks whose topology
     * settings differ (NCCL_TOPO_FILE, NCCL_GRAPH_FILE on one rank only) cannot run mismatched rings, which would
     * hang. A rank whose own result differs says so. Collective over host.
     */
    static int[][] agreeOnRings(Communicator host, int[][] mine) {
        int n = host.size();
        int bytes = 1 + KernelArgs.MAX_RINGS * KernelArgs.MAX_RANKS;
        try (Arena a = Arena.ofShared()) {
            MemorySegment send = a.allocate(bytes);
            MemorySegment recv = a.allocate((long) bytes * n);
            send.set(JAVA_BYTE, 0, (byte) mine.length);
            for (int i = 0; i < mine.length; i++) {
                for (int p = 0; p < n; p++) {
                    send.set(JAVA_BYTE, 1 + (long) i * KernelArgs.MAX_RANKS + p, (byte) mine[i][p]);
                }
            }
            host.allGather(send, recv, bytes, DataType.UINT8);
            int count = recv.get(JAVA_BYTE, 0);
            int[][] rings = new int[count][n];
            for (int i = 0; i < count; i++) {
                for (int p = 0; p < n; p++) {
                    rings[i][p] = recv.get(JAVA_BYTE, 1 + (long) i * KernelArgs.MAX_RANKS + p);
                }
            }
            if (!java.util.Arrays.deepEquals(rings, mine)) {
                Log.warn(host.rank(), "its GPU ring search gave %s but rank 0's gave %s (do the ranks'"
                        + " NCCL_TOPO_FILE / NCCL_GRAPH_FILE differ?); using rank 0's", GpuRings.describe(mine),
                        GpuRings.describe(rings));
            }
            return rings;
        }
    }
}
