package io.jccl.internal.enqueue;

import io.jccl.JcclException;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Launches the calls of a group on every communicator involved, in lock-step phases so that one thread driving
 * several communicators cannot deadlock: plan and announce connections on all, connect senders on all, accept on
 * all, submit all, then wait for all. A single communicator with only synchronous calls may run inline.
 *
 * <p>Owned by: the thread ending the group. Mirrors: group.cc groupLaunch (preconnect, then launch per comm).
 */
public final class GroupLauncher {
    private GroupLauncher() {
    }

    /** A communicator's launch after phase 1. */
    public interface Prepared {
        /** Phase 2: connect missing senders. */
        void connectSends();

        /** Phase 3: complete missing receivers. */
        void finishConnections();

        /** Submits the works; runs them inline when allowed. */
        void submit(boolean mayInline);

        /** Waits for completion; throws the first error. */
        void await();
    }

    static void launch(Map<GroupState.Launchable, List<GroupState.Recorded>> batch) {
        List<Prepared> prepared = new ArrayList<>();
        JcclException first = null;
        try {
            for (var e : batch.entrySet()) {
                prepared.add(e.getKey().prepare(e.getValue()));
            }
            for (Prepared p : prepared) {
                p.connectSends();
            }
            for (Prepared p : prepared) {
                p.finishConnections();
            }
            boolean single = prepared.size() == 1 && allSync(batch);
            for (Prepared p : prepared) {
                p.submit(single);
            }
        } catch (JcclException e) {
            first = e;
        }
        for (Prepared p : prepared) {
            try {
                p.await();
            } catch (JcclException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private static boolean allSync(Map<GroupState.Launchable, List<GroupState.Recorded>> batch) {
        for (List<GroupState.Recorded> l : batch.values()) {
            for (GroupState.Recorded r : l) {
                if (r.future() != null) {
                    return false;
                }
            }
        }
        return true;
    }
}
