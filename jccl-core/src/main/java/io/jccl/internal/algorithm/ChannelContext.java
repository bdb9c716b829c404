package io.jccl.internal.algorithm;

import io.jccl.internal.base.Backoff;
import io.jccl.internal.primitives.Prims;
import io.jccl.internal.transport.Connections;

/**
 * What one channel's runner needs to execute work: its primitives, the connectors, its ring, its trees (tree 0 and
 * tree 1 of the double binary tree; empty when the communicator has no trees) and an idle strategy for
 * multi-connector waits. Owned by: the thread running this channel (worker or inline caller, never both at once).
 * Mirrors: the per-channel state a NCCL kernel block reads (ncclDevChannel).
 */
public record ChannelContext(int channel, int rank, int nRanks, Prims prims, Connections connections, Ring ring,
                             Tree[] trees, Backoff backoff) {
}
