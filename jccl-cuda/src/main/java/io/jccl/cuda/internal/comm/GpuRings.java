package io.jccl.cuda.internal.comm;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.cuda.internal.enqueue.KernelArgs;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;
import io.jccl.internal.topology.TopoEnv;
import io.jccl.internal.topology.TopoParams;
import io.jccl.internal.topology.channels.CommChannels;
import io.jccl.internal.topology.discovery.GpuInfo;
import io.jccl.internal.topology.discovery.GpuProbe;
import io.jccl.internal.topology.discovery.TopoDiscovery;
import io.jccl.internal.topology.setup.CommPlan;
import io.jccl.internal.topology.setup.NodePlan;
import io.jccl.internal.topology.setup.TopoSetup;
import io.jccl.internal.topology.xml.TopoXml;
import io.jccl.internal.topology.xml.XmlElement;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The ring orders a GPU communicator's ring kernels follow, from the topology search (NCCL's ring graph): the host's
 * topology (sysfs, or NCCL_TOPO_FILE) with the communicator's GPUs and the NVLinks between them, each GPU marked
 * with its rank by PCI bus id, paths, the ring search (or NCCL_GRAPH_FILE), preset and postset as for any one-node
 * communicator. Every ring starts at rank 0; the kernel's channel b follows ring b % rings.
 *
 * <p>NVLinks are counted per pair of GPUs by NVML ({@link CudaGpuProbe#linkCounts}); without NVML, or through
 * NVSwitches, a pair CUDA reports native peer atomics for counts one link: the search then still prefers NVLink hops
 * over PCIe ones, which fixes the order, though its bandwidths are not NCCL's.
 *
 * <p>Stateless; runs on the initialising thread. Mirrors the GPU side of NCCL's topology phase (ncclTopoGetSystem,
 * ncclTopoCompute, ncclTopoPreset/Postset) as far as it decides ring order.
 */
public final class GpuRings {

    private GpuRings() {
    }

    /**
     * Searches the rings of GPUs {@code busIds} (rank r on {@code busIds.get(r)}).
     *
     * @param sm     compute capability × 10 of the GPUs (90 for Hopper)
     * @param nvlink nvlink[r][q]: NVLinks from rank r's GPU to rank q's (0: none)
     * @return 1 to {@link KernelArgs#MAX_RINGS} ring orders, each a permutation of the ranks starting at 0
     * @throws JcclException {@link Result#INTERNAL_ERROR} when the topology does not hold a GPU or the search fails
     */
    public static int[][] search(List<String> busIds, int sm, int[][] nvlink, TopoEnv env) {
        int n = busIds.size();
        if (n == 1) {
            return new int[][]{{0}};
        }
        TopoParams params = TopoParams.from(env);
        GpuProbe probe = () -> {
            List<GpuInfo> gpus = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                List<GpuInfo.NvLink> links = new ArrayList<>();
                for (int q = 0; q < n; q++) {
                    if (q != r && nvlink[r][q] > 0) {
                        links.add(new GpuInfo.NvLink(busIds.get(q), nvlink[r][q], "0x030200"));
                    }
                }
                gpus.add(new GpuInfo(busIds.get(r), r, sm, false, links));
            }
            return gpus;
        };
        XmlElement xml = TopoDiscovery.discover(params, probe);
        for (int r = 0; r < n; r++) {
            if (!TopoXml.setGpuRank(xml, busIds.get(r), r)) {
                throw new JcclException(Result.INTERNAL_ERROR, "the topology" + (params.topoFile() != null
                        ? " of NCCL_TOPO_FILE=" + params.topoFile() : "") + " has no GPU at " + busIds.get(r)
                        + " (rank " + r + ")");
            }
        }
        NodePlan node = TopoSetup.planNode(xml, params, false);
        CommPlan plan = TopoSetup.join(new int[n], List.of(node), 0, 0);
        return distinctRings(plan.channels());
    }

    /**
     * As {@link #search}, falling back to the ranks in order, with a warning naming the cause, when the search fails
     * (the order only affects speed).
     */
    public static int[][] searchOrInOrder(List<String> busIds, int sm, int[][] nvlink, TopoEnv env, int rank) {
        try {
            int[][] rings = search(busIds, sm, nvlink, env);
            if (Log.enabled(Log.Level.INFO, Subsys.GRAPH)) {
                Log.info(Subsys.GRAPH, rank, "GPU rings from the topology search: %s", describe(rings));
            }
            return rings;
        } catch (RuntimeException e) {
            Log.warn(rank, "the GPU ring search failed (%s); ring kernels visit the ranks in order", e.getMessage());
            return inOrder(busIds.size());
        }
    }

    /**
     * {@code busIds}, or when a GPU appears twice (ranks sharing a GPU, for tests) a made-up bus id per rank, so the
     * search sees one GPU per rank (NCCL_GRAPH_FILE still names them by rank).
     */
    public static List<String> onePerRank(List<String> busIds) {
        if (busIds.stream().distinct().count() == busIds.size()) {
            return busIds;
        }
        List<String> made = new ArrayList<>();
        for (int r = 0; r < busIds.size(); r++) {
            made.add(String.format("0000:%02x:00.0", 0xe0 + r));
        }
        return made;
    }

    /**
     * One ring that crosses each host boundary once per direction, as NCCL's rings across nodes do: the hosts in the
     * order of their lowest rank, each host's ranks in rank order ({@code hostHashes[r]}: rank r's host), e.g.
     * {@code 0 2 1 3} for ranks 0, 2 on one host and 1, 3 on another. With every rank on a host of its own, the
     * ranks in order.
     */
    public static int[][] byHost(long[] hostHashes) {
        int n = hostHashes.length;
        int[] ring = new int[n];
        boolean[] placed = new boolean[n];
        int at = 0;
        for (int first = 0; first < n; first++) {
            if (placed[first]) {
                continue;
            }
            for (int r = first; r < n; r++) {
                if (!placed[r] && hostHashes[r] == hostHashes[first]) {
                    placed[r] = true;
                    ring[at++] = r;
                }
            }
        }
        return new int[][]{ring};
    }

    /** One ring, the ranks in order. */
    public static int[][] inOrder(int n) {
        int[] ring = new int[n];
        for (int r = 0; r < n; r++) {
            ring[r] = r;
        }
        return new int[][]{ring};
    }

    /** "0 1 2 3 | 0 2 1 3": the rings as the logs print them. */
    public static String describe(int[][] rings) {
        StringBuilder b = new StringBuilder();
        for (int[] ring : rings) {
            if (!b.isEmpty()) {
                b.append(" | ");
            }
            for (int p = 0; p < ring.length; p++) {
                b.append(p == 0 ? "" : " ").append(ring[p]);
            }
        }
        return b.toString();
    }

    /** The channels' rings from rank 0, each once, in channel order, at most MAX_RINGS. */
    static int[][] distinctRings(CommChannels channels) {
        List<int[]> rings = new ArrayList<>();
        for (int c = 0; c < channels.nChannels() && rings.size() < KernelArgs.MAX_RINGS; c++) {
            int[] ring = channels.ringOrder(c, 0);
            if (rings.stream().noneMatch(x -> Arrays.equals(x, ring))) {
                rings.add(ring);
            }
        }
        if (rings.isEmpty()) {
            throw new JcclException(Result.INTERNAL_ERROR, "the ring search found no channel");
        }
        return rings.toArray(int[][]::new);
    }
}
