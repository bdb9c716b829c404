package io.jccl.cuda;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.cuda.internal.enqueue.GpuGroups;

/**
 * A GPU group (NCCL's {@code ncclGroupStart}/{@code ncclGroupEnd} around GPU calls), opened with
 * {@link GpuCommunicator#group()} in a try-with-resources block. Groups nest; only the outermost {@link #close()}
 * launches what was recorded. Groups are per thread.
 *
 * <pre>{@code
 * try (GpuGroup g = GpuCommunicator.group()) {
 *     comm.send(a, n, DataType.FLOAT32, peer, stream);
 *     comm.recv(b, n, DataType.FLOAT32, peer, stream);
 * }   // both queued now, as one kernel: they cannot deadlock each other
 * }</pre>
 *
 * <p>Sends and receives made inside are launched together at the end, so exchanges with a peer cannot deadlock.
 * Collectives launch at once, inside or outside a group (a launch never blocks the host), so several communicators
 * can be driven from one thread with or without groups; {@link io.jccl.Jccl#group()} (the host communicators'
 * group) has no effect on GPU calls: use {@link GpuCommunicator#group()} for GPU sends and receives. With one process
 * per GPU and {@code JCCL_CHECK_CALLS=1} (each collective compared with every rank's before it launches), collectives
 * made inside a group launch at its end, after every call of the group was compared, so one thread driving several
 * ranks must put each round of calls in a group, as NCCL requires.
 *
 * <p>Thread: the thread that opened it. Mirrors NCCL's group.cc as seen from the caller.
 */
public final class GpuGroup implements AutoCloseable {
    private final Thread owner;
    private boolean closed;

    GpuGroup() {
        this.owner = Thread.currentThread();
        GpuGroups.start();
    }

    /**
     * Ends the group: the outermost end queues the sends and receives recorded since it opened (and, with
     * JCCL_CHECK_CALLS=1, the collectives once every rank's match). Returns without waiting for the GPU.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        if (Thread.currentThread() != owner) {
            throw new JcclException(Result.INVALID_USAGE, "a GPU group must be closed by the thread that opened it ("
                    + owner.getName() + "), not " + Thread.currentThread().getName());
        }
        closed = true;
        GpuGroups.end();
    }
}
