package io.jccl.internal.algorithm;

import io.jccl.Collective;
import io.jccl.internal.base.Fingerprint;

import java.lang.foreign.MemorySegment;

/**
 * One point-to-point transfer of a group: {@code bytes} from/to {@code seg} at {@code offset}, to/from {@code peer}.
 * {@code tag} is the fingerprint every step of it carries: the call it belongs to as the user wrote it (a send and
 * its receive: count and type; a lowered allToAll, gather or scatter: the collective, count, type and root), so a
 * receive that meets another call's data fails naming both. Owned by: immutable. Mirrors: ncclTaskP2p.
 */
public record P2pOp(boolean isSend, int peer, MemorySegment seg, long offset, long bytes, String what, long tag) {
    /** A transfer of call {@code a}, at {@code offset} of {@code seg}, of one block of the call's count. */
    public static P2pOp of(boolean isSend, int peer, MemorySegment seg, long offset, CollArgs a) {
        boolean p2p = a.coll() == Collective.SEND || a.coll() == Collective.RECV;
        long tag = p2p ? Fingerprint.of(Collective.SEND_RECV, a.count(), a.type(), null, 0)
                : Fingerprint.of(a.coll(), a.count(), a.type(), null, a.root());
        return new P2pOp(isSend, peer, seg, offset, a.bytes(), a.describe(), tag);
    }
}
