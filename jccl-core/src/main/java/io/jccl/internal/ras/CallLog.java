package io.jccl.internal.ras;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.RedOp;
import io.jccl.internal.base.Fingerprint;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The last {@link #DEPTH} collective calls one rank made on a communicator, numbered 1, 2, 3... in call order
 * (point-to-point calls are not numbered: their order differs between ranks by design). Every rank must make the same
 * collective calls in the same order, so two ranks' entries with one number must be equal; heartbeats carry the log
 * and the receiver compares it with its own, which catches ranks that made different calls on every path (ring,
 * tree, one-shot, two-shot, registered, LL, lowered point-to-point) and names both calls as the users wrote them.
 *
 * <p>Each entry is a seqlock: the number is written last (release) and read first and last (acquire), so a reader on
 * another thread never takes half of one call for another. Writing costs three stores per call; nothing allocates.
 *
 * <p>Owned by: written by the communicator's calling thread, read by the heartbeat and bootstrap reader threads.
 * Mirrors: nothing in NCCL (its call check costs an allGather per call); the cheap always-on counterpart of it.
 */
public final class CallLog {
    /** Entries kept (a power of two). */
    static final int DEPTH = 32;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle LAST;

    static {
        try {
            LAST = MethodHandles.lookup().findVarHandle(CallLog.class, "last", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    private static final Collective[] COLLECTIVES = Collective.values();
    private static final DataType[] TYPES = DataType.values();
    private static final RedOp.Kind[] OPS = RedOp.Kind.values();

    private final long[] numbers = new long[DEPTH];
    private final long[] counts = new long[DEPTH];
    private final long[] shapes = new long[DEPTH];
    private final long[] digests = new long[DEPTH];
    private long digest;
    /** Written with release stores by the calling thread, read with acquire loads (no fence on the call path). */
    private long last;

    /**
     * One logged call: its number among this communicator's collective calls, what it was, and a digest of every
     * call up to it (so two ranks whose calls differed long ago still differ in their recent digests).
     */
    public record Entry(long number, long count, long shape, long digest) {
        /** The call as the user wrote it, e.g. {@code Broadcast(count 1000 float root 0)}. */
        public String describe() {
            return CallLog.describe(count, shape);
        }

        /** True when both entries describe the same call. */
        boolean sameCall(Entry o) {
            return count == o.count && shape == o.shape;
        }
    }

    /** Logs a collective call (never a send or a receive) that passed its argument checks. */
    public void called(Collective c, long count, DataType type, RedOp op, int root) {
        long n = last + 1;
        int i = (int) (n & (DEPTH - 1));
        SLOT.setRelease(numbers, i, 0L);
        long sh = shape(c, type, op == null ? null : op.kind(), root);
        counts[i] = count;
        shapes[i] = sh;
        digest = mix(digest + count * 0x9e3779b97f4a7c15L + sh);
        digests[i] = digest;
        SLOT.setRelease(numbers, i, n);
        LAST.setRelease(this, n);
    }

    /** The number of the last collective call logged (0 before the first). */
    public long last() {
        return (long) LAST.getAcquire(this);
    }

    /** The entry of call {@code number} if it is still logged, else null. */
    public Entry find(long number) {
        if (number <= 0) {
            return null;
        }
        int i = (int) (number & (DEPTH - 1));
        long before = (long) SLOT.getAcquire(numbers, i);
        long count = counts[i];
        long shape = shapes[i];
        long d = digests[i];
        VarHandle.loadLoadFence();
        long after = (long) SLOT.getAcquire(numbers, i);
        return before == number && after == number ? new Entry(number, count, shape, d) : null;
    }

    /** The entries still logged, oldest first. */
    public Entry[] recent() {
        long l = last();
        java.util.ArrayList<Entry> out = new java.util.ArrayList<>(DEPTH);
        for (long n = Math.max(1, l - DEPTH + 1); n <= l; n++) {
            Entry e = find(n);
            if (e != null) {
                out.add(e);
            }
        }
        return out.toArray(new Entry[0]);
    }

    /**
     * The first of {@code theirs} that differs from this log's entry with the same number (the call, or the calls
     * before it: the digests), as {mine, theirs}; null when every entry both logs hold agrees.
     */
    public Entry[] firstDifference(Entry[] theirs) {
        for (Entry t : theirs) {
            Entry mine = find(t.number());
            if (mine != null && (!mine.sameCall(t) || mine.digest() != t.digest())) {
                return new Entry[]{mine, t};
            }
        }
        return null;
    }

    /** A 64-bit finaliser (splitmix64's): every input bit moves about half of the output bits. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    static long shape(Collective c, DataType type, RedOp.Kind op, int root) {
        return c.ordinal() | (long) type.ordinal() << 8 | (long) (op == null ? 0 : op.ordinal() + 1) << 16
                | (root & 0xffff_ffffL) << 32;
    }

    /** True when {@code shape} decodes to a call (for messages from peers). */
    static boolean valid(long shape) {
        int c = (int) (shape & 0xff);
        int t = (int) ((shape >>> 8) & 0xff);
        int op = (int) ((shape >>> 16) & 0xff);
        return c < COLLECTIVES.length && t < TYPES.length && op <= OPS.length && (shape & 0xff00_0000L) == 0;
    }

    /** E.g. {@code AllReduce(count 1000 float sum)}, {@code Broadcast(count 1000 float root 0)}. */
    static String describe(long count, long shape) {
        Collective c = COLLECTIVES[(int) (shape & 0xff)];
        if (c == Collective.BARRIER) {
            return "Barrier()";
        }
        int op = (int) ((shape >>> 16) & 0xff);
        return Fingerprint.describe(c, count, TYPES[(int) ((shape >>> 8) & 0xff)], op > 0 ? OPS[op - 1] : null,
                (int) (shape >>> 32));
    }
}
