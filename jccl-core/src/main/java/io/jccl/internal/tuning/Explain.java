package io.jccl.internal.tuning;

import io.jccl.Collective;
import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.topology.setup.CommPlan;
import io.jccl.internal.topology.setup.NodePlan;
import io.jccl.internal.topology.setup.TopoReport;

import java.util.List;
import java.util.Locale;

/**
 * The whole story of a communicator's topology and tuning as text: the system and paths of the first node, the ring
 * and tree graphs, the agreed graph summaries, the channels, the cost model's table, and for each requested
 * (collective, bytes) every candidate's predicted time and why any was disabled. What {@code jccl topo --explain} and
 * {@code comm.explain(op, bytes)} print.
 *
 * <p>Stateless pure function, callable from any thread (it does call the tuner, see {@link Tuner} for its threading).
 */
public final class Explain {
    private Explain() {
    }

    /** One request: a collective and a byte count. */
    public record Request(Collective collective, long nBytes) {
        /**
         * Parses {@code COLL:BYTES}: the collective by NCCL name or enum name, case-insensitive, ignoring '_' (
         * {@code allreduce}, {@code ALL_REDUCE}, {@code AllReduce}); bytes with an optional K/M/G suffix (powers of
         * 1024).
         */
        public static Request parse(String s) {
            int colon = s.lastIndexOf(':');
            if (colon <= 0) {
                throw new JcclException(Result.INVALID_ARGUMENT, "'" + s + "' is not COLL:BYTES (e.g. allreduce:1M)");
            }
            String name = s.substring(0, colon).replace("_", "").trim();
            Collective coll = null;
            for (Collective c : Collective.values()) {
                if (c.ncclName().equalsIgnoreCase(name) || c.name().replace("_", "").equalsIgnoreCase(name)) {
                    coll = c;
                }
            }
            if (coll == null) {
                throw new JcclException(Result.INVALID_ARGUMENT, "unknown collective '" + s.substring(0, colon)
                        + "' (allreduce, broadcast, reduce, allgather, reducescatter, alltoall, ...)");
            }
            return new Request(coll, parseBytes(s.substring(colon + 1)));
        }

        static long parseBytes(String v) {
            String t = v.trim().toUpperCase(Locale.ROOT);
            long mult = 1;
            if (t.endsWith("B")) {
                t = t.substring(0, t.length() - 1);
            }
            if (t.endsWith("K")) {
                mult = 1L << 10;
            } else if (t.endsWith("M")) {
                mult = 1L << 20;
            } else if (t.endsWith("G")) {
                mult = 1L << 30;
            }
            if (mult != 1) {
                t = t.substring(0, t.length() - 1);
            }
            try {
                long n = Long.parseLong(t.trim());
                if (n < 0) {
                    throw new NumberFormatException();
                }
                return Math.multiplyExact(n, mult);
            } catch (NumberFormatException | ArithmeticException e) {
                throw new JcclException(Result.INVALID_ARGUMENT, "'" + v
                        + "' is not a byte count (e.g. 4096, 64K, 1M)");
            }
        }
    }

    public static String text(CommPlan plan, Tuner tuner, List<Request> requests, int maxRanks) {
        StringBuilder sb = new StringBuilder();
        NodePlan node0 = plan.nodes().get(0);
        sb.append(String.format(Locale.ROOT, "JCCL topology: %d ranks on %d node%s (%d..%d ranks per node)%n%n",
                plan.nRanks(), plan.nNodes(), plan.nNodes() == 1 ? "" : "s", plan.minLocalRanks(),
                plan.maxLocalRanks()));
        sb.append("--- node 0 system\n").append(TopoReport.system(node0.system()));
        sb.append("\n--- node 0 paths (hops/bw/type)\n").append(TopoReport.paths(node0.system()));
        sb.append("\n--- node 0 ring graph\n").append(TopoReport.graph(node0.system(), node0.ring()));
        sb.append("\n--- node 0 tree graph\n").append(TopoReport.graph(node0.system(), node0.tree()));
        sb.append("\n--- agreed across ranks\n");
        sb.append("ring: ").append(plan.ring()).append('\n');
        sb.append("tree: ").append(plan.tree()).append(", max tree pattern ").append(plan.maxTreePattern())
                .append('\n');
        sb.append("\n--- channels\n").append(TopoReport.channels(plan.channels(), maxRanks));
        sb.append("\n--- ").append(tuner.model().name()).append(" (latency us / bandwidth GB/s)\n");
        sb.append(TuningReport.table(tuner.model().table()));
        for (Request r : requests) {
            sb.append('\n').append(TuningReport.explain(tuner, r.collective(), r.nBytes()));
        }
        return sb.toString();
    }
}
