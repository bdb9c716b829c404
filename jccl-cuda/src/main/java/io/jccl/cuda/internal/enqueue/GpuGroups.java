package io.jccl.cuda.internal.enqueue;

import io.jccl.JcclException;
import io.jccl.Result;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * This thread's GPU group (ncclGroupStart/ncclGroupEnd for GpuCommunicator): while a group is open, sends and
 * receives are only recorded; the outermost end launches each communicator's recorded operations as fused
 * kernels, so a send and a receive with the same peer run together and cannot deadlock. Collectives launch at
 * once even inside a group: a launch never blocks the host, and each is one kernel anyway.
 *
 * <p>Owned by one thread (thread-local). Mirrors NCCL's group.cc depth counter and its comm list.
 */
public final class GpuGroups {
    /** Something that has recorded work to launch at group end. */
    public interface Pending {
        /** Launches the recorded work. */
        void flush();
    }

    private static final ThreadLocal<GpuGroups> CURRENT = ThreadLocal.withInitial(GpuGroups::new);

    private int depth;
    private final Set<Pending> pending = new LinkedHashSet<>();

    private GpuGroups() {
    }

    public static void start() {
        CURRENT.get().depth++;
    }

    /** Ends one level; the outermost end flushes every communicator with recorded work, in first-use order. */
    public static void end() {
        GpuGroups g = CURRENT.get();
        if (g.depth == 0) {
            throw new JcclException(Result.INVALID_USAGE, "GpuCommunicator.groupEnd without a matching groupStart "
                    + "on this thread");
        }
        if (--g.depth > 0) {
            return;
        }
        List<Pending> todo = new ArrayList<>(g.pending);
        g.pending.clear();
        RuntimeException first = null;
        for (Pending p : todo) {
            try {
                p.flush();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** True while this thread is inside a group. */
    public static boolean inGroup() {
        return CURRENT.get().depth > 0;
    }

    /** Remembers {@code p} for the end of this thread's group (call only inside a group). */
    public static void register(Pending p) {
        CURRENT.get().pending.add(p);
    }

    /** Forgets {@code p} (it is closing). */
    public static void forget(Pending p) {
        CURRENT.get().pending.remove(p);
    }
}
