package io.jccl.cuda.testing;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.RedOp;
import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.CudaGraph;
import io.jccl.cuda.CudaStream;
import io.jccl.cuda.DeviceBuffer;
import io.jccl.cuda.GpuCommunicator;
import io.jccl.cuda.testing.GpuChecker.Case;

import java.time.Duration;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * One rank of the across-hosts test: each process has its own NCCL_HOSTID, so the ranks are on different "hosts"
 * and the GPU communicator wires every peer through the network proxy. Prints what the planner chose at a size
 * below and above the LL size, runs every collective (float sum and int32 sum, LL and ring sizes and sizes that
 * take both channels, in and out of place where NCCL allows it) and a captured CUDA graph replayed, checks every
 * element and exits 1 on any failure.
 */
public final class GpuHostsRankMain {
    private GpuHostsRankMain() {
    }

    /** The communicator of this process's rank on GPU LOCAL_RANK (modulo the GPUs), or exit 1 when init failed. */
    static GpuCommunicator openOrExit() {
        int local = Integer.parseInt(System.getenv().getOrDefault("LOCAL_RANK", "0"));
        try {
            return GpuCommunicator.fromEnvironment(CudaDevice.get(local % CudaDevice.count()));
        } catch (RuntimeException e) {
            e.printStackTrace(System.out);
            System.exit(1);
            throw e;
        }
    }

    public static void main(String[] args) {
        int failures = 0;
        GpuCommunicator comm = openOrExit();
        int r = comm.rank();
        for (Collective coll : new Collective[] {Collective.ALL_REDUCE, Collective.ALL_GATHER,
            Collective.REDUCE_SCATTER, Collective.BROADCAST, Collective.REDUCE, Collective.ALL_TO_ALL}) {
            for (long count : new long[] {5, 20011, 140001}) {
                System.out.println("rank " + r + " plans " + coll.ncclName() + " " + count + ": "
                        + comm.algorithmFor(coll, count, DataType.FLOAT32, RedOp.SUM));
            }
        }
        try (GpuChecker c = new GpuChecker(List.of(comm), 4 << 20, Duration.ofSeconds(60))) {
            for (Collective coll : new Collective[] {Collective.ALL_REDUCE, Collective.REDUCE_SCATTER,
                Collective.REDUCE, Collective.ALL_GATHER, Collective.BROADCAST, Collective.ALL_TO_ALL,
                Collective.SEND_RECV}) {
                for (long count : new long[] {1, 5, 200, 3001, 20011, 140001}) {
                    for (DataType t : new DataType[] {DataType.FLOAT32, DataType.INT32}) {
                        boolean inPlaceToo = coll != Collective.ALL_TO_ALL && coll != Collective.SEND_RECV;
                        for (boolean inPlace : inPlaceToo ? new boolean[] {false, true} : new boolean[] {false}) {
                            Case k = new Case(coll, t, RedOp.Kind.SUM, count, inPlace, inPlace ? 0 : 1);
                            String w = c.run(k);
                            if (w != null) {
                                failures++;
                                System.out.println("WRONG " + w);
                            } else {
                                System.out.println("rank " + r + " ok " + k);
                            }
                        }
                    }
                }
            }
            for (long count : new long[] {5, 140001}) {
                failures += graphs(comm, count);
            }
            System.out.println("rank " + r + " done, " + failures + " failures");
        } catch (RuntimeException e) {
            e.printStackTrace(System.out);
            failures++;
        }
        // inside a group, as perf closes: the pinned FIFOs must not be freed before the proxy thread stopped
        try (io.jccl.Group g = io.jccl.Jccl.group()) {
            comm.close();
        }
        System.out.println("rank " + r + " closed");
        System.exit(failures == 0 ? 0 : 1);
    }

    /**
     * CUDA graphs across hosts: two in-place int32 sum allReduces and an allGather of the result captured on a
     * stream, the graph replayed 3 times with no host work in between (the proxies move the FIFOs as the replayed
     * kernels fill them). Element i of rank q starts at i % 7 + q + 1, so after the k-th allReduce it is
     * n^(k-1) * S_i with S_i = n * (i % 7) + n(n+1)/2, and the allGather holds n copies of it. Returns the failures.
     */
    static int graphs(GpuCommunicator comm, long count) {
        int n = comm.size();
        int r = comm.rank();
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined();
             CudaStream stream = CudaStream.create(comm.device());
             DeviceBuffer buf = DeviceBuffer.allocate(comm.device(), count * 4);
             DeviceBuffer gathered = DeviceBuffer.allocate(comm.device(), n * count * 4)) {
            java.lang.foreign.MemorySegment h = arena.allocate(n * count * 4, 16);
            for (long i = 0; i < count; i++) {
                h.setAtIndex(JAVA_INT, i, (int) (i % 7 + r + 1));
            }
            buf.copyFrom(h.asSlice(0, count * 4));
            stream.beginCapture();
            comm.allReduce(buf, buf, count, DataType.INT32, RedOp.SUM, stream);
            comm.allReduce(buf, buf, count, DataType.INT32, RedOp.SUM, stream);
            comm.allGather(buf, gathered, count, DataType.INT32, stream);
            int replays = 3;
            try (CudaGraph graph = stream.endCapture()) {
                for (int k = 0; k < replays; k++) {
                    graph.launch(stream);
                }
                stream.synchronize();
            }
            gathered.copyTo(h);
            long scale = (long) Math.pow(n, 2 * replays - 1);
            for (long i = 0; i < n * count; i++) {
                long e = i % count;
                long want = scale * (n * (e % 7) + (long) n * (n + 1) / 2);
                if (h.getAtIndex(JAVA_INT, i) != want) {
                    System.out.println("WRONG graph replay, count " + count + " rank " + r + " element " + i + ": "
                            + h.getAtIndex(JAVA_INT, i) + " instead of " + want);
                    return 1;
                }
            }
            System.out.println("rank " + r + " ok graph of 2 allReduces and an allGather, count " + count + ", "
                    + replays + " replays");
            return 0;
        }
    }
}
