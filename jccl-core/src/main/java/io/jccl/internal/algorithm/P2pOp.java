package io.jccl.internal.algorithm;

import java.lang.foreign.MemorySegment;

/**
 * One point-to-point transfer of a group: {@code bytes} from/to {@code seg} at {@code offset}, to/from {@code peer}.
 * Owned by: immutable. Mirrors: ncclTaskP2p.
 */
public record P2pOp(boolean isSend, int peer, MemorySegment seg, long offset, long bytes, String what) {
}
