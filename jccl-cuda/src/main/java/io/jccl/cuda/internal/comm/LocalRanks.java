package io.jccl.cuda.internal.comm;

import io.jccl.Communicator;
import io.jccl.Group;
import io.jccl.Jccl;
import io.jccl.internal.comm.RankThreads;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The ranks of a GPU communicator wired as processes are that live in this process (a {@code split} of
 * {@code initAll}'s ranks, or {@code initRanks}' several GPUs per process): they are released together, like a
 * {@link Clique}, so that they can be closed one after another from one thread. A rank's close only records what it
 * owns; the last local rank to close runs, when other processes hold ranks too, every local rank's closing host
 * barrier at once (so no remote kernel can still write into their memory), frees every local rank's memory (no local
 * kernel can: each rank waited for its own GPU before) and closes the host communicators inside one group. Without
 * this, the first close's host barrier would wait its whole timeout for a rank the same thread had yet to close.
 *
 * <p>Thread: any application thread closes a rank; {@link #release} is synchronized. Mirrors ncclCommDestroy of
 * single-process communicators, which does not wait for the other ranks.
 */
final class LocalRanks {
    /** By host communicator id, while some of its ranks are open. */
    private static final Map<String, LocalRanks> OPEN = new ConcurrentHashMap<>();

    private final String id;
    private final int local;
    private final boolean others;
    private final List<Runnable> frees = new ArrayList<>();
    private final List<Runnable> afterClose = new ArrayList<>();
    private final List<Communicator> hosts = new ArrayList<>();
    private int closed;
    private boolean stopped;

    private LocalRanks(String id, int local, boolean others) {
        this.id = id;
        this.local = local;
        this.others = others;
    }

    /** The group of the communicator {@code host} is a rank of, {@code local} of whose ranks are in this process. */
    static LocalRanks of(Communicator host, int local) {
        return OPEN.computeIfAbsent(host.id(), k -> new LocalRanks(k, local, local < host.size()));
    }

    /**
     * One rank closed: {@code free} releases its GPU resources, {@code host} is its host communicator,
     * {@code stopped} says whether the communicator was stopped (then peers may be gone: no barrier). The last local
     * rank runs the barriers, every rank's {@code free}, closes the host communicators together, then runs every
     * rank's {@code after} (memory their proxy threads used); returns the first error.
     */
    @SuppressWarnings("try") // the resource is held for the scope, not used
    synchronized RuntimeException release(Runnable free, Runnable after, Communicator host, boolean stopped) {
        frees.add(free);
        afterClose.add(after);
        hosts.add(host);
        this.stopped |= stopped;
        if (++closed < local) {
            return null;
        }
        OPEN.remove(id, this);
        if (others && !this.stopped) {
            barriers(hosts);
        }
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
        for (Runnable f : afterClose) {
            try {
                f.run();
            } catch (RuntimeException e) {
                first = first == null ? e : first;
            }
        }
        return first;
    }

    /**
     * Every rank's closing barrier on {@code hosts} at once, each on a thread of its own (each waits for the other
     * processes' ranks, at most the host communicator's timeout); failures ignored: the communicator is going away
     * either way. Threads of their own also keep the barriers out of a group the closing thread may have open (perf
     * closes its ranks inside one): a barrier recorded in a group would not run before that group ends.
     */
    static void barriers(List<Communicator> hosts) {
        try {
            RankThreads.run("jccl-close-barrier", hosts.size(), i -> {
                hosts.get(i).barrier();
                return Boolean.TRUE;
            }, done -> { });
        } catch (RuntimeException e) {
            // best effort while closing, as before
        }
    }
}
