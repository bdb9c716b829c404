package io.jccl;

import io.jccl.testing.ThreadRanks;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The two-shot allReduce through the shared areas (JCCL_TWOSHOT_MAX_BYTES above a small one-shot limit): every type
 * and reduction, in and out of place, counts smaller than the rank count, counts that leave the last slice short or
 * empty, and counts spanning several 1 MiB chunks; interleaved with one-shot calls, which share its sequence numbers.
 */
class TwoShotTest {
    @AfterEach
    void restore() {
        System.clearProperty("JCCL_ONESHOT_MAX_BYTES");
        System.clearProperty("JCCL_TWOSHOT_MAX_BYTES");
    }

    private static void twoShotAbove(long oneShotMaxBytes) {
        System.setProperty("JCCL_ONESHOT_MAX_BYTES", Long.toString(oneShotMaxBytes));
        System.setProperty("JCCL_TWOSHOT_MAX_BYTES", Long.toString(64L << 20));
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 3, 4})
    void everyTypeAndOpAcrossChunks(int n) {
        twoShotAbove(0);
        ThreadRanks.run(n, comm -> {
            assertThat(comm.explain(Collective.ALL_REDUCE, 4096)).contains("two-shot");
            for (DataType t : DataType.values()) {
                for (RedOp op : TypesOpsTest.OPS) {
                    for (long count : new long[] {1, n + 1L, 4099}) {
                        CollectivesTest.checkAllReduce(comm, count, t, op, count == 4099);
                    }
                }
            }
            for (DataType t : new DataType[] {DataType.FLOAT32, DataType.BFLOAT16, DataType.INT8, DataType.FLOAT64}) {
                CollectivesTest.checkAllReduce(comm, 300_007, t, RedOp.SUM, false);
                CollectivesTest.checkAllReduce(comm, 300_007, t, RedOp.preMulSum(io.jccl.testing.Oracle.SCALAR), true);
            }
        });
    }

    @Test
    void interleavedWithOneShotAndRing() {
        twoShotAbove(256);
        System.setProperty("JCCL_TWOSHOT_MAX_BYTES", Long.toString(1L << 20));
        ThreadRanks.run(3, comm -> {
            assertThat(comm.explain(Collective.ALL_REDUCE, 128)).contains("one-shot");
            assertThat(comm.explain(Collective.ALL_REDUCE, 100_000)).contains("two-shot");
            assertThat(comm.explain(Collective.ALL_REDUCE, 2L << 20)).doesNotContain("two-shot").doesNotContain("one-shot");
            for (int round = 0; round < 20; round++) {
                long count = switch (round % 4) {
                    case 0 -> 7;               // one-shot
                    case 1 -> 25_001;          // two-shot, one chunk
                    case 2 -> 262_144;         // two-shot at the limit
                    default -> 600_000;        // ring
                };
                CollectivesTest.checkAllReduce(comm, count, DataType.FLOAT32, RedOp.SUM, round % 3 == 0);
            }
        });
    }

    @Test
    void everyRankGetsTheSameBits() {
        twoShotAbove(0);
        ThreadRanks.run(3, comm -> {
            int count = 200_003;
            try (Arena a = Arena.ofShared()) {
                MemorySegment in = a.allocate(4L * count, 64);
                java.util.Random rnd = new java.util.Random(17 + comm.rank());
                for (int i = 0; i < count; i++) {
                    in.setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) rnd.nextGaussian());
                }
                MemorySegment out = a.allocate(4L * count, 64);
                comm.allReduce(in, out, count, DataType.FLOAT32, RedOp.SUM);
                MemorySegment all = a.allocate(4L * count * comm.size(), 64);
                comm.allGather(out, all, count, DataType.FLOAT32);
                for (int r = 1; r < comm.size(); r++) {
                    assertThat(all.asSlice(4L * count * r, 4L * count).mismatch(all.asSlice(0, 4L * count)))
                            .as("rank %d's result against rank 0's", r).isEqualTo(-1L);
                }
            }
        });
    }
}
