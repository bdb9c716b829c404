package io.jccl.cuda.internal.comm;

import io.jccl.internal.debug.Log;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Logs a GPU communicator's stop (a kernel that waited past the limit, an abort, a refused call, a lost peer process)
 * as a WARN when it happens, not when the application next calls or looks at {@code asyncError()}: a program blocked
 * elsewhere, or one that never synchronises the stream, still shows why its GPU work stopped. One daemon thread per
 * process ({@code jccl-gpu-watch}) polls the watched communicators every {@link #PERIOD_MS} ms while any is open
 * (a volatile read each) and ends when none is. It also polls the copy-engine waits of open windows
 * ({@link StreamWaits}: their limit and their release once the communicator stopped).
 *
 * <p>Thread: its own; {@link #watch} and {@link #unwatch} from any thread. Mirrors the watchdog PyTorch runs over its
 * NCCL communicators (polling {@code ncclCommGetAsyncError}).
 */
final class GpuWatch {
    /** How often the watched communicators are polled. */
    static final long PERIOD_MS = 200;
    private static final Set<GpuStops> WATCHED = ConcurrentHashMap.newKeySet();
    private static final Set<StreamWaits> WAITS = ConcurrentHashMap.newKeySet();
    private static Thread thread;   // guarded by GpuWatch.class

    private GpuWatch() {
    }

    /** Watches {@code stops} until {@link #unwatch}. */
    static synchronized void watch(GpuStops stops) {
        WATCHED.add(stops);
        running();
    }

    /** Stops watching {@code stops} (its communicator closed). */
    static synchronized void unwatch(GpuStops stops) {
        WATCHED.remove(stops);
    }

    /** Polls {@code waits} until {@link #unwatch(StreamWaits)}. */
    static synchronized void watch(StreamWaits waits) {
        WAITS.add(waits);
        running();
    }

    /** Starts the thread unless it runs (callers hold the class lock). */
    private static void running() {
        if (thread == null) {
            thread = Thread.ofPlatform().daemon().name("jccl-gpu-watch").start(GpuWatch::run);
        }
    }

    /** Stops polling {@code waits} (its window closed). */
    static synchronized void unwatch(StreamWaits waits) {
        WAITS.remove(waits);
    }

    private static void run() {
        while (true) {
            synchronized (GpuWatch.class) {
                if (WATCHED.isEmpty() && WAITS.isEmpty()) {
                    thread = null;
                    return;
                }
            }
            for (GpuStops s : WATCHED) {
                try {
                    s.warnIfStopped();
                } catch (RuntimeException e) {
                    // its communicator closed while this looked: its shared memory is gone, nothing to report
                }
            }
            for (StreamWaits w : WAITS) {
                try {
                    w.poll(System.nanoTime());
                } catch (RuntimeException e) {
                    Log.warn(-1, "copy-engine waits: %s", e.getMessage());
                }
            }
            try {
                Thread.sleep(PERIOD_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
