package io.jccl.cuda.testing;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.Result;
import io.jccl.cuda.CudaStream;
import io.jccl.cuda.DeviceBuffer;
import io.jccl.cuda.GpuCommunicator;
import io.jccl.cuda.GpuWindow;
import io.jccl.cuda.HostElements;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs one collective on the GPU ranks this process drives (all ranks of an initAll communicator, or the one rank of
 * a process) and checks every output element against {@link Expected}: inputs written fresh, outputs pre-filled with
 * 0xFF bytes (NaN for floats) so unwritten elements show, then copied back after the streams are idle. A call
 * that does not finish within the timeout aborts the communicators and fails.
 *
 * <p>Thread: the test's thread. Used by the tests run on GPUs (and on the CPU emulator).
 */
public final class GpuChecker implements AutoCloseable {
    /** One call to check. */
    public record Case(Collective coll, DataType type, RedOp.Kind op, long count, boolean inPlace, int root) {
        @Override
        public String toString() {
            return coll.ncclName() + " " + type.ncclName() + " " + op + " count " + count + (inPlace ? " in place" : "")
                    + (coll.rooted() ? " root " + root : "");
        }
    }

    private final List<GpuCommunicator> comms;
    private final int n;
    private final CudaStream[] streams;
    private final DeviceBuffer[] send;
    private final DeviceBuffer[] recv;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment host;
    private final Duration timeout;
    /** Whether send and recv are this checker's own allocations (not slices of the caller's windows). */
    private final boolean ownsBuffers;

    /** Buffers of {@code bytes} per rank for send and receive, on each local rank's GPU. */
    public GpuChecker(List<GpuCommunicator> local, long bytes, Duration timeout) {
        this(local, null, bytes, timeout);
    }

    /**
     * Send and receive buffers of {@code bytes} each in {@code windows.get(i)} (at least 2·bytes) of local rank i,
     * so every call's buffers lie in a window (the symmetric kernels); null: buffers of the checker's own.
     */
    public GpuChecker(List<GpuCommunicator> local, List<GpuWindow> windows, long bytes, Duration timeout) {
        this.comms = local;
        this.n = local.getFirst().size();
        this.timeout = timeout;
        this.ownsBuffers = windows == null;
        int k = local.size();
        streams = new CudaStream[k];
        send = new DeviceBuffer[k];
        recv = new DeviceBuffer[k];
        for (int i = 0; i < k; i++) {
            streams[i] = CudaStream.create(local.get(i).device());
            send[i] = windows == null ? DeviceBuffer.allocate(local.get(i).device(), bytes)
                    : windows.get(i).buffer().slice(0, bytes);
            recv[i] = windows == null ? DeviceBuffer.allocate(local.get(i).device(), bytes)
                    : windows.get(i).buffer().slice(bytes, bytes);
        }
        host = arena.allocate(bytes, 16);
    }

    /** What local rank {@code i} would run {@code c} with on this checker's buffers ({@code algorithmFor}). */
    public String algorithm(Case c, int i) {
        Layout l = layout(c, i);
        return comms.get(i).algorithmFor(c.coll(), c.count(), c.type(), Expected.op(c.op(), 0), l.in(), l.out());
    }

    public CudaStream stream(int local) {
        return streams[local];
    }

    /** Runs {@code c}; returns null when every element is right, else a description of the first wrong one. */
    public String run(Case c) {
        Layout[] lay = new Layout[comms.size()];
        for (int i = 0; i < comms.size(); i++) {
            lay[i] = layout(c, i);
            fill(c, i, lay[i]);
        }
        issue(c, lay);
        return verify(c, lay);
    }

    /** Issues {@code c} on every local rank (inside one GPU group: send/recv need it). */
    public void issue(Case c, Layout[] lay) {
        GpuCommunicator.groupStart();
        try {
            for (int i = 0; i < comms.size(); i++) {
                call(comms.get(i), c, lay[i], streams[i]);
            }
        } finally {
            GpuCommunicator.groupEnd();
        }
    }

    /** Waits, copies back and checks. */
    public String verify(Case c, Layout[] lay) {
        synchronize();
        for (int i = 0; i < comms.size(); i++) {
            String wrong = check(c, comms.get(i).rank(), lay[i]);
            if (wrong != null) {
                return c + ": rank " + comms.get(i).rank() + " " + wrong + " ["
                        + comms.get(i).algorithmFor(c.coll() == Collective.SEND_RECV ? Collective.ALL_REDUCE : c.coll(),
                        c.count(), c.type(), Expected.op(c.op(), 0)) + "]";
            }
        }
        return null;
    }

