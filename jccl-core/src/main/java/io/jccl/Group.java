package io.jccl;

import io.jccl.internal.enqueue.GroupState;

/**
 * A group of calls launched together (NCCL's {@code ncclGroupStart}/{@code ncclGroupEnd}), opened with
 * {@link Jccl#group()} in a try-with-resources block. Groups nest; only the outermost {@link #close()} launches.
 * Groups are per thread.
 *
 * <pre>{@code
 * try (Group g = Jccl.group()) {
 *     comm.send(a, n, DataType.FLOAT32, peer);
 *     comm.recv(b, n, DataType.FLOAT32, peer);
 * }   // both run now, concurrently; close() returns when both are done
 * }</pre>
 */
public final class Group implements AutoCloseable {
    private final Thread owner;
    private boolean closed;

    Group() {
        this.owner = Thread.currentThread();
        GroupState.start();
    }

    /**
     * Ends the group: launches every call recorded since it opened (on all communicators) and waits until they
     * complete. Throws the first failure; the other calls are still waited for.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        if (Thread.currentThread() != owner) {
            throw new JcclException(Result.INVALID_USAGE, "a group must be closed by the thread that opened it ("
                    + owner.getName() + "), not " + Thread.currentThread().getName());
        }
        closed = true;
        GroupState.end();
    }
}
