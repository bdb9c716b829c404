package io.jccl.internal.comm;

import io.jccl.JcclException;
import io.jccl.Result;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import java.util.function.IntFunction;

/**
 * Runs one collective step for several ranks of this process at once, each on a platform thread of its own (the step
 * blocks until every rank has made it, so one thread could not make them in turn): how {@code initAll} and
 * {@code initRanks} initialise this process's ranks, and how the GPU side attaches, splits and closes them from the
 * caller's thread.
 *
 * <p>Thread: the caller's, which waits for every rank's thread. Mirrors a group of ncclCommInitRank (or
 * ncclCommSplit) calls.
 */
public final class RankThreads {
    private RankThreads() {
    }

    /**
     * {@code step.apply(r)} for r in [0, n), each on its own thread; returns the results in rank order. When any rank
     * fails, the other ranks' results are handed to {@code undo} and the first error is thrown, with the others
     * suppressed in it.
     */
    public static <T> List<T> run(String name, int n, IntFunction<T> step, Consumer<T> undo) {
        List<T> out = new ArrayList<>(n);
        RuntimeException first = null;
        try (ExecutorService ex = Executors.newThreadPerTaskExecutor(Thread.ofPlatform().name(name + "-", 0).daemon()
                .factory())) {
            List<Future<T>> parts = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                int r = i;
                parts.add(ex.submit(() -> step.apply(r)));
            }
            for (Future<T> f : parts) {
                try {
                    out.add(f.get());
                } catch (ExecutionException e) {
                    RuntimeException cause = e.getCause() instanceof RuntimeException re ? re
                            : new JcclException(Result.INTERNAL_ERROR, name + " failed: " + e.getCause(), e.getCause());
                    if (first == null) {
                        first = cause;
                    } else {
                        first.addSuppressed(cause);
                    }
                    out.add(null);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new JcclException(Result.INTERNAL_ERROR, "interrupted while waiting for " + name, e);
                }
            }
        }
        if (first != null) {
            for (T t : out) {
                if (t != null) {
                    undo.accept(t);
                }
            }
            throw first;
        }
        return Collections.unmodifiableList(out);
    }
}
