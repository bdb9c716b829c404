package io.jccl.cuda.internal.enqueue;

import io.jccl.Group;
import io.jccl.Jccl;
import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.enqueue.GroupState;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * This thread's GPU group (ncclGroupStart/ncclGroupEnd for GpuCommunicator): while a group is open, sends and
 * receives are only recorded; the outermost end launches each communicator's recorded operations as fused
 * kernels, so a send and a receive with the same peer run together and cannot deadlock. Collectives launch at
 * once even inside a group: a launch never blocks the host, and each is one kernel anyway. The exception is a
 * collective whose check waits for the other ranks (JCCL_CHECK_CALLS=1 over the host communicator): inside a group it
 * is recorded, every communicator's recorded calls are compared at the end in one host group (so one thread can
 * drive several ranks, as NCCL's users do), and only then launched.
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

    /**
     * A communicator's collectives recorded in this group, to compare with the other ranks' before any launches
     * (each exchange runs inside a host group that spans every communicator of the GPU group).
     */
    public interface GroupCheck {
        /** Records into the open host group the exchange of how many collectives each rank made in its group. */
        void exchangeCounts();

        /** Records into the open host group the exchange of the calls themselves (when every rank made as many). */
        void exchangeCalls();

        /**
         * Compares; on a difference drops the recorded collectives and throws, as every rank does. {@code exchanged}
         * false: an exchange failed, the recorded collectives are dropped without comparing.
         */
        void settle(boolean exchanged);
    }

    private int depth;
    private final Set<Pending> pending = new LinkedHashSet<>();
    private final Set<GroupCheck> checks = new LinkedHashSet<>();

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
        List<GroupCheck> compare = new ArrayList<>(g.checks);
        g.checks.clear();
        RuntimeException first = compare.isEmpty() ? null : check(compare);
        for (Pending p : todo) {
            try {
                p.flush();
            } catch (RuntimeException e) {
                first = keep(first, e);
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** Compares every communicator's recorded collectives (see {@link GroupCheck}); returns the first refusal. */
    @SuppressWarnings("try") // the resource is held for the scope, not used
    private static RuntimeException check(List<GroupCheck> compare) {
        RuntimeException first = null;
        boolean exchanged = false;
        try {
            if (GroupState.inGroup()) {
                throw new JcclException(Result.INVALID_USAGE,
                        "GpuCommunicator.groupEnd inside a host group (Jccl.group()"
                        + " or Jccl.groupStart()): with JCCL_CHECK_CALLS=1 the GPU group's collectives are compared "
                                + "with"
                        + " the other ranks' over the host communicators when it ends, which a host group would put "
                                + "off;"
                        + " none of them was launched. End the host group first");
            }
            try (Group counts = Jccl.group()) {
                compare.forEach(GroupCheck::exchangeCounts);
            }
            try (Group calls = Jccl.group()) {
                compare.forEach(GroupCheck::exchangeCalls);
            }
            exchanged = true;
        } catch (RuntimeException e) {
            first = e;
        }
        for (GroupCheck c : compare) {
            try {
                c.settle(exchanged);
            } catch (RuntimeException e) {
                first = keep(first, e);
            }
        }
        return first;
    }

    /** The first error, with the later ones suppressed in it. */
    private static RuntimeException keep(RuntimeException first, RuntimeException e) {
        if (first == null) {
            return e;
        }
        first.addSuppressed(e);
        return first;
    }

    /** Remembers {@code c}'s recorded collectives for comparison at the end of this thread's group. */
    public static void registerCheck(GroupCheck c) {
        CURRENT.get().checks.add(c);
    }

    /** Forgets {@code c} (its communicator is closing). */
    public static void forgetCheck(GroupCheck c) {
        CURRENT.get().checks.remove(c);
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
