package io.jccl.internal.enqueue;

/** Per-thread group depth and recorded tasks (NCCL's thread-local group state). Skeleton. */
public final class GroupState {
    private GroupState() {
    }

    public static void start() {
    }

    public static void end() {
    }
}
