package io.jccl.cuda.testing;

import io.jccl.Config;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.CudaStream;
import io.jccl.cuda.DeviceBuffer;
import io.jccl.cuda.GpuCommunicator;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * One process of the JCCL_CHECK_CALLS=1 group test: it holds two ranks ({@link GpuCommunicator#fromEnvironment(List,
 * Config)}, GPUs {@code 2 × LOCAL_RANK} and the next) and drives both from this thread inside GPU groups, as NCCL's
 * users drive several devices; every call is compared over the host communicators when the group ends. Rounds:
 * <ol>
 *   <li>{@code match}: an allReduce of 1000 floats on each rank; prints {@code round match sum S} (S must be 10: rank
 *       r contributes r + 1);</li>
 *   <li>{@code count}: the last rank of the communicator calls 2000 floats; every rank's group is refused, printing
 *       {@code round count rank r RESULT message} for each of this process's ranks;</li>
 *   <li>{@code calls}: the last rank makes two allReduces in its group, the others one: refused likewise;</li>
 *   <li>{@code again}: round 1 once more, which must run (a refusal leaves the communicator usable), then it checks
 *       that no refused call ran: the buffers hold round 1's sums doubled, not more.</li>
 * </ol>
 * Exits 1 when a round did not go as described.
 */
public final class GpuGroupCheckRankMain {
    private static final int COUNT = 1000;

    private GpuGroupCheckRankMain() {
    }

    public static void main(String[] args) {
        int local = Integer.parseInt(System.getenv().getOrDefault("LOCAL_RANK", "0"));
        boolean ok = true;
        List<GpuCommunicator> comms = List.of();
        List<CudaStream> streams = new ArrayList<>();
        List<DeviceBuffer> bufs = new ArrayList<>();
        try {
            List<CudaDevice> devices = List.of(CudaDevice.get((2 * local) % CudaDevice.count()),
                    CudaDevice.get((2 * local + 1) % CudaDevice.count()));
            comms = GpuCommunicator.fromEnvironment(devices, Config.defaults());
            int last = comms.getFirst().size() - 1;
            for (GpuCommunicator g : comms) {
                streams.add(CudaStream.create(g.device()));
                DeviceBuffer b = DeviceBuffer.allocate(g.device(), 2L * COUNT * Float.BYTES);
                float[] v = new float[2 * COUNT];
                java.util.Arrays.fill(v, g.rank() + 1);
                b.copyFrom(MemorySegment.ofArray(v));
                bufs.add(b);
            }
            ok &= round("match", comms, streams, bufs, -1, 1) == null;
            ok &= refused(round("count", comms, streams, bufs, last, 1), comms.size());
            ok &= refused(round("calls", comms, streams, bufs, last, 2), comms.size());
            ok &= round("again", comms, streams, bufs, -1, 1) == null;
            float expected = 0;
            for (int r = 0; r <= last; r++) {
                expected += r + 1;
            }
            expected *= last + 1;   // two allReduces ran: the second summed every rank's first result
            for (int i = 0; i < comms.size(); i++) {
                float[] v = new float[2 * COUNT];
                bufs.get(i).copyTo(MemorySegment.ofArray(v));
                System.out.println("rank " + comms.get(i).rank() + " after all rounds " + v[0] + " " + v[COUNT - 1]
                        + " untouched " + v[COUNT]);
                ok &= v[0] == expected && v[COUNT - 1] == expected && v[COUNT] == comms.get(i).rank() + 1;
            }
        } catch (RuntimeException e) {
            e.printStackTrace(System.out);
            ok = false;
        } finally {
            bufs.forEach(DeviceBuffer::close);
            streams.forEach(CudaStream::close);
            comms.forEach(GpuCommunicator::close);
        }
        System.exit(ok ? 0 : 1);
    }

    /**
     * One GPU group with an allReduce per local rank ({@code calls} of them on rank {@code odd}, of 2 × COUNT
     * floats when {@code calls} is 1); returns the group's error, or null after checking every rank's asyncError.
     */
    private static JcclException round(String name, List<GpuCommunicator> comms, List<CudaStream> streams,
                                       List<DeviceBuffer> bufs, int odd, int calls) {
        try {
            GpuCommunicator.groupStart();
            try {
                for (int i = 0; i < comms.size(); i++) {
                    GpuCommunicator g = comms.get(i);
                    boolean different = g.rank() == odd;
                    long count = different && calls == 1 ? 2L * COUNT : COUNT;
                    for (int c = 0; c < (different ? calls : 1); c++) {
                        g.allReduce(bufs.get(i), bufs.get(i), count, DataType.FLOAT32, RedOp.SUM, streams.get(i));
                    }
                }
            } finally {
                GpuCommunicator.groupEnd();
            }
            streams.forEach(CudaStream::synchronize);
            for (GpuCommunicator g : comms) {
                if (g.asyncError() != null) {
                    throw g.asyncError();
                }
            }
            float[] v = new float[1];
            bufs.getFirst().copyTo(MemorySegment.ofArray(v));
            System.out.println("round " + name + " sum " + v[0]);
            return null;
        } catch (JcclException e) {
            System.out.println("round " + name + " " + e.result() + " " + e.getMessage());
            for (Throwable s : e.getSuppressed()) {
                System.out.println("round " + name + " also " + s.getMessage());
            }
            return e;
        }
    }

    /** Whether {@code e} refused the group for each of this process's {@code n} ranks. */
    private static boolean refused(JcclException e, int n) {
        return e != null && e.result() == io.jccl.Result.INVALID_USAGE && e.getSuppressed().length == n - 1;
    }
}
