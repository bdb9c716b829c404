package io.jccl.tools.run.netns;

import io.jccl.DataType;
import io.jccl.Group;
import io.jccl.Jccl;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.CudaStream;
import io.jccl.cuda.DeviceBuffer;
import io.jccl.cuda.GpuCommunicator;
import io.jccl.launch.Launch;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One GPU rank of the namespace-host tests: picks its GPU by the launcher's local rank ({@link Launch#placement()})
 * and joins with {@link GpuCommunicator#fromEnvironment(CudaDevice)}. Modes (first argument):
 * <ul>
 *   <li>{@code all}: allReduce, broadcast, reduce, allGather, reduceScatter, allToAll and a send/recv ring on int32
 *   at a small and a large count, every element compared with its exact value; ends with {@code ALL OK};</li>
 *   <li>{@code loop SECONDS}: verified allReduces for that long, a {@code progress N} line every 200 ms, then
 *   {@code DONE}.</li>
 * </ul>
 * A wrong element prints {@code WRONG ...} and exits 3; a {@code JcclException} (thrown, or the communicator's
 * asyncError) prints {@code JCCL_ERROR <result> <message>} and exits 4.
 */
public final class GpuCrossHostCheck {
    private static final int[] COUNTS = {5, 70_001};

    private final GpuCommunicator comm;
    private final CudaStream stream;
    private final int rank;
    private final int n;
    private final Arena arena = Arena.ofShared();
    /** Where results are copied to be checked, as large as the largest buffer. */
    private MemorySegment scratch = MemorySegment.NULL;

    private GpuCrossHostCheck(GpuCommunicator comm, CudaStream stream) {
        this.comm = comm;
        this.stream = stream;
        this.rank = comm.rank();
        this.n = comm.size();
    }

    public static void main(String[] args) {
        CudaDevice device = CudaDevice.get(Launch.placement().localRankOr(0));
        try (GpuCommunicator comm = GpuCommunicator.fromEnvironment(device);
             CudaStream stream = CudaStream.create(device)) {
            GpuCrossHostCheck c = new GpuCrossHostCheck(comm, stream);
            if (args[0].equals("all")) {
                c.all();
                System.out.println("ALL OK " + comm.size() + " GPU ranks, rank " + comm.rank() + " on GPU "
                        + device.ordinal() + ", local " + comm.host().localRank() + "/" + comm.host().localSize());
            } else {
                c.loop(Double.parseDouble(args[1]));
            }
        } catch (JcclException e) {
            System.out.println("JCCL_ERROR " + e.result() + " " + e.getMessage());
            System.out.flush();
            System.exit(4);
        }
    }

    private void all() {
        int root = n - 1;
        for (int count : COUNTS) {
            long total = (long) count * n;
            try (DeviceBuffer send = DeviceBuffer.allocate(comm.device(), total * 4);
                 DeviceBuffer recv = DeviceBuffer.allocate(comm.device(), total * 4)) {
                MemorySegment host = arena.allocate(total * 4, 64);
                for (long i = 0; i < total; i++) {
                    host.setAtIndex(ValueLayout.JAVA_INT, i, CrossHostCheck.value(rank, i));
                }
                send.copyFrom(host);
                comm.allReduce(send, recv, count, DataType.INT32, RedOp.SUM, stream);
                check("allReduce", recv, count, this::sum);
                comm.broadcast(send, recv, count, DataType.INT32, root, stream);
                check("broadcast", recv, count, i -> CrossHostCheck.value(root, i));
                comm.reduce(send, recv, count, DataType.INT32, RedOp.SUM, root, stream);
                check("reduce", recv, rank == root ? count : 0, this::sum);
                comm.allGather(send, recv, count, DataType.INT32, stream);
                check("allGather", recv, total, i -> CrossHostCheck.value((int) (i / count), i % count));
                comm.reduceScatter(send, recv, count, DataType.INT32, RedOp.SUM, stream);
                check("reduceScatter", recv, count, i -> sum(rank * (long) count + i));
                comm.allToAll(send, recv, count, DataType.INT32, stream);
                check("allToAll", recv, total, i -> CrossHostCheck.value((int) (i / count),
                        rank * (long) count + i % count));
                int next = (rank + 1) % n;
                int prev = (rank - 1 + n) % n;
                try (Group g = Jccl.group()) {
                    comm.send(send, count, DataType.INT32, next, stream);
                    comm.recv(recv, count, DataType.INT32, prev, stream);
                }
                check("sendRecv", recv, count, i -> CrossHostCheck.value(prev, i));
                System.out.println("OK every collective at " + count);
            }
        }
        graphs();
    }

    /**
     * Three in-place allReduces captured in a CUDA graph, replayed three times with no host work per replay: after
     * the first the data is the sum, and each later one multiplies it by the number of ranks.
     */
    private void graphs() {
        int count = 20_001;
        try (DeviceBuffer buf = DeviceBuffer.allocate(comm.device(), count * 4L)) {
            MemorySegment host = arena.allocate(count * 4L, 64);
            for (long i = 0; i < count; i++) {
                host.setAtIndex(ValueLayout.JAVA_INT, i, (int) (i % 5) + rank);
            }
            buf.copyFrom(host);
            stream.beginCapture();
            for (int k = 0; k < 3; k++) {
                comm.allReduce(buf, buf, count, DataType.INT32, RedOp.SUM, stream);
            }
            try (io.jccl.cuda.CudaGraph graph = stream.endCapture()) {
                for (int replay = 0; replay < 3; replay++) {
                    graph.launch(stream);
                }
                int factor = 1;
                for (int k = 0; k < 8; k++) {
                    factor *= n;
                }
                int times = factor;
                check("graph-replayed allReduce", buf, count, i -> times * (n * (int) (i % 5) + n * (n - 1) / 2));
            }
            System.out.println("OK 3 replays of a captured graph of 3 allReduces");
        }
    }

    private void loop(double seconds) {
        int count = 16_384;
        try (DeviceBuffer send = DeviceBuffer.allocate(comm.device(), (count + 1) * 4L);
             DeviceBuffer recv = DeviceBuffer.allocate(comm.device(), (count + 1) * 4L)) {
            MemorySegment host = arena.allocate((count + 1) * 4L, 64);
            long end = System.nanoTime() + (long) (seconds * 1e9);
            long nextReport = 0;
            long iter = 0;
            boolean stop = false;
            while (!stop) {
                for (long i = 0; i < count; i++) {
                    host.setAtIndex(ValueLayout.JAVA_INT, i, CrossHostCheck.value(rank, i + iter));
                }
                // the last element carries rank 0's "time is up", so every rank runs the same number of calls
                host.setAtIndex(ValueLayout.JAVA_INT, count, rank == 0 && System.nanoTime() >= end ? 1 : 0);
                send.copyFrom(host);
                comm.allReduce(send, recv, count + 1, DataType.INT32, RedOp.SUM, stream);
                long shift = iter;
                check("allReduce", recv, count, i -> sum(i + shift));
                stop = scratch.getAtIndex(ValueLayout.JAVA_INT, count) != 0;   // the sum: rank 0's flag
                iter++;
                if (System.nanoTime() >= nextReport) {
                    System.out.println("progress " + iter);
                    nextReport = System.nanoTime() + 200_000_000L;
                }
            }
            System.out.println("DONE " + iter + " verified allReduces");
        }
    }

    private int sum(long i) {
        return CrossHostCheck.sum(n, i);
    }

    /** Synchronises, then compares the first {@code count} elements of {@code buf} (copied to the host). */
    private void check(String what, DeviceBuffer buf, long count, java.util.function.LongToIntFunction expected) {
        stream.synchronize();
        JcclException async = comm.asyncError();
        if (async != null) {
            throw async;
        }
        if (count == 0) {
            return;
        }
        if (scratch.byteSize() < buf.sizeBytes()) {
            scratch = arena.allocate(buf.sizeBytes(), 64);
        }
        MemorySegment host = scratch.asSlice(0, buf.sizeBytes());
        buf.copyTo(host);
        for (long i = 0; i < count; i++) {
            int got = host.getAtIndex(ValueLayout.JAVA_INT, i);
            int want = expected.applyAsInt(i);
            if (got != want) {
                System.out.println("WRONG " + what + " rank " + rank + " element " + i + ": " + got + ", expected "
                        + want);
                System.out.flush();
                System.exit(3);
            }
        }
    }
}
