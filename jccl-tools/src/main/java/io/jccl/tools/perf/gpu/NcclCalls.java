package io.jccl.tools.perf.gpu;

import io.jccl.DataType;
import io.jccl.RedOp;
import io.jccl.cuda.CudaStream;
import io.jccl.cuda.DeviceBuffer;
import io.jccl.cuda.GpuCommunicator;
import io.jccl.tools.perf.CollectiveCall;
import io.jccl.tools.perf.PerfBackend;

import java.lang.foreign.MemorySegment;

/**
 * A perf call bound to NCCL (libnccl.so.2 through FFM) on the same device buffers and stream as JCCL's. allToAll,
 * gather, scatter and sendrecv are grouped ncclSend/ncclRecv, as nccl-tests builds them. The rank's GPU is made
 * current before each call (NCCL uses the calling thread's device). preMulSum is not offered by the binding.
 * Stateless; mirrors nccl-tests' per-collective runColl functions.
 */
final class NcclCalls {
    private NcclCalls() {
    }

    static PerfBackend.PreparedCall prepare(NcclLibrary nccl, MemorySegment comm, GpuCommunicator g, CudaStream st,
                                            CollectiveCall c, DeviceBuffer s, DeviceBuffer r) {
        if (c.coll().reduces() && c.op().kind() == RedOp.Kind.PRE_MUL_SUM) {
            throw new IllegalArgumentException("the NCCL binding has no preMulSum (mulsum); measure NCCL with another "
                    + "-o");
        }
        long n = c.count();
        DataType t = c.type();
        RedOp op = c.op();
        int root = c.root();
        int rank = g.rank();
        int size = g.size();
        long blockBytes = n * t.sizeBytes();
        long sa = s.address();
        long ra = r.address();
        MemorySegment stream = st.handle();
        Runnable current = () -> g.device().makeCurrent();
        return switch (c.coll()) {
            case ALL_REDUCE -> () -> {
                current.run();
                nccl.allReduce(sa, ra, n, t, op, comm, stream);
            };
            case ALL_GATHER -> () -> {
                current.run();
                nccl.allGather(sa, ra, n, t, comm, stream);
            };
            case REDUCE_SCATTER -> () -> {
                current.run();
                nccl.reduceScatter(sa, ra, n, t, op, comm, stream);
            };
            case BROADCAST -> () -> {
                current.run();
                nccl.broadcast(sa, ra, n, t, root, comm, stream);
            };
            case REDUCE -> () -> {
                current.run();
                nccl.reduce(sa, ra, n, t, op, root, comm, stream);
            };
            case ALL_TO_ALL -> () -> grouped(nccl, current, () -> {
                for (int p = 0; p < size; p++) {
                    nccl.send(sa + p * blockBytes, n, t, p, comm, stream);
                    nccl.recv(ra + p * blockBytes, n, t, p, comm, stream);
                }
            });
            case GATHER -> () -> grouped(nccl, current, () -> {
                nccl.send(sa, n, t, root, comm, stream);
                if (rank == root) {
                    for (int p = 0; p < size; p++) {
                        nccl.recv(ra + p * blockBytes, n, t, p, comm, stream);
                    }
                }
            });
            case SCATTER -> () -> grouped(nccl, current, () -> {
                if (rank == root) {
                    for (int p = 0; p < size; p++) {
                        nccl.send(sa + p * blockBytes, n, t, p, comm, stream);
                    }
                }
                nccl.recv(ra, n, t, root, comm, stream);
            });
            case SEND_RECV -> () -> grouped(nccl, current, () -> {
                nccl.send(sa, n, t, (rank + 1) % size, comm, stream);
                nccl.recv(ra, n, t, (rank - 1 + size) % size, comm, stream);
            });
        };
    }

    private static void grouped(NcclLibrary nccl, Runnable current, Runnable calls) {
        current.run();
        nccl.groupStart();
        try {
            calls.run();
        } finally {
            nccl.groupEnd();
        }
    }
}
