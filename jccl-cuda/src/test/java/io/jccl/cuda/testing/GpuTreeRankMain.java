package io.jccl.cuda.testing;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.RedOp;
import io.jccl.cuda.GpuCommunicator;
import io.jccl.cuda.testing.GpuChecker.Case;

import java.time.Duration;
import java.util.List;

/**
 * One rank of the tree test across hosts (run with {@code NCCL_ALGO=allreduce:tree}, each process on a host of its
 * own or two to a host): prints the plans, then checks allReduce on the tree for every type with sum, every reduction
 * on float32 and int32, in and out of place, at sizes of one slot, several slots and several per channel; an
 * allGather (still the ring) between them; and a captured graph replayed ({@link GpuHostsRankMain#graphs}). Exits 1
 * on any wrong element.
 */
public final class GpuTreeRankMain {
    private GpuTreeRankMain() {
    }

    public static void main(String[] args) {
        int failures = 0;
        GpuCommunicator comm = GpuHostsRankMain.openOrExit();
        int r = comm.rank();
        for (long count : new long[] {5, 140001}) {
            System.out.println("rank " + r + " plans AllReduce " + count + ": "
                    + comm.algorithmFor(Collective.ALL_REDUCE, count, DataType.FLOAT32, RedOp.SUM));
        }
        try (GpuChecker c = new GpuChecker(List.of(comm), 4 << 20, Duration.ofSeconds(60))) {
            List<Case> cases = new java.util.ArrayList<>();
            for (DataType t : DataType.values()) {
                for (long count : new long[] {1, 5, 3001, 140001}) {
                    cases.add(new Case(Collective.ALL_REDUCE, t, RedOp.Kind.SUM, count, count % 2 == 0, 0));
                }
            }
            for (RedOp.Kind op : RedOp.Kind.values()) {
                for (DataType t : new DataType[] {DataType.FLOAT32, DataType.INT32}) {
                    cases.add(new Case(Collective.ALL_REDUCE, t, op, 20011, false, 0));
                    cases.add(new Case(Collective.ALL_REDUCE, t, op, 20011, true, 0));
                }
            }
            cases.add(new Case(Collective.ALL_GATHER, DataType.FLOAT32, RedOp.Kind.SUM, 20011, false, 0));
            cases.add(new Case(Collective.ALL_REDUCE, DataType.FLOAT32, RedOp.Kind.SUM, 1 << 20, true, 0));
            for (Case k : cases) {
                String w = c.run(k);
                if (w != null) {
                    failures++;
                    System.out.println("WRONG " + w);
                } else {
                    System.out.println("rank " + r + " ok " + k);
                }
            }
            failures += GpuHostsRankMain.graphs(comm, 140001);
            System.out.println("rank " + r + " done, " + failures + " failures");
        } catch (RuntimeException e) {
            e.printStackTrace(System.out);
            failures++;
        }
        comm.close();
        System.out.println("rank " + r + " closed");
        System.exit(failures == 0 ? 0 : 1);
    }
}
