package io.jccl.cuda.internal.comm;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.base.Fingerprint;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The calls each rank of an {@code initAll} clique has issued, so that a call that cannot match its peers' is refused
 * before its kernel is launched, with both calls named, instead of launching kernels that would read peers' buffers
 * with the wrong sizes, leave steps in a FIFO for a later call to misread, or wait for a call that never comes:
 * <ul>
 *   <li>collectives, as {@link Fingerprint}s (collective, count, type, op, root): rank r's n-th collective must equal
 *       every other rank's n-th;</li>
 *   <li>sends and receives, as byte counts: rank r's n-th send to q must be as long as q's n-th receive from r.</li>
 * </ul>
 * The ledger lives in memory every rank can reach: a segment of the process for an {@code initAll} clique, a
 * shared-memory file mapped by every process for one process per GPU ({@link SharedControl}). A check therefore costs
 * a few memory accesses and no communication; whichever of two calls comes second does the comparison. When the ranks
 * span hosts each process keeps a ledger of its own, and {@link LedgerLink} writes the other hosts' calls into it as
 * their messages arrive ({@link #recordFrom} and its point-to-point kin compare on arrival).
 *
 * <p>Layout ({@link #bytes} bytes, zeroed by its creator): rows of {@link #ROW_BYTES} bytes, first each rank's
 * collectives, then sends[from][to], then receives[at][from]; a row is a 64-byte header whose first long counts the
 * calls made, then a window of the last {@link #WINDOW} calls.
 *
 * <p>Thread: each rank's issuing thread appends to its own rows (one thread at a time per rank); any thread of any
 * rank reads the others' (volatile counts, so that of two calls made at once at least one sees the other). Mirrors
 * nothing in NCCL (its kernels trust the calls, and it
 * checks only that a receive is not shorter than its send); it is the host communicator's fingerprint check, done at
 * enqueue through memory the ranks share.
 */
final class CallLedger {
    /** Calls remembered per row; a rank more than this far ahead of another is not compared with it. */
    static final int WINDOW = 256;
    /** What {@link Row#peek} returns when the call is not there (never a fingerprint or a byte count). */
    private static final long NONE = Long.MIN_VALUE;

    private static final long ROW_HEADER = 64;
    static final long ROW_BYTES = ROW_HEADER + (long) WINDOW * Long.BYTES;
    private static final VarHandle LONG = JAVA_LONG.varHandle();

    private final Row[] collectives;
    private final Row[][] sends;
    private final Row[][] recvs;

    /** The bytes a ledger of {@code nRanks} ranks takes. */
    public static long bytes(int nRanks) {
        return ROW_BYTES * (nRanks + 2L * nRanks * nRanks);
    }

    /** A ledger of {@code nRanks} ranks in {@code memory} ({@link #bytes} bytes, zeroed by its creator). */
    public CallLedger(int nRanks, MemorySegment memory) {
        if (memory.byteSize() < bytes(nRanks)) {
            throw new IllegalArgumentException("a call ledger of " + nRanks + " ranks needs " + bytes(nRanks)
                    + " bytes, got " + memory.byteSize());
        }
        collectives = new Row[nRanks];
        sends = new Row[nRanks][nRanks];
        recvs = new Row[nRanks][nRanks];
        long row = 0;
        for (int r = 0; r < nRanks; r++) {
            collectives[r] = new Row(memory.asSlice(row++ * ROW_BYTES, ROW_BYTES));
        }
        for (int r = 0; r < nRanks; r++) {
            for (int q = 0; q < nRanks; q++) {
                sends[r][q] = new Row(memory.asSlice(row++ * ROW_BYTES, ROW_BYTES));
            }
        }
        for (int r = 0; r < nRanks; r++) {
            for (int q = 0; q < nRanks; q++) {
                recvs[r][q] = new Row(memory.asSlice(row++ * ROW_BYTES, ROW_BYTES));
            }
        }
    }

    /**
     * Records {@code rank}'s next collective and compares it with every other rank's at the same position.
     *
     * @param where the communicator and call, to begin the message with
     * @return {@code null}, or the error naming both calls when another rank's call at this position differs
     */
    public JcclException record(int rank, long fingerprint, String where) {
        long n = collectives[rank].append(fingerprint);
        for (int q = 0; q < collectives.length; q++) {
            long theirs = q == rank ? NONE : collectives[q].peek(n);
            if (theirs != NONE && theirs != fingerprint) {
                return mismatch(where, n + 1, fingerprint, q, theirs, STOPPED);
            }
        }
        return null;
    }

    /** Records {@code from}'s next send to {@code to} and compares it with {@code to}'s receive at that position. */
    public JcclException recordSend(int from, int to, long bytes, String where) {
        long n = sends[from][to].append(bytes);
        long theirs = recvs[to][from].peek(n);
        return theirs == NONE || theirs == bytes ? null : p2pMismatch(where, "send", n + 1, to, bytes, theirs);
    }

    /**
     * Records {@code at}'s next receive from {@code from} and compares it with {@code from}'s send at that position.
     */
    public JcclException recordRecv(int at, int from, long bytes, String where) {
        long n = recvs[at][from].append(bytes);
        long theirs = sends[from][at].peek(n);
        return theirs == NONE || theirs == bytes ? null : p2pMismatch(where, "receive", n + 1, from, bytes, theirs);
    }

    /**
     * Records rank {@code peer}'s next collective, as a message from another host brought it, and compares it with
     * rank {@code me}'s at the same position (the receiving side of {@link LedgerLink}).
     */
    public JcclException recordFrom(int peer, long fingerprint, int me, String where) {
        long n = collectives[peer].append(fingerprint);
        long mine = collectives[me].peek(n);
        return mine == NONE || mine == fingerprint ? null : mismatch(where, n + 1, mine, peer, fingerprint, STOPPED);
    }

    /** Records {@code from}'s next send to {@code me} (from another host) and compares it with my receive. */
    public JcclException recordSendFrom(int from, int me, long bytes, String where) {
        long n = sends[from][me].append(bytes);
        long mine = recvs[me][from].peek(n);
        return mine == NONE || mine == bytes ? null : p2pMismatch(where, "receive", n + 1, from, mine, bytes);
    }

    /** Records {@code at}'s next receive from {@code me} (from another host) and compares it with my send. */
    public JcclException recordRecvFrom(int at, int me, long bytes, String where) {
        long n = recvs[at][me].append(bytes);
        long mine = sends[me][at].peek(n);
        return mine == NONE || mine == bytes ? null : p2pMismatch(where, "send", n + 1, at, mine, bytes);
    }

    /** The ranks of this ledger. */
    public int nRanks() {
        return collectives.length;
    }

    /** How many collectives {@code rank} has made. */
    public long collectives(int rank) {
        return collectives[rank].count();
    }

    /**
     * {@code rank}'s collective number {@code n} (from 1) as a fingerprint, or a negative value when it is not known.
     */
    public long collective(int rank, long n) {
        return n < 1 ? NONE : collectives[rank].peek(n - 1);
    }

    /** How many sends {@code from} has made to {@code to}. */
    public long sends(int from, int to) {
        return sends[from][to].count();
    }

    /** How many receives {@code at} has made from {@code from}. */
    public long recvs(int at, int from) {
        return recvs[at][from].count();
    }

    private static final String STOPPED = " The communicator is stopped (its kernels return): close it and create a"
            + " new one";

    /** The error for this rank's collective call {@code call} differing from rank {@code peer}'s. */
    public static JcclException mismatch(String where, long call, long mine, int peer, long theirs, String after) {
        return new JcclException(Result.INVALID_USAGE, where + ": collective call " + call + " of this rank, "
                + Fingerprint.describe(mine) + ", differs from rank " + peer + "'s call " + call + ", "
                + Fingerprint.describe(theirs) + "; every rank must make the same collective calls in the same order"
                + " with the same count, type, op and root." + after);
    }

    private static JcclException p2pMismatch(String where, String mine, long n, int peer, long bytes, long theirs) {
        String other = mine.equals("send") ? "receive " + n + " from this rank" : "send " + n + " to this rank";
        return new JcclException(Result.INVALID_USAGE, where + ": " + mine + " " + n + (mine.equals("send") ? " to"
                : " from") + " rank " + peer + " is " + bytes + " bytes, but rank " + peer + "'s " + other + " is "
                + theirs + " bytes; the n-th send to a peer is matched with that peer's n-th receive from the sender,"
                + " and both must have the same count and type." + STOPPED);
    }

    /** One rank's calls of one kind, in order: how many there were, and a window of the last {@link #WINDOW}. */
    private record Row(MemorySegment memory) {
        /** Appends a call (owner thread only); returns its position. */
        long append(long call) {
            long n = (long) LONG.getOpaque(memory, 0L);
            memory.set(JAVA_LONG, slot(n), call);
            // volatile, not just release: with the volatile read in peek, of two ranks making their n-th calls at
            // once at least one sees the other's (a release store may pass a later load: both would miss)
            LONG.setVolatile(memory, 0L, n + 1);
            return n;
        }

        /** How many calls were made (any thread). */
        long count() {
            return (long) LONG.getVolatile(memory, 0L);
        }

        /** The call at position {@code n}, or {@link #NONE} while it is not made yet or its slot may be reused. */
        long peek(long n) {
            // made, and the owner has not begun to overwrite the slot (which it does for call n + WINDOW)
            long before = (long) LONG.getVolatile(memory, 0L);
            if (before <= n || before - n >= WINDOW) {
                return NONE;
            }
            long call = (long) LONG.getAcquire(memory, slot(n));
            long after = (long) LONG.getAcquire(memory, 0L);
            return after - n >= WINDOW ? NONE : call;
        }

        private static long slot(long n) {
            return ROW_HEADER + (n % WINDOW) * Long.BYTES;
        }
    }
}
