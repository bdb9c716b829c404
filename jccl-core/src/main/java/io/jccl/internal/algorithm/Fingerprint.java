package io.jccl.internal.algorithm;

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

    /** Human-readable form of a fingerprint. */
    public static String describe(long fp) {
        Collective c = Collective.values()[(int) (fp & 0x1f)];
        int op = (int) ((fp >>> 5) & 7);
        DataType t = DataType.values()[(int) ((fp >>> 8) & 0xf)];
        int root = (int) ((fp >>> 12) & 0xfff);
        StringBuilder b = new StringBuilder(c.ncclName()).append("(count ").append(fp >>> 24).append(' ')
                .append(t.ncclName());
        if (op < RedOp.Kind.values().length) {
            b.append(' ').append(RedOp.Kind.values()[op].ncclName());
        }
        if (c.rooted()) {
            b.append(" root ").append(root);
        }
        return b.append(')').toString();
    }

    public static JcclException mismatch(int rank, String mine, int peer, long theirs) {
        return new JcclException(Result.INVALID_USAGE, "rank " + rank + " called " + mine + " but rank " + peer
                + " called " + describe(theirs) + " at the same point; every rank must make the same calls in the same order");
    }
}
