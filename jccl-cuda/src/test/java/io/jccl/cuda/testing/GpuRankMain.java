package io.jccl.cuda.testing;

import io.jccl.Collective;
import io.jccl.Config;
import io.jccl.DataType;
import io.jccl.RedOp;
import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.GpuCommunicator;
import io.jccl.cuda.testing.GpuChecker.Case;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One rank of the one-process-per-GPU test: joins with {@link GpuCommunicator#fromEnvironment} on the GPU of its
 * LOCAL_RANK, runs every collective (LL and ring sizes, in and out of place, a reduction on bf16 and fp8),
 * checks every element, prints what was wrong and exits 1 on any failure. With {@code GPU_TEST_PER_PROCESS=K} the
 * process holds K ranks on GPUs {@code K × LOCAL_RANK} onwards ({@link GpuCommunicator#fromEnvironment(List,
 * io.jccl.Config)}; modulo the GPU count when tests share GPUs), drives them from this thread and closes them one
 * after another.
 */
public final class GpuRankMain {
    private GpuRankMain() {
    }

    public static void main(String[] args) {
        int local = Integer.parseInt(System.getenv().getOrDefault("LOCAL_RANK", "0"));
        int perProcess = Integer.parseInt(System.getenv().getOrDefault("GPU_TEST_PER_PROCESS", "1"));
        int failures = 0;
        List<GpuCommunicator> comms = List.of();
        try {
            if (perProcess == 1) {
                comms = List.of(GpuCommunicator.fromEnvironment(CudaDevice.get(local)));
            } else {
                List<CudaDevice> devices = new ArrayList<>();
                for (int i = 0; i < perProcess; i++) {
                    devices.add(CudaDevice.get((local * perProcess + i) % CudaDevice.count()));
                }
                comms = GpuCommunicator.fromEnvironment(devices, Config.defaults());
            }
        } catch (RuntimeException e) {
            e.printStackTrace(System.out);
            System.exit(1);
        }
        String ranks = comms.getFirst().rank() + (perProcess == 1 ? "" : "-" + comms.getLast().rank());
        try (GpuChecker c = new GpuChecker(comms, 1 << 20, Duration.ofSeconds(60))) {
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
            System.out.println((perProcess == 1 ? "rank " : "ranks ") + ranks + " done, " + failures + " failures");
        } catch (RuntimeException e) {
            e.printStackTrace(System.out);
            failures++;
        }
        long t0 = System.nanoTime();
        for (GpuCommunicator g : comms) {
            g.close();   // one after another from this thread: a close must not wait for the next one
        }
        long closeMs = (System.nanoTime() - t0) / 1_000_000;
        System.out.println("closed " + comms.size() + " in " + closeMs + " ms");
        if (closeMs > 30_000) {   // the host barrier of a close that waited for the next one gives up only at 120 s
            failures++;
        }
        System.exit(failures == 0 ? 0 : 1);
    }
}
