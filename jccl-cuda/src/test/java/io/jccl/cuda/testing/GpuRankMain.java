package io.jccl.cuda.testing;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.RedOp;
import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.GpuCommunicator;
import io.jccl.cuda.testing.GpuChecker.Case;

import java.time.Duration;
import java.util.List;

/**
 * One rank of the one-process-per-GPU test: joins with {@link GpuCommunicator#fromEnvironment} on the GPU of its
 * LOCAL_RANK, runs every collective (LL and ring sizes, in and out of place, a reduction on bf16 and fp8),
 * checks every element, prints what was wrong and exits 1 on any failure.
 */
public final class GpuRankMain {
    private GpuRankMain() {
    }

    public static void main(String[] args) {
        int local = Integer.parseInt(System.getenv().getOrDefault("LOCAL_RANK", "0"));
        int failures = 0;
        try (GpuCommunicator g = GpuCommunicator.fromEnvironment(CudaDevice.get(local));
             GpuChecker c = new GpuChecker(List.of(g), 1 << 20, Duration.ofSeconds(60))) {
            for (Collective coll : new Collective[] {Collective.ALL_REDUCE, Collective.REDUCE_SCATTER,
                Collective.REDUCE, Collective.ALL_GATHER, Collective.BROADCAST, Collective.ALL_TO_ALL,
                Collective.SEND_RECV, Collective.GATHER, Collective.SCATTER}) {
                for (long count : new long[] {5, 200, 3001, 20011}) {
                    for (DataType t : new DataType[] {DataType.FLOAT32, DataType.BFLOAT16, DataType.FLOAT8_E4M3}) {
                        RedOp.Kind op = t == DataType.FLOAT32 ? RedOp.Kind.SUM : RedOp.Kind.MAX;
                        String w = c.run(new Case(coll, t, op, count, false, 1));
                        if (w == null && coll == Collective.ALL_REDUCE) {
                            w = c.run(new Case(coll, t, RedOp.Kind.PRE_MUL_SUM, count, true, 0));
                        }
                        if (w != null) {
                            failures++;
                            System.out.println("WRONG " + w);
                        }
                    }
                }
            }
            System.out.println("rank " + g.rank() + " done, " + failures + " failures");
        } catch (RuntimeException e) {
            e.printStackTrace(System.out);
            failures++;
        }
        System.exit(failures == 0 ? 0 : 1);
    }
}
