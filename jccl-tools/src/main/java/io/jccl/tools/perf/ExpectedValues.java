package io.jccl.tools.perf;

import io.jccl.DataType;

import java.lang.foreign.MemorySegment;

/**
 * What one rank feeds into a checked call and what it must get back, computed on the host from
 * {@link DataPattern}: {@link #fillInput} writes this rank's input, {@link #countWrong} compares every output
 * element with the value the collective must produce (exactly, or within {@link Tolerance} for avg and mulsum on
 * floats). Owned by one rank's thread (it keeps the last element's error bound in a field); large fills and checks
 * fan out to the common fork-join pool when the buffer is shared memory. The host-side
 * equivalent of nccl-tests' {@code InitData}/{@code CheckData} per collective.
 */
public final class ExpectedValues {
    /** Element counts from which filling and checking run on several threads. */
    static final long PARALLEL_MIN = 1L << 20;
    private static final long CHUNK = 1L << 18;
    private static final Thread OTHER_THREAD = Thread.ofPlatform().unstarted(() -> { });
    private final PerfCollective coll;
    private final BufferLayout layout;
    private final DataType type;
    private final OpChoice op;
    private final int root;
    private final int rank;
    private final int nRanks;
    private final DataPattern pattern;
    private double lastTolerance;

    /**
     * @param op the reduction; ignored by collectives that only move data
     */
    public ExpectedValues(PerfCollective coll, BufferLayout layout, DataType type, OpChoice op, int root, int rank,
                          int nRanks) {
        this.coll = coll;
        this.layout = layout;
        this.type = type;
        this.op = coll.reduces() ? op : null;
        this.root = root;
        this.rank = rank;
        this.nRanks = nRanks;
        this.pattern = DataPattern.of(type, this.op, coll.reduces() ? nRanks : 1);
    }

    /** Elements this rank writes before the call (its send data). */
    public long inputCount() {
        return layout.sendCount();
    }

    /** Elements of the receive buffer this rank checks: none on non-root ranks of reduce and gather. */
    public long outputCount() {
        return coll.resultOnRootOnly() && rank != root ? 0 : layout.recvCount();
    }

    /** This rank's input element {@code k}. */
    public double input(long k, int rep) {
        return pattern.value(rank, k, rep);
    }

    /** Writes this rank's {@link #inputCount()} input elements to {@code send} (in parallel for large counts). */
    public void fillInput(ElementAccess access, MemorySegment send, int rep) {
        boolean floating = type.isFloatingPoint();
        forChunks(inputCount(), send, (lo, hi) -> {
            for (long k = lo; k < hi; k++) {
                double v = pattern.value(rank, k, rep);
                if (floating) {
                    access.setDouble(type, send, k, v);
                } else {
                    access.setLong(type, send, k, (long) v);
                }
            }
            return 0;
        });
    }

    /**
     * Counts the elements of {@code recv} (its first {@link #outputCount()}) that differ from the expected values
     * (in parallel for large counts).
     */
    public long countWrong(ElementAccess access, MemorySegment recv, int rep) {
        if (type.isFloatingPoint()) {
            return forChunks(outputCount(), recv, (lo, hi) -> {
                double[] tol = new double[1];
                long wrong = 0;
                for (long j = lo; j < hi; j++) {
                    double expected = expectedDouble(j, rep, tol);
                    double got = access.getDouble(type, recv, j);
                    boolean ok = tol[0] == 0 ? got == expected : Math.abs(got - expected) <= tol[0];
                    if (!ok) {
                        wrong++;
                    }
                }
                return wrong;
            });
        }
        return forChunks(outputCount(), recv, (lo, hi) -> {
            long wrong = 0;
            for (long j = lo; j < hi; j++) {
                if (TypeLimits.wrap(type, access.getLong(type, recv, j)) != expectedLong(j, rep)) {
                    wrong++;
                }
            }
            return wrong;
        });
    }

    /** A piece of work over [lo, hi) returning a count. */
    private interface Chunk {
        long run(long lo, long hi);
    }

