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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;

/**
 * One process of the across-hosts test of the rest of the API: it drives two GPUs ({@code fromEnvironment} with a
 * list of devices: two ranks per process, each process a host of its own by NCCL_HOSTID), then splits the
 * communicator by rank parity (every new communicator has one rank on each host) and shrinks it by the last rank, and
 * checks allReduce, allGather and broadcast element by element on each. Prints "process P done, N failures" and
 * exits 1 on any failure.
 */
public final class GpuHostsSplitRankMain {
    private GpuHostsSplitRankMain() {
    }

    public static void main(String[] args) throws Exception {
        int proc = Integer.parseInt(System.getenv("RANK"));
        int failures = 0;
        int gpus = CudaDevice.count();
        List<GpuCommunicator> world = GpuCommunicator.fromEnvironment(List.of(CudaDevice.get(2 * proc % gpus),
                CudaDevice.get((2 * proc + 1) % gpus)), Config.defaults());
        failures += check("world", world);
        int[] colors = world.stream().mapToInt(c -> c.rank() % 2).toArray();
        int[] keys = world.stream().mapToInt(GpuCommunicator::rank).toArray();
        List<GpuCommunicator> halves = GpuCommunicator.splitAll(world, colors, keys);
        failures += check("split", halves);
        int last = world.getFirst().size() - 1;
        List<GpuCommunicator> stay = world.stream().filter(c -> c.rank() != last).toList();
        List<GpuCommunicator> shrunk = onEach(stay, c -> c.shrink(last));
        failures += check("shrink", shrunk);
        onEach(shrunk, c -> close(c));
        onEach(halves, c -> close(c));
        onEach(world, c -> close(c));
        System.out.println("process " + proc + " done, " + failures + " failures");
        System.exit(failures == 0 ? 0 : 1);
    }

    private static Void close(GpuCommunicator c) {
        c.close();
        return null;
    }

    /** Runs {@code f} on every communicator at once, each on a thread of its own (the calls are collective). */
    private static <T> List<T> onEach(List<GpuCommunicator> comms, Function<GpuCommunicator, T> f) throws Exception {
        try (ExecutorService pool = Executors.newFixedThreadPool(comms.size())) {
            List<Future<T>> fs = new ArrayList<>();
            for (GpuCommunicator c : comms) {
                fs.add(pool.submit(() -> f.apply(c)));
            }
            List<T> out = new ArrayList<>();
            for (Future<T> x : fs) {
                out.add(x.get());
            }
            return out;
        }
    }

    /** allReduce, allGather and broadcast at a small and a two-channel count, every element checked. */
    private static int check(String what, List<GpuCommunicator> local) {
        int failures = 0;
        String ranks = local.stream().map(c -> c.rank() + "/" + c.size()).toList().toString();
        try (GpuChecker c = new GpuChecker(local, 4 << 20, Duration.ofSeconds(60))) {
            for (Collective coll : new Collective[] {Collective.ALL_REDUCE, Collective.ALL_GATHER,
                Collective.BROADCAST}) {
                for (long count : new long[] {5, 140001}) {
                    Case k = new Case(coll, DataType.FLOAT32, RedOp.Kind.SUM, count, false, 0);
                    String w = c.run(k);
                    if (w != null) {
                        failures++;
                        System.out.println("WRONG " + what + " ranks " + ranks + ": " + w);
                    }
                }
            }
        }
        System.out.println(what + " ranks " + ranks + " of " + local.getFirst().size() + ": " + (failures == 0
                ? "ok" : failures + " wrong"));
        return failures;
    }
}
