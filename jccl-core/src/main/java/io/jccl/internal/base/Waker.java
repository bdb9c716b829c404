package io.jccl.internal.base;

/**
 * Tells the other side of a connector that a worker published something (a tail or a head). For net connectors this
 * wakes the proxy thread if it sleeps; for shm connectors the peer polls, so it does nothing.
 * Owned by: called from the worker thread.
 */
public interface Waker {
    Waker NONE = () -> { };

    void wake();
}
