package io.jccl.tools.perf.gpu;

import io.jccl.Collective;

import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Which JCCL kernel ran at which size, as ranges for one line of perf's output: "sym-ll 8..65536, sym-twoshot
 * 524288" (two kernels at one size, e.g. out-of-place and in-place, read "a/b"). Filled by one rank's thread, read
 * after it ended. A JCCL addition; nccl-tests prints no such line.
 */
final class KernelRanges {
    /** The collectives that may run a symmetric kernel on windows (GpuCommunicator.algorithmFor's list). */
    static final Set<Collective> SYMMETRIC = Set.of(Collective.ALL_REDUCE, Collective.ALL_GATHER,
            Collective.REDUCE_SCATTER, Collective.BROADCAST);

    private final Map<Long, Set<String>> bySize = new TreeMap<>();

    /** {@code algorithm} (algorithmFor's words; the first one is the kernel) ran at {@code bytes}. */
    synchronized void add(long bytes, String algorithm) {
        bySize.computeIfAbsent(bytes, b -> new LinkedHashSet<>()).add(algorithm.split(" ")[0]);
    }

    synchronized boolean isEmpty() {
        return bySize.isEmpty();
    }

    /** The ranges, in size order: "ll128 8..4194304, twoshot 8388608". */
    @Override
    public synchronized String toString() {
        StringBuilder sb = new StringBuilder();
        String current = null;
        long first = 0;
        long last = 0;
        for (Map.Entry<Long, Set<String>> e : bySize.entrySet()) {
            String k = String.join("/", e.getValue());
            if (!k.equals(current)) {
                append(sb, current, first, last);
                current = k;
                first = e.getKey();
            }
            last = e.getKey();
        }
        append(sb, current, first, last);
        return sb.toString();
    }

    private static void append(StringBuilder sb, String kernel, long first, long last) {
        if (kernel != null) {
            sb.append(sb.isEmpty() ? "" : ", ").append(kernel).append(' ').append(first)
                    .append(first == last ? "" : ".." + last);
        }
    }
}
