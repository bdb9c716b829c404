package io.jccl.internal.topology;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.Collection;

/**
 * A set of CPU ids in the kernel's list syntax ({@code 0-3,8,10-11}): the CPUs this process may run on (its affinity
 * mask, e.g. after {@code taskset}, {@code mpirun --bind-to core} or {@code jccl run}'s binding). Ranks exchange theirs
 * at init so that ranks bound to disjoint cores are not counted as sharing them. Owned by: immutable. Mirrors: the
 * cpuset NCCL reads with sched_getaffinity (ncclTopoGetCpuAffinity).
 */
public final class CpuSet {
    private static final CpuSet EMPTY = new CpuSet(new BitSet());
    /**
     * The last list parsed and its set: the ranks of one process decode every peer's (mostly equal) list at init,
     * n times n lists for n thread ranks.
     */
    private static volatile Parsed last = new Parsed("", EMPTY);
    private final BitSet cpus;

    private record Parsed(String list, CpuSet set) {
    }

    private CpuSet(BitSet cpus) {
        this.cpus = cpus;
    }

    /**
     * The CPUs this process may run on, from {@code /proc/self/status}; empty when that cannot be read (not Linux).
     *
     * @return the affinity mask, or an empty set when unknown
     */
    public static CpuSet ofThisProcess() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Cpus_allowed_list:")) {
                    return parse(line.substring(line.indexOf(':') + 1));
                }
            }
        } catch (IOException | SecurityException | IllegalArgumentException e) {
            // unknown: callers fall back to the processor count
        }
        return EMPTY;
    }

    /**
     * Parses the kernel's list syntax.
     *
     * @param list e.g. {@code "0-3,8"}; blank gives the empty set
     * @return the set
     * @throws IllegalArgumentException on a malformed list
     */
    public static CpuSet parse(String list) {
        Parsed p = last;
        if (p.list().equals(list)) {
            return p.set();
        }
        CpuSet set = parseNew(list);
        last = new Parsed(list, set);
        return set;
    }

    private static CpuSet parseNew(String list) {
        BitSet b = new BitSet();
        String s = list.strip();
        if (s.isEmpty()) {
            return EMPTY;
        }
        for (String part : s.split(",")) {
            String p = part.strip();
            int dash = p.indexOf('-');
            try {
                int lo = Integer.parseInt(dash < 0 ? p : p.substring(0, dash));
                int hi = dash < 0 ? lo : Integer.parseInt(p.substring(dash + 1));
                if (lo < 0 || hi < lo || hi > 1 << 16) {
                    throw new IllegalArgumentException("bad CPU range '" + p + "' in '" + list + "'");
                }
                b.set(lo, hi + 1);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bad CPU list '" + list + "': " + e.getMessage(), e);
            }
        }
        return new CpuSet(b);
    }

    /**
     * The CPUs of any of {@code sets}.
     *
     * @param sets the sets to join
     * @return their union
     */
    public static CpuSet union(Collection<CpuSet> sets) {
        BitSet b = new BitSet();
        for (CpuSet s : sets) {
            b.or(s.cpus);
        }
        return new CpuSet(b);
    }

    /** @return how many CPUs the set holds */
    public int size() {
        return cpus.cardinality();
    }

    /** @return true when the set is unknown or empty */
    public boolean isEmpty() {
        return cpus.isEmpty();
    }

    /** @return the CPU ids, ascending */
    public int[] ids() {
        return cpus.stream().toArray();
    }

    /** @return the kernel's list syntax, e.g. {@code 0-3,8} ("" when empty) */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        int i = cpus.nextSetBit(0);
        while (i >= 0) {
            int end = cpus.nextClearBit(i) - 1;
            if (!sb.isEmpty()) {
                sb.append(',');
            }
            sb.append(i);
            if (end > i) {
                sb.append('-').append(end);
            }
            i = cpus.nextSetBit(end + 1);
        }
        return sb.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CpuSet c && c.cpus.equals(cpus);
    }

    @Override
    public int hashCode() {
        return cpus.hashCode();
    }
}
