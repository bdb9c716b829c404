package io.jccl;

import io.jccl.testing.ThreadRanks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static io.jccl.BufferLayoutTest.input;
import static io.jccl.BufferLayoutTest.refused;
import static io.jccl.BufferLayoutTest.sum;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Send and receive buffers that overlap other than in a collective's in-place layout are refused (the algorithms
 * would overwrite inputs they still read); the in-place layouts themselves give exact results ({@link InPlaceP2pTest}
 * covers allToAll).
 */
class BufferOverlapTest {
    static final DataType F = DataType.FLOAT32;

    @Test
    void partialOverlapsAreRefusedOnEveryRank() {
        ThreadRanks.run(2, comm -> {
            int r = comm.rank();
            MemorySegment heap = MemorySegment.ofArray(new float[64]);
            MemorySegment direct = Arena.ofAuto().allocate(256, 64);
            for (MemorySegment all : new MemorySegment[] {heap, direct}) {
                refused(() -> comm.allReduce(all.asSlice(0, 16), all.asSlice(4, 16), 4, F, RedOp.SUM), r,
                        Collective.ALL_REDUCE, "the send buffer (16 bytes used) and the receive buffer (16 bytes used) "
                                + "overlap: the receive buffer starts 4 bytes into the send buffer",
                        "in place they must be the same buffer");
                // allGather's send block at the other rank's offset: both ranks' blocks are wrong
                refused(() -> comm.allGather(all.asSlice(16L * (1 - r), 16), all.asSlice(0, 32), 4, F), r,
                        Collective.ALL_GATHER, "overlap", "in place the send data must be this rank's block of the "
                                + "receive buffer, " + 16 * r + " bytes into it");
                refused(() -> comm.reduceScatter(all.asSlice(0, 32), all.asSlice(4, 16), 4, F, RedOp.SUM), r,
                        Collective.REDUCE_SCATTER, "the receive buffer starts 4 bytes into the send buffer");
                refused(() -> comm.allToAll(all.asSlice(0, 32), all.asSlice(8, 32), 4, F), r,
                        Collective.ALL_TO_ALL, "overlap");
            }
            // a read-only view of the same array is still seen to overlap
            float[] arr = new float[64];
            MemorySegment view = MemorySegment.ofArray(arr).asReadOnly();
            refused(() -> comm.allReduce(view, MemorySegment.ofArray(arr).asSlice(8), 4, F, RedOp.SUM), r,
                    Collective.ALL_REDUCE, "the receive buffer starts 8 bytes into the send buffer");
            // only the bytes the call touches count: the same array, apart, works
            for (int i = 0; i < 4; i++) {
                arr[i] = input(r, i);
            }
            comm.allReduce(MemorySegment.ofArray(arr).asSlice(0, 16), MemorySegment.ofArray(arr).asSlice(16), 4, F,
                    RedOp.SUM);
            for (int i = 0; i < 4; i++) {
                assertThat(arr[4 + i]).isEqualTo(sum(2, i));
            }
        });
    }

    @Test
    void rootedCallsCheckTheBuffersTheRootUses() {
        ThreadRanks.run(1, comm -> {
            MemorySegment all = MemorySegment.ofArray(new float[64]);
            refused(() -> comm.broadcast(all.asSlice(0, 16), all.asSlice(8, 16), 4, F, 0), 0, Collective.BROADCAST,
                    "overlap");
            refused(() -> comm.reduce(all.asSlice(8, 16), all.asSlice(0, 16), 4, F, RedOp.SUM, 0), 0,
                    Collective.REDUCE, "the send buffer starts 8 bytes into the receive buffer");
            refused(() -> comm.gather(all.asSlice(4, 16), all.asSlice(0, 16), 4, F, 0), 0, Collective.GATHER,
                    "overlap");
            refused(() -> comm.scatter(all.asSlice(0, 16), all.asSlice(4, 16), 4, F, 0), 0, Collective.SCATTER,
                    "overlap");
        });
        // off the root, broadcast's send buffer is not read: an overlap there is no error
        ThreadRanks.run(2, comm -> {
            float[] a = new float[8];
            if (comm.rank() == 0) {
                for (int i = 0; i < 4; i++) {
                    a[i] = 10 + i;
                }
                comm.broadcast(MemorySegment.ofArray(a).asSlice(0, 16), MemorySegment.ofArray(a).asSlice(0, 16), 4,
                        F, 0);
            } else {
                comm.broadcast(MemorySegment.ofArray(a).asSlice(4, 16), MemorySegment.ofArray(a).asSlice(0, 16), 4,
                        F, 0);
            }
            assertThat(a).startsWith(10, 11, 12, 13);
        });
    }

    @ParameterizedTest(name = "{0} ranks, {1} floats")
    @CsvSource({"2, 7", "3, 20001", "3, 300001"})
    void inPlaceLayoutsGiveExactResults(int n, int count) {
        ThreadRanks.run(n, comm -> {
            int r = comm.rank();
            long b = 4L * count;
            float[] gathered = new float[n * count];
            for (int i = 0; i < count; i++) {
                gathered[r * count + i] = input(r, i);
            }
            MemorySegment g = MemorySegment.ofArray(gathered);
            comm.allGather(g.asSlice(r * b, b), g, count, F);
            float[] blocks = new float[n * count];
            for (int i = 0; i < n * count; i++) {
                blocks[i] = input(r, i);
            }
            MemorySegment s = MemorySegment.ofArray(blocks);
            comm.reduceScatter(s, s.asSlice(r * b, b), count, F, RedOp.SUM);
            // in place through a read-only view of the send data
            float[] same = new float[count];
            for (int i = 0; i < count; i++) {
                same[i] = input(r, i);
            }
            comm.allReduce(MemorySegment.ofArray(same).asReadOnly(), MemorySegment.ofArray(same), count, F, RedOp.SUM);
            for (int p = 0; p < n; p++) {
                for (int i = 0; i < count; i++) {
                    if (gathered[p * count + i] != input(p, i)) {
                        throw new AssertionError("allGather block " + p + " element " + i + ": "
                                + gathered[p * count + i]);
                    }
                }
            }
            for (int i = 0; i < count; i++) {
                if (blocks[r * count + i] != sum(n, r * count + i) || same[i] != sum(n, i)) {
                    throw new AssertionError("element " + i + ": reduceScatter " + blocks[r * count + i]
                            + ", allReduce " + same[i]);
                }
            }
        });
    }

    @Test
    void gatherAndScatterInPlaceGiveExactResults() {
        ThreadRanks.run(3, comm -> {
            int r = comm.rank();
            int count = 50_001;
            long b = 4L * count;
            float[] all = new float[3 * count];
            MemorySegment seg = MemorySegment.ofArray(all);
            for (int i = 0; i < count; i++) {
                all[r * count + i] = input(r, i);
            }
            comm.gather(seg.asSlice(r * b, b), r == 1 ? seg : null, count, F, 1);
            if (r == 1) {
                for (int i = 0; i < 3 * count; i++) {
                    assertThat(all[i]).as("gathered element %d", i).isEqualTo(input(i / count, i % count));
                }
                for (int i = 0; i < 3 * count; i++) {
                    all[i] = -i;
                }
            }
            comm.scatter(r == 1 ? seg : null, r == 1 ? seg.asSlice(r * b, b) : seg.asSlice(0, b), count, F, 1);
            for (int i = 0; i < count; i++) {
                float got = r == 1 ? all[r * count + i] : all[i];
                if (got != -(r * count + i)) {
                    throw new AssertionError("scattered element " + i + " on rank " + r + ": " + got);
                }
            }
        });
    }
}
