package io.jccl.cuda.internal.comm;

import io.jccl.Communicator;
import io.jccl.Group;
import io.jccl.Jccl;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The ranks of a GPU communicator whose ranks all live in this process but were wired as processes are (a
 * {@code split} of {@code initAll}'s ranks): they are released together, like a {@link Clique}, so that they can be
 * closed one after another from one thread. A rank's close only records what it owns; the last rank to close frees
 * every rank's memory (no peer kernel can still write into it: each rank waited for its own GPU before) and closes
 * the host communicators inside one group. Without this, the first close's host barrier would wait its whole timeout
 * for a rank the same thread had yet to close.
 *
 * <p>Thread: any application thread closes a rank; {@link #release} is synchronized. Mirrors ncclCommDestroy of
 * single-process communicators, which does not wait for the other ranks.
 */
final class LocalRanks {
    /** By host communicator id, while some of its ranks are open. */
    private static final Map<String, LocalRanks> OPEN = new ConcurrentHashMap<>();

    private final String id;
    private final int nRanks;
    private final List<Runnable> frees = new ArrayList<>();
    private final List<Communicator> hosts = new ArrayList<>();
    private int closed;

    private LocalRanks(String id, int nRanks) {
        this.id = id;
        this.nRanks = nRanks;
    }

    /** The group of the communicator {@code host} is a rank of (every rank of it is in this process). */
    static LocalRanks of(Communicator host) {
        return OPEN.computeIfAbsent(host.id(), k -> new LocalRanks(k, host.size()));
    }

    /**
     * One rank closed: {@code free} releases its GPU resources, {@code host} is its host communicator. The last rank
     * runs every rank's {@code free} and closes the host communicators together; returns the first error.
     */
    synchronized RuntimeException release(Runnable free, Communicator host) {
        frees.add(free);
        hosts.add(host);
        if (++closed < nRanks) {
            return null;
        }
        OPEN.remove(id, this);
        RuntimeException first = null;
        for (Runnable f : frees) {
            try {
                f.run();
            } catch (RuntimeException e) {
                first = first == null ? e : first;
            }
        }
        try (Group g = Jccl.group()) {
            for (Communicator h : hosts) {
                h.close();
            }
        } catch (RuntimeException e) {
            first = first == null ? e : first;
        }
        return first;
    }
}
