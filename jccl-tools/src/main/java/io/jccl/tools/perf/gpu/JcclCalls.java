package io.jccl.tools.perf.gpu;

import io.jccl.DataType;
import io.jccl.RedOp;
import io.jccl.cuda.CudaStream;
import io.jccl.cuda.DeviceBuffer;
import io.jccl.cuda.GpuCommunicator;
import io.jccl.cuda.GpuWindow;
import io.jccl.tools.perf.CollectiveCall;
import io.jccl.tools.perf.PerfBackend;

/**
 * A perf call bound to JCCL's {@link GpuCommunicator}: the buffers are sliced once, so a launch is one enqueue.
 * sendrecv is a send to the next rank and a receive from the previous one inside a GPU group, as nccl-tests does;
 * with {@code --put-signal} it is one-sided, as a pipeline stage passes activations with NCCL 2.29's ncclPutSignal:
 * a 0-byte putSignal (signal 1) tells the previous rank this rank's receive buffer may be written, a waitSignal for
 * the next rank's, a putSignal of the send buffer into the next rank's window at the receive buffer's offset
 * (signal 0), then a waitSignal for the previous rank's. Without the first two, a put could land before its target
 * was ready (perf's check clears the receive buffer before each call).
 * Stateless; mirrors nccl-tests' per-collective runColl functions.
 */
final class JcclCalls {
    private JcclCalls() {
    }

    /** {@code putWindow}: the window holding {@code r} for {@code --put-signal}, else null. */
    static PerfBackend.PreparedCall prepare(GpuCommunicator g, CudaStream st, CollectiveCall c, DeviceBuffer s,
                                            DeviceBuffer r, GpuWindow putWindow) {
        long n = c.count();
        DataType t = c.type();
        RedOp op = c.op();
        int root = c.root();
        return switch (c.coll()) {
            case ALL_REDUCE -> () -> g.allReduce(s, r, n, t, op, st);
            case ALL_GATHER -> () -> g.allGather(s, r, n, t, st);
            case REDUCE_SCATTER -> () -> g.reduceScatter(s, r, n, t, op, st);
            case BROADCAST -> () -> g.broadcast(s, r, n, t, root, st);
            case REDUCE -> () -> g.reduce(s, r, n, t, op, root, st);
            case ALL_TO_ALL -> () -> g.allToAll(s, r, n, t, st);
            case GATHER -> () -> g.gather(s, r, n, t, root, st);
            case SCATTER -> () -> g.scatter(s, r, n, t, root, st);
            case SEND_RECV -> {
                int size = g.size();
                int to = (g.rank() + 1) % size;
                int from = (g.rank() - 1 + size) % size;
                if (putWindow != null) {
                    long offset = r.address() - putWindow.buffer().address();
                    long bytes = n * t.sizeBytes();
                    yield () -> {
                        g.putSignal(putWindow, offset, s, 0, from, 1, st);
                        g.waitSignal(putWindow, to, 1, 1, st);
                        g.putSignal(putWindow, offset, s, bytes, to, 0, st);
                        g.waitSignal(putWindow, from, 0, 1, st);
                    };
                }
                yield () -> {
                    GpuCommunicator.groupStart();
                    try {
                        g.send(s, n, t, to, st);
                        g.recv(r, n, t, from, st);
                    } finally {
                        GpuCommunicator.groupEnd();
                    }
                };
            }
        };
    }
}