    /** Where one rank's input and output live for a case. */
    public record Layout(DeviceBuffer in, DeviceBuffer out, long inElems, long outElems) {
    }

    public Layout layout(Case c, int i) {
        int r = comms.get(i).rank();
        long e = c.type().sizeBytes();
        long inElems = Expected.inputCount(c.coll(), n, c.count());
        long outElems = Expected.outputCount(c.coll(), n, r, c.root(), c.count());
        long outAll = switch (c.coll()) {
            case ALL_GATHER, ALL_TO_ALL, GATHER -> c.count() * n;
            default -> c.count();
        };
        if (!c.inPlace()) {
            return new Layout(send[i].slice(0, inElems * e), recv[i].slice(0, outAll * e), inElems, outElems);
        }
        return switch (c.coll()) {
            case ALL_GATHER -> new Layout(recv[i].slice(r * c.count() * e, c.count() * e), recv[i].slice(0, outAll * e),
                    inElems, outElems);
            case REDUCE_SCATTER -> new Layout(recv[i].slice(0, inElems * e), recv[i].slice(r * c.count() * e,
                    c.count() * e), inElems, outElems);
            default -> new Layout(recv[i].slice(0, Math.max(inElems, outAll) * e),
                    recv[i].slice(0, Math.max(inElems, outAll) * e), inElems, outElems);
        };
    }

    private void fill(Case c, int i, Layout l) {
        int r = comms.get(i).rank();
        long e = c.type().sizeBytes();
        recv[i].fillAsync((byte) 0xFF, streams[i]);
        streams[i].synchronize();
        MemorySegment in = host.asSlice(0, Math.max(l.inElems() * e, 1));
        for (long k = 0; k < l.inElems(); k++) {
            HostElements.set(c.type(), in, k, Expected.input(c.type(), c.op(), r, k));
        }
        if (l.inElems() > 0) {
            l.in().copyFrom(in.asSlice(0, l.inElems() * e));
        }
    }

    private void call(GpuCommunicator g, Case c, Layout l, CudaStream s) {
        RedOp op = Expected.op(c.op(), g.rank());
        long k = c.count();
        DataType t = c.type();
        switch (c.coll()) {
            case ALL_REDUCE -> g.allReduce(l.in(), l.out(), k, t, op, s);
            case BROADCAST -> g.broadcast(l.in(), l.out(), k, t, c.root(), s);
            case REDUCE -> g.reduce(l.in(), l.out(), k, t, op, c.root(), s);
            case ALL_GATHER -> g.allGather(l.in(), l.out(), k, t, s);
            case REDUCE_SCATTER -> g.reduceScatter(l.in(), l.out(), k, t, op, s);
            case ALL_TO_ALL -> g.allToAll(l.in(), l.out(), k, t, s);
            case GATHER -> g.gather(l.in(), l.out(), k, t, c.root(), s);
            case SCATTER -> g.scatter(l.in(), l.out(), k, t, c.root(), s);
            case SEND_RECV -> {
                g.send(l.in(), k, t, (g.rank() + 1) % n, s);
                g.recv(l.out(), k, t, (g.rank() - 1 + n) % n, s);
            }
            default -> throw new IllegalArgumentException(c.coll().toString());
        }
    }

    /** Waits for every local stream; aborts the communicators and throws TIMEOUT after the deadline. */
    public void synchronize() {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (CudaStream s : streams) {
            while (!s.isIdle()) {
                if (System.nanoTime() > deadline) {
                    comms.forEach(GpuCommunicator::abort);
                    for (CudaStream t : streams) {
                        t.synchronize();
                    }
                    throw new JcclException(Result.TIMEOUT, "GPU collectives did not finish within " + timeout);
                }
                LockSupport.parkNanos(50_000);
            }
        }
    }

    private String check(Case c, int r, Layout l) {
        long e = c.type().sizeBytes();
        if (l.outElems() == 0) {
            return null;
        }
        MemorySegment h = host.asSlice(0, l.outElems() * e);
        l.out().copyTo(h);
        for (long j = 0; j < l.outElems(); j++) {
            double[] want = Expected.output(c.coll(), c.type(), c.op(), n, r, c.root(), c.count(), j);
            double got = HostElements.get(c.type(), h, j);
            if (!(Math.abs(got - want[0]) <= want[1])) {
                return "element " + j + " of " + l.outElems() + ": expected " + want[0] + ", got " + got;
            }
        }
        return null;
    }

    @Override
    public void close() {
        for (int i = 0; i < streams.length; i++) {
            if (ownsBuffers) {
                send[i].close();
                recv[i].close();
            }
            streams[i].close();
        }
        arena.close();
    }
}
