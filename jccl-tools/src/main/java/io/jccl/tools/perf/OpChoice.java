package io.jccl.tools.perf;

import io.jccl.RedOp;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The reduction operations {@code -o} selects, in nccl-tests' order (sum, prod, max, min, avg, mulsum). For
 * {@code mulsum} every rank uses its own scalar, 1 on even ranks and 2 on odd ones (as nccl-tests), so scaled
 * inputs stay exact in every type. Constant family; mirrors nccl-tests' {@code test_ops}/{@code test_opnames}.
 */
public enum OpChoice {
    SUM("sum"), PROD("prod"), MAX("max"), MIN("min"), AVG("avg"), MULSUM("mulsum");

    private final String testName;

    OpChoice(String testName) {
        this.testName = testName;
    }

    /** The name printed in the redop column. */
    public String testName() {
        return testName;
    }

    /** The pre-multiplication scalar of {@code rank} for {@link #MULSUM}; 1 for every other operation. */
    public double scalar(int rank) {
        return this == MULSUM ? (rank % 2 == 0 ? 1.0 : 2.0) : 1.0;
    }

    /** The operation {@code rank} passes to the communicator. */
    public RedOp redOp(int rank) {
        return switch (this) {
            case SUM -> RedOp.SUM;
            case PROD -> RedOp.PROD;
            case MAX -> RedOp.MAX;
            case MIN -> RedOp.MIN;
            case AVG -> RedOp.AVG;
            case MULSUM -> RedOp.preMulSum(scalar(rank));
        };
    }

    /**
     * Parses {@code -o}: one name or {@code all}.
     *
     * @throws IllegalArgumentException naming the accepted values
     */
    public static List<OpChoice> parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.equals("all")) {
            return List.of(values());
        }
        for (OpChoice op : values()) {
            if (op.testName.equals(t) || (op == MULSUM && t.equals("premulsum"))) {
                return List.of(op);
            }
        }
        throw new IllegalArgumentException("unknown reduction '" + text + "'; expected "
                + Arrays.stream(values()).map(OpChoice::testName).collect(Collectors.joining(", ")) + " or all");
    }
}