    /** Runs {@code c} over [0, n): in parallel chunks when n is large and {@code seg} may be used by any thread. */
    private static long forChunks(long n, MemorySegment seg, Chunk c) {
        if (n < PARALLEL_MIN || !seg.isAccessibleBy(OTHER_THREAD)) {
            return c.run(0, n);
        }
        long chunks = (n + CHUNK - 1) / CHUNK;
        return java.util.stream.LongStream.range(0, chunks).parallel()
                .map(i -> c.run(i * CHUNK, Math.min(n, (i + 1) * CHUNK))).sum();
    }

    /** The expected floating-point output element {@code j}; also sets {@link #lastTolerance()}. */
    public double expectedDouble(long j, int rep) {
        double[] tol = new double[1];
        double v = expectedDouble(j, rep, tol);
        lastTolerance = tol[0];
        return v;
    }

    private double expectedDouble(long j, int rep, double[] tol) {
        if (!coll.reduces()) {
            tol[0] = 0;
            return pattern.value(sourceRank(j), sourceIndex(j), rep);
        }
        long idx = coll == PerfCollective.REDUCE_SCATTER ? rank * layout.recvCount() + j : j;
        double acc = op == OpChoice.PROD ? 1 : 0;
        double sumAbs = 0;
        for (int r = 0; r < nRanks; r++) {
            double v = pattern.value(r, idx, rep) * op.scalar(r);
            sumAbs += Math.abs(v);
            acc = switch (op) {
                case SUM, AVG, MULSUM -> acc + v;
                case PROD -> acc * v;
                case MIN -> r == 0 ? v : Math.min(acc, v);
                case MAX -> r == 0 ? v : Math.max(acc, v);
            };
        }
        if (op == OpChoice.AVG) {
            acc /= nRanks;
        }
        tol[0] = Tolerance.bound(type, op, nRanks, sumAbs);
        return acc;
    }

    /** The expected integer output element {@code j}, wrapped to the type's width. */
    public long expectedLong(long j, int rep) {
        if (!coll.reduces()) {
            return TypeLimits.wrap(type, (long) pattern.value(sourceRank(j), sourceIndex(j), rep));
        }
        long idx = coll == PerfCollective.REDUCE_SCATTER ? rank * layout.recvCount() + j : j;
        long acc = op == OpChoice.PROD ? 1 : 0;
        for (int r = 0; r < nRanks; r++) {
            long v = (long) pattern.value(r, idx, rep) * (long) op.scalar(r);
            acc = switch (op) {
                case SUM, AVG, MULSUM -> acc + v;
                case PROD -> acc * v;
                case MIN -> r == 0 ? v : Math.min(acc, v);
                case MAX -> r == 0 ? v : Math.max(acc, v);
            };
        }
        if (op == OpChoice.AVG) {
            acc /= nRanks;
        }
        return TypeLimits.wrap(type, acc);
    }

    /** The error bound of the last {@link #expectedDouble} (0: exact). */
    public double lastTolerance() {
        return lastTolerance;
    }

    /** For data-moving collectives: the rank whose input lands at output element {@code j}. */
    int sourceRank(long j) {
        long block = layout.paramCount();
        return switch (coll) {
            case BROADCAST, SCATTER -> root;
            case ALL_GATHER, GATHER, ALL_TO_ALL -> (int) (j / block);
            case SEND_RECV -> (rank - 1 + nRanks) % nRanks;
            default -> throw new IllegalStateException(coll + " reduces");
        };
    }

    /** For data-moving collectives: the index in the source rank's input of output element {@code j}. */
    long sourceIndex(long j) {
        long block = layout.paramCount();
        return switch (coll) {
            case BROADCAST, SEND_RECV -> j;
            case ALL_GATHER, GATHER -> j % block;
            case ALL_TO_ALL -> rank * block + j % block;
            case SCATTER -> rank * block + j;
            default -> throw new IllegalStateException(coll + " reduces");
        };
    }
}
