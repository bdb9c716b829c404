package io.jccl.tools.perf.gpu;

import io.jccl.DataType;
import io.jccl.RedOp;
import io.jccl.cuda.CudaStream;
import io.jccl.cuda.DeviceBuffer;
import io.jccl.cuda.GpuCommunicator;
import io.jccl.tools.perf.CollectiveCall;
import io.jccl.tools.perf.PerfBackend;

/**
 * A perf call bound to JCCL's {@link GpuCommunicator}: the buffers are sliced once, so a launch is one enqueue.
 * sendrecv is a send to the next rank and a receive from the previous one inside a GPU group, as nccl-tests does.
 * Stateless; mirrors nccl-tests' per-collective runColl functions.
 */
final class JcclCalls {
    private JcclCalls() {
    }

    static PerfBackend.PreparedCall prepare(GpuCommunicator g, CudaStream st, CollectiveCall c, DeviceBuffer s,
                                            DeviceBuffer r) {
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
