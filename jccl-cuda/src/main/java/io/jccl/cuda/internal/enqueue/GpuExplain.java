package io.jccl.cuda.internal.enqueue;

import io.jccl.RedOp;
import io.jccl.cuda.GpuOptions;
import io.jccl.internal.topology.NodeType;
import io.jccl.internal.topology.PathType;
import io.jccl.internal.topology.TopoSystem;
import io.jccl.internal.tuning.Explain;
import io.jccl.internal.tuning.Selection;

import java.util.List;

/**
 * What a GPU communicator on a described system launches, for {@code jccl topo --explain}: the same
 * {@link CollPlanner} a {@code GpuCommunicator} builds, from the facts the communicator reads from the driver
 * (ranks, multiprocessors, whether one process drives every GPU, NVLink between every pair), here read from a
 * topology. Stateless; any thread.
 */
public final class GpuExplain {
    private GpuExplain() {
    }

    /**
     * The facts a GPU planner depends on.
     *
     * @param nRanks         ranks (GPUs) of the communicator
     * @param residentBlocks multiprocessors of the smallest GPU (the co-residency bound of the kernels' barriers)
     * @param peerPointers   one process drives every GPU ({@code GpuCommunicator.initAll}), so every buffer is
     *                       addressable from every GPU
     * @param wholeLineLinks every pair of GPUs is linked by NVLink
     */
    public record GpuSystem(int nRanks, int residentBlocks, boolean peerPointers, boolean wholeLineLinks) {
        /**
         * The facts of {@code nRanks} GPUs of {@code system} ({@code sms} multiprocessors each, or 0 for the usual
         * count of the GPUs' compute capability).
         */
        public static GpuSystem of(TopoSystem system, int nRanks, int sms, boolean oneProcess) {
            int n = system.count(NodeType.GPU);
            boolean nvlink = n > 1;
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++) {
                    if (i != j && system.node(NodeType.GPU, i).pathTo(NodeType.GPU, j).type() != PathType.NVL) {
                        nvlink = false;
                    }
                }
            }
            return new GpuSystem(nRanks, sms > 0 ? sms : usualSms(system.compCapRange()[0]), oneProcess, nvlink);
        }

        /** The multiprocessors of the data-centre GPU of each compute capability (H100/H200 SXM: 132). */
        static int usualSms(int sm) {
            return switch (sm / 10) {
                case 10 -> 148;
                case 9 -> 132;
                case 8 -> 108;
                case 7 -> 80;
                default -> 56;
            };
        }

        String describe() {
            return nRanks + " rank(s), " + residentBlocks + " multiprocessors, "
                    + (peerPointers ? "one process driving every GPU" : "one process per GPU (peers through CUDA IPC)")
                    + (wholeLineLinks ? ", NVLink between every pair" : ", not every pair on NVLink");
        }
    }

    /** The planner a communicator on {@code system} builds with {@code options}. */
    public static CollPlanner planner(GpuOptions options, GpuSystem system) {
        return new CollPlanner(options, system.nRanks(), system.residentBlocks(), system.peerPointers(),
                system.wholeLineLinks());
    }

    /** The selection of each request (reductions are sums), one {@code runs:} line each, under a header. */
    public static String text(GpuOptions options, GpuSystem system, List<Explain.Request> requests) {
        CollPlanner p = planner(options, system);
        StringBuilder b = new StringBuilder("\n--- what a GPU communicator runs (").append(system.describe())
                .append(")\n");
        for (Explain.Request r : requests) {
            b.append("runs: ").append(select(p, r).line()).append('\n');
        }
        return b.toString();
    }

    /** The selection for one request, as {@code GpuCommunicator.algorithmFor} makes it (a sum for reductions). */
    public static Selection select(CollPlanner p, Explain.Request r) {
        return p.select(r.collective(), r.nBytes(), RedOp.Kind.SUM, false);
    }
}
