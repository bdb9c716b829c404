package io.jccl.cuda.internal.comm;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.algorithm.Fingerprint;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The collective calls each rank of an {@code initAll} clique has issued, as {@link Fingerprint}s (collective, count,
 * type, op, root), so that a rank whose call differs from another rank's call at the same position is refused before
 * its kernel is launched, with both calls named, instead of launching kernels that would read peers' buffers with the
 * wrong sizes or wait for a call that never comes. The ranks share one process, so the check costs a few memory
 * accesses per call and no communication. Sends and receives are not recorded (they differ by rank by design).
 *
 * <p>Thread: each rank's issuing thread writes its own row (one thread at a time per rank); any thread reads the
 * others' (release/acquire on the counts). Mirrors nothing in NCCL (its kernels trust the calls); it is the host
 * communicator's fingerprint check, done at enqueue because the ranks share the process.
 */
public final class CallLedger {
    /** Calls remembered per rank; a rank more than this far ahead of another is not compared with it. */
    static final int WINDOW = 256;
    private static final VarHandle ISSUED = MethodHandles.arrayElementVarHandle(long[].class);

    private final long[][] calls;
    private final long[] issued;

    public CallLedger(int nRanks) {
        calls = new long[nRanks][WINDOW];
        issued = new long[nRanks];
    }

    /**
     * Records {@code rank}'s next call and compares it with every other rank's call at the same position (those
     * that made it already; the later rank's check covers the others).
     *
     * @param where the communicator and call, to begin the message with
     * @return {@code null}, or the error naming both calls when another rank's call at this position differs
     */
    public JcclException record(int rank, long fingerprint, String where) {
        long n = (long) ISSUED.getOpaque(issued, rank);
        calls[rank][(int) (n % WINDOW)] = fingerprint;
        ISSUED.setRelease(issued, rank, n + 1);
        for (int q = 0; q < calls.length; q++) {
            if (q == rank) {
                continue;
            }
            // rank q made call n and has not yet begun to overwrite its slot (which it does for call n + WINDOW)
            long before = (long) ISSUED.getAcquire(issued, q);
            if (before <= n || before - n >= WINDOW) {
                continue;
            }
            long theirs = calls[q][(int) (n % WINDOW)];
            long after = (long) ISSUED.getAcquire(issued, q);
            if (after - n >= WINDOW || theirs == fingerprint) {
                continue;
            }
            return mismatch(where, n + 1, fingerprint, q, theirs, " The communicator is stopped (its kernels return):"
                    + " close it and create a new one");
        }
        return null;
    }

    /** The error for this rank's collective call {@code call} differing from rank {@code peer}'s. */
    public static JcclException mismatch(String where, long call, long mine, int peer, long theirs, String after) {
        return new JcclException(Result.INVALID_USAGE, where + ": collective call " + call + " of this rank, "
                + Fingerprint.describe(mine) + ", differs from rank " + peer + "'s call " + call + ", "
                + Fingerprint.describe(theirs) + "; every rank must make the same collective calls in the same order"
                + " with the same count, type, op and root." + after);
    }
}
