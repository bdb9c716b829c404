package io.jccl.tools.perf;

import io.jccl.Collective;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The operations {@code jccl perf} measures, one per nccl-tests binary ({@code all_reduce_perf}, ...), with the
 * properties that change how a run is set up and printed. Constant family; mirrors nccl-tests' {@code testColl}
 * table entries.
 */
public enum PerfCollective {
    ALL_REDUCE("all_reduce", Collective.ALL_REDUCE),
    ALL_GATHER("all_gather", Collective.ALL_GATHER),
    REDUCE_SCATTER("reduce_scatter", Collective.REDUCE_SCATTER),
    BROADCAST("broadcast", Collective.BROADCAST),
    REDUCE("reduce", Collective.REDUCE),
    ALL_TO_ALL("alltoall", Collective.ALL_TO_ALL),
    SEND_RECV("sendrecv", Collective.SEND_RECV),
    GATHER("gather", Collective.GATHER),
    SCATTER("scatter", Collective.SCATTER);

    private final String testName;
    private final Collective collective;

    PerfCollective(String testName, Collective collective) {
        this.testName = testName;
        this.collective = collective;
    }

    /** nccl-tests' name without the suffix: {@code all_reduce}, {@code alltoall}, ... */
    public String testName() {
        return testName;
    }

    /** The binary name nccl-tests prints as the program: {@code all_reduce_perf}. */
    public String programName() {
        return testName + "_perf";
    }

    /** The public API operation measured. */
    public Collective collective() {
        return collective;
    }

    /** True when the run loops over reduction operations ({@code -o}); sendrecv does too, as in nccl-tests. */
    public boolean usesOp() {
        return collective.reduces() || this == SEND_RECV;
    }

    /** True when the data is combined with a reduction (the input pattern must keep partial results exact). */
    public boolean reduces() {
        return collective.reduces();
    }

    /** True when the run loops over roots ({@code -r}). */
    public boolean rooted() {
        return collective.rooted();
    }

    /** False where nccl-tests prints {@code N/A} for the in-place #wrong (alltoall and sendrecv). */
    public boolean checksInPlace() {
        return this != ALL_TO_ALL && this != SEND_RECV;
    }

    /** True when only the root's receive buffer holds a result (reduce, gather). */
    public boolean resultOnRootOnly() {
        return this == REDUCE || this == GATHER;
    }

    /**
     * Finds a collective by nccl-tests' name ({@code all_reduce}), binary name ({@code all_reduce_perf}), or the
     * same without underscores ({@code allreduce}), ignoring case.
     *
     * @throws IllegalArgumentException naming the accepted names when nothing matches
     */
    public static PerfCollective fromName(String name) {
        String n = normalize(name);
        if (n.endsWith("perf")) {
            n = n.substring(0, n.length() - 4);
        }
        for (PerfCollective c : values()) {
            if (normalize(c.testName).equals(n) || normalize(c.name()).equals(n)) {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown collective '" + name + "'; expected one of "
                + Arrays.stream(values()).map(PerfCollective::testName).collect(Collectors.joining(", ")));
    }

    private static String normalize(String s) {
        return s.trim().toLowerCase(Locale.ROOT).replace("_", "").replace("-", "");
    }
}
