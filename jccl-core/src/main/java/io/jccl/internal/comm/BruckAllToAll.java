package io.jccl.internal.comm;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.internal.enqueue.GroupState;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * AllToAll of a large communicator in ceil(log2 n) rounds (Bruck's algorithm): the blocks are first rotated so that
 * block i is the one for rank + i; in the round at distance d = 1, 2, 4, … every block whose index has bit d set
 * goes to rank + d in one message; at the end block i came from rank - i. Each rank talks to about log2(n) peers
 * instead of n - 1, so a thousand ranks need neither a million connectors nor their memory, at the price of moving
 * each block up to log2(n) times (about n/2 blocks per round): the right trade for the small blocks an allToAll of
 * many ranks carries. NCCL connects every pair; MPI libraries use Bruck for small blocks.
 *
 * <p>Owned by: the calling thread (each round is a group of one send and one receive on the communicator). Mirrors:
 * nothing in NCCL.
 */
final class BruckAllToAll {
    /** Smallest communicator that uses it (below, the pairwise exchange keeps one connector per peer). */
    static final int MIN_RANKS = 64;

    private BruckAllToAll() {
    }

    /** The allToAll of {@code count} elements per block, through sends and receives of {@code comm}. */
    static void run(Communicator comm, MemorySegment send, MemorySegment recv, long count, DataType type) {
        int n = comm.size();
        int rank = comm.rank();
        long b = count * type.sizeBytes();
        try (Arena arena = Arena.ofShared()) {
            MemorySegment tmp = arena.allocate(b * n, 64);
            for (int i = 0; i < n; i++) {
                MemorySegment.copy(send, ((rank + i) % n) * b, tmp, i * b, b);
            }
            MemorySegment out = arena.allocate(b * ((n + 1) / 2), 64);
            MemorySegment in = arena.allocate(b * ((n + 1) / 2), 64);
            for (int d = 1; d < n; d *= 2) {
                int k = 0;
                for (int i = 1; i < n; i++) {
                    if ((i & d) != 0) {
                        MemorySegment.copy(tmp, i * b, out, k++ * b, b);
                    }
                }
                GroupState.start();
                try {
                    comm.send(out.asSlice(0, k * b), count * k, type, (rank + d) % n);
                    comm.recv(in.asSlice(0, k * b), count * k, type, (rank - d + n) % n);
                } finally {
                    GroupState.end();
                }
                k = 0;
                for (int i = 1; i < n; i++) {
                    if ((i & d) != 0) {
                        MemorySegment.copy(in, k++ * b, tmp, i * b, b);
                    }
                }
            }
            for (int i = 0; i < n; i++) {
                MemorySegment.copy(tmp, i * b, recv, ((rank - i + n) % n) * b, b);
            }
        }
    }
}
