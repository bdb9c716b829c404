package io.jccl.tools.perf;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/**
 * Waits until this JVM's JIT compilers have finished for a while, before a timed loop. A warm-up loop settles the
 * time per call, but C2 keeps compiling in the background (the loop's callers, OSR versions, the checks between rows)
 * for up to a second after it, and on a 2-core machine a compiler thread takes the core one of two spinning ranks
 * needs: measured, the first 8 B row of a sweep ran at 3–6 µs per call against 0.35–0.5 µs in a second pass of the
 * same sweep. Open MPI and nccl-tests measure compiled code; so does perf.
 *
 * <p>Thread: the rank's perf thread. Stateless.
 */
public final class JitQuiet {
    private static final CompilationMXBean JIT = ManagementFactory.getCompilationMXBean();

    private JitQuiet() {
    }

    /**
     * Returns once the JIT's total compilation time has not grown for {@code quietMs}, or after {@code maxMs}; at
     * once when the JVM does not report compilation time.
     *
     * @return milliseconds waited
     */
    public static long await(long quietMs, long maxMs) {
        if (JIT == null || !JIT.isCompilationTimeMonitoringSupported()) {
            return 0;
        }
        long start = System.nanoTime();
        long last = JIT.getTotalCompilationTime();
        long quietSince = start;
        while (true) {
            long now = System.nanoTime();
            if ((now - quietSince) / 1_000_000 >= quietMs || (now - start) / 1_000_000 >= maxMs) {
                return (now - start) / 1_000_000;
            }
            try {
                Thread.sleep(Math.max(1, quietMs / 10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return (System.nanoTime() - start) / 1_000_000;
            }
            long total = JIT.getTotalCompilationTime();
            if (total != last) {
                last = total;
                quietSince = System.nanoTime();
            }
        }
    }
}
