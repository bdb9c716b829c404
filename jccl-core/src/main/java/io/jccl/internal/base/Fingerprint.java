package io.jccl.internal.base;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.Result;

/**
 * A compact identity of a call (collective, count, type, op, root) in one long, exchanged with the data so ranks that
 * made different calls fail at once, with both calls named, instead of mixing data. Owned by: stateless.
 * Mirrors: nothing in NCCL (its check mode costs an extra allGather); the cheap always-on check the notes suggest.
 */
public final class Fingerprint {
    private Fingerprint() {
    }

    public static long of(Collective coll, long count, DataType type, RedOp.Kind op, int root) {
        return (count << 24) | ((long) (root & 0xfff) << 12) | ((long) type.ordinal() << 8)
                | ((long) (op == null ? 7 : op.ordinal()) << 5) | (coll.ordinal() & 0x1f);
    }

    /**
     * The fingerprint of a call that a rank runs with algorithm variant {@code variant} (1, 2, ...), for paths where
     * ranks running different algorithms for one call would mix data: the variant goes where a collective without a
     * root keeps its root, so {@link #describe} still shows the call as the user wrote it.
     */
    public static long variant(long fp, int variant) {
        return (fp & ~(0xfffL << 12)) | ((long) ((0xfff - variant) & 0xfff) << 12);
    }

    /**
     * The {@link #variant} of an unrooted GPU call whose buffers lie in a window (the symmetric kernels read the
     * peers' windows, so every rank's buffers must lie in one, or none): {@link #describe} says so.
     */
    public static final int WINDOW = 0x100;

    /** Human-readable form of a fingerprint. */
    public static String describe(long fp) {
        int op = (int) ((fp >>> 5) & 7);
        Collective c = Collective.values()[(int) (fp & 0x1f)];
        String call = describe(c, fp >>> 24, DataType.values()[(int) ((fp >>> 8) & 0xf)],
                op < RedOp.Kind.values().length ? RedOp.Kind.values()[op] : null, (int) ((fp >>> 12) & 0xfff));
        boolean window = !c.rooted() && ((fp >>> 12) & 0xfff) == 0xfff - WINDOW;
        return window ? call.substring(0, call.length() - 1) + ", buffers in a window)" : call;
    }

    /**
     * A call as the user wrote it, the form every mismatch message uses: {@code AllReduce(count 1000 float sum)},
     * {@code Broadcast(count 1000 float root 0)} ({@code op} null: none; {@code root} shown for rooted collectives).
     */
    public static String describe(Collective c, long count, DataType type, RedOp.Kind op, int root) {
        StringBuilder b = new StringBuilder(c.ncclName()).append("(count ").append(count).append(' ')
                .append(type.ncclName());
        if (op != null) {
            b.append(' ').append(op.ncclName());
        }
        if (c.rooted()) {
            b.append(" root ").append(root);
        }
        return b.append(')').toString();
    }

    public static JcclException mismatch(int rank, String mine, int peer, long theirs) {
        return new JcclException(Result.INVALID_USAGE, "rank " + peer + " called " + describe(theirs) + " where rank "
                + rank + " called " + mine + "; every rank must make the same calls in the same order");
    }

    /**
     * As {@link #mismatch(int, String, int, long)} for two fingerprints of one call: when only the algorithm variant
     * differs, says that the ranks chose different algorithms for the same call.
     */
    public static JcclException mismatch(int rank, String mine, long myFp, int peer, long theirs) {
        Collective c = Collective.values()[(int) (myFp & 0x1f)];
        if (!c.rooted() && (myFp & ~(0xfffL << 12)) == (theirs & ~(0xfffL << 12))) {
            return new JcclException(Result.INVALID_USAGE, "rank " + peer + " and rank " + rank + " both called "
                    + describe(myFp) + " but chose different algorithms for it (" + mine + " here): their JCCL_* and "
                    + "NCCL_* settings differ");
        }
        return mismatch(rank, mine, peer, theirs);
    }
}
