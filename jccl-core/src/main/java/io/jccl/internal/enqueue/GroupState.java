package io.jccl.internal.enqueue;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.algorithm.CollArgs;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * This thread's group (NCCL's thread-local {@code ncclGroupDepth} and task lists): calls made inside a group are
 * recorded per communicator; the outermost end launches them all together through {@link GroupLauncher} and waits.
 *
 * <p>Owned by: one thread (thread-local). Mirrors: group.cc ncclGroupStartInternal / ncclGroupEndInternal.
 */
public final class GroupState {
    private static final ThreadLocal<GroupState> CURRENT = ThreadLocal.withInitial(GroupState::new);

    /** A recorded call and, for async calls, the future to complete with the group. */
    public record Recorded(CollArgs args, CompletableFuture<Void> future) {
    }

    private int depth;
    private final Map<Launchable, List<Recorded>> calls = new LinkedHashMap<>();
    private final List<Closing> closes = new ArrayList<>();

    /** A communicator closing inside a group: both halves run at the group's end, each for all before the next. */
    public interface Closing {
        /** Waits for this communicator's work and tells its peers it is closing (never waits for peers). */
        void closeBegin();

        /** Waits for the peers' closing messages, then releases everything. */
        void closeFinish();
    }

    /** A communicator as the group machinery sees it. */
    public interface Launchable {
        /** Plans and prepares connections (phase 1) for the recorded calls. */
        GroupLauncher.Prepared prepare(List<Recorded> calls);
    }

    private GroupState() {
    }

    /** ncclGroupStart: one level deeper. */
    public static void start() {
        CURRENT.get().depth++;
    }

    /** ncclGroupEnd: one level up; the outermost end launches everything and waits. */
    public static void end() {
        GroupState g = CURRENT.get();
        if (g.depth == 0) {
            throw new JcclException(Result.INVALID_USAGE, "groupEnd: not in a group call (groupStart missing)");
        }
        if (--g.depth > 0) {
            return;
        }
        Map<Launchable, List<Recorded>> batch = new LinkedHashMap<>(g.calls);
        List<Closing> closing = new ArrayList<>(g.closes);
        g.calls.clear();
        g.closes.clear();
        try {
            if (!batch.isEmpty()) {
                GroupLauncher.launch(batch);
            }
        } finally {
            closing.forEach(Closing::closeBegin);
            closing.forEach(Closing::closeFinish);
        }
    }

    /** True when this thread is inside a group. */
    public static boolean inGroup() {
        return CURRENT.get().depth > 0;
    }

    /** Records a close if this thread is in a group; returns false otherwise. */
    public static boolean recordClose(Closing c) {
        GroupState g = CURRENT.get();
        if (g.depth == 0) {
            return false;
        }
        g.closes.add(c);
        return true;
    }

    /** Records a call if this thread is in a group; returns false (and records nothing) otherwise. */
    public static boolean record(Launchable comm, CollArgs args, CompletableFuture<Void> future) {
        GroupState g = CURRENT.get();
        if (g.depth == 0) {
            return false;
        }
        g.calls.computeIfAbsent(comm, k -> new ArrayList<>()).add(new Recorded(args, future));
        return true;
    }
}
