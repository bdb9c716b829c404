package io.jccl.internal.profile;

import io.jccl.Collective;
import io.jccl.RedOp;
import io.jccl.internal.algorithm.RegisteredAllReduce;
import io.jccl.internal.enqueue.Planner;
import io.jccl.internal.transport.shm.ShmRegistry;

import java.lang.foreign.MemorySegment;

/**
 * Names the algorithm and channel count the {@link Planner} gives a call, without planning it: the same rules in the
 * same order (allReduce: one-shot when small enough on one host, registered when both buffers come from
 * {@code allocate}, else the tree or the ring as the tuner picks; ring for the other collectives; point-to-point for
 * send/recv and what is lowered to
 * them). Allocation-free for everything the fast path runs; a test checks it against the works the planner builds.
 *
 * <p>Owned by: the communicator's launching thread (stateless apart from the references it holds).
 *
 * @param planner   the communicator's planner
 * @param registry  its registered-buffer table, or null when it has none
 * @param nChannels the communicator's channel count (point-to-point work spans all of them)
 */
public record AlgoResolver(Planner planner, ShmRegistry registry, int nChannels) {

    /** The algorithm of a call of {@code count} elements ({@code bytes} per rank). */
    public AlgoKind resolve(Collective c, long count, long bytes, MemorySegment send, MemorySegment recv, RedOp op) {
        if (count == 0 && c != Collective.BARRIER) {
            return AlgoKind.NONE;
        }
        return switch (c) {
            case ALL_REDUCE -> allReduce(bytes, send, recv, op);
            case ALL_GATHER, REDUCE_SCATTER, BROADCAST, REDUCE, BARRIER -> AlgoKind.RING;
            default -> AlgoKind.P2P;
        };
    }

    /** Channels the work of {@code algo} uses. */
    public int channels(Collective c, AlgoKind algo, long bytes) {
        return switch (algo) {
            case NONE -> 0;
            case ONE_SHOT, TWO_SHOT, REGISTERED -> 1;
            case P2P -> nChannels;
            case RING, TREE -> c == Collective.BARRIER ? 1 : planner.channels(c, bytes);
        };
    }

    /**
     * The protocol the work of {@code algo} uses (the shared-memory algorithms move data without a protocol: SIMPLE).
     */
    public io.jccl.internal.tuning.Protocol protocol(Collective c, AlgoKind algo, long bytes) {
        return algo == AlgoKind.RING && c != Collective.BARRIER ? planner.protocol(c, bytes)
                : io.jccl.internal.tuning.Protocol.SIMPLE;
    }

    private AlgoKind allReduce(long bytes, MemorySegment send, MemorySegment recv, RedOp op) {
        if (planner.oneShot(bytes, send, recv, op)) {
            return AlgoKind.ONE_SHOT;
        }
        if (registry != null && !registry.isEmpty() && send != null && recv != null
                && RegisteredAllReduce.applies(registry.lookup(send), registry.lookup(recv), op)) {
            return AlgoKind.REGISTERED;
        }
        if (planner.twoShot(bytes)) {
            return AlgoKind.TWO_SHOT;
        }
        return planner.treeChosen(bytes) ? AlgoKind.TREE : AlgoKind.RING;
    }
}
