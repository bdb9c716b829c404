package io.jccl.tools.perf;

import io.jccl.DataType;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.assertj.core.api.Assertions.assertThat;

class ExpectedValuesTest {
    private final ElementAccess access = TestElementAccess.INSTANCE;

    private static ExpectedValues ev(PerfCollective c, long sizeBytes, DataType t, OpChoice op, int root, int rank,
                                     int n) {
        return new ExpectedValues(c, BufferLayout.of(c, sizeBytes, t.sizeBytes(), n), t, op, root, rank, n);
    }

    @Test
    void allReduceSumIsTheSumOfEveryRanksInput() {
        int n = 3;
        ExpectedValues[] ranks = new ExpectedValues[n];
        for (int r = 0; r < n; r++) {
            ranks[r] = ev(PerfCollective.ALL_REDUCE, 64, DataType.INT32, OpChoice.SUM, -1, r, n);
        }
        for (long j = 0; j < 16; j++) {
            long sum = 0;
            for (int r = 0; r < n; r++) {
                sum += (long) ranks[r].input(j, 7);
            }
            assertThat(ranks[1].expectedLong(j, 7)).isEqualTo(sum);
            assertThat(ranks[2].expectedLong(j, 7)).isEqualTo(sum);
        }
    }

    @Test
    void reductionsOfHandPickedOperations() {
        int n = 2;
        ExpectedValues r0 = ev(PerfCollective.ALL_REDUCE, 32, DataType.FLOAT32, OpChoice.MAX, -1, 0, n);
        ExpectedValues r1 = ev(PerfCollective.ALL_REDUCE, 32, DataType.FLOAT32, OpChoice.MAX, -1, 1, n);
        ExpectedValues mul0 = ev(PerfCollective.ALL_REDUCE, 32, DataType.INT64, OpChoice.MULSUM, -1, 0, n);
        ExpectedValues mul1 = ev(PerfCollective.ALL_REDUCE, 32, DataType.INT64, OpChoice.MULSUM, -1, 1, n);
        ExpectedValues avg0 = ev(PerfCollective.ALL_REDUCE, 32, DataType.INT32, OpChoice.AVG, -1, 0, n);
        ExpectedValues avg1 = ev(PerfCollective.ALL_REDUCE, 32, DataType.INT32, OpChoice.AVG, -1, 1, n);
        for (long j = 0; j < 4; j++) {
            assertThat(r0.expectedDouble(j, 1)).isEqualTo(Math.max(r0.input(j, 1), r1.input(j, 1)));
            assertThat(r0.lastTolerance()).isZero();
            // mulsum: rank 0 scales by 1, rank 1 by 2
            assertThat(mul0.expectedLong(j, 1)).isEqualTo((long) mul0.input(j, 1) + 2 * (long) mul1.input(j, 1));
            // integer avg truncates toward zero
            long s = (long) avg0.input(j, 1) + (long) avg1.input(j, 1);
            assertThat(avg0.expectedLong(j, 1)).isEqualTo(s / 2);
        }
    }

    @Test
    void floatAvgCarriesATolerance() {
        ExpectedValues e = ev(PerfCollective.ALL_REDUCE, 64, DataType.FLOAT16, OpChoice.AVG, -1, 0, 3);
        double sum = 0;
        double sumAbs = 0;
        for (int r = 0; r < 3; r++) {
            double v = ev(PerfCollective.ALL_REDUCE, 64, DataType.FLOAT16, OpChoice.AVG, -1, r, 3).input(5, 2);
            sum += v;
            sumAbs += Math.abs(v);
        }
        assertThat(e.expectedDouble(5, 2)).isEqualTo(sum / 3);
        assertThat(e.lastTolerance()).isEqualTo(Tolerance.bound(DataType.FLOAT16, OpChoice.AVG, 3, sumAbs));
    }

    @Test
    void intProductsWrapToTheTypeWidth() {
        int n = 16;
        ExpectedValues e = ev(PerfCollective.ALL_REDUCE, 64, DataType.INT8, OpChoice.PROD, -1, 0, n);
        for (long j = 0; j < 16; j++) {
            long p = 1;
            for (int r = 0; r < n; r++) {
                p *= (long) ev(PerfCollective.ALL_REDUCE, 64, DataType.INT8, OpChoice.PROD, -1, r, n).input(j, 0);
            }
            assertThat(e.expectedLong(j, 0)).isEqualTo((byte) p);
        }
    }

    @Test
    void dataMovingCollectivesReadTheRightSource() {
        // allgather, 2 ranks, 4 floats per rank (32 bytes total): output 5 is rank 1's element 1
        ExpectedValues ag = ev(PerfCollective.ALL_GATHER, 32, DataType.FLOAT32, null, -1, 0, 2);
        assertThat(ag.sourceRank(5)).isEqualTo(1);
        assertThat(ag.sourceIndex(5)).isEqualTo(1);
        // alltoall, rank 1 of 3, 4 floats per block (48 bytes): output 9 is element 1 of rank 2's block for rank 1
        ExpectedValues a2a = ev(PerfCollective.ALL_TO_ALL, 48, DataType.FLOAT32, null, -1, 1, 3);
        assertThat(a2a.sourceRank(9)).isEqualTo(2);
        assertThat(a2a.sourceIndex(9)).isEqualTo(1 * 4 + 1);
        // scatter from root 0, rank 2 of 3, 4 per rank: output 1 is root's element 2*4+1
        ExpectedValues sc = ev(PerfCollective.SCATTER, 48, DataType.FLOAT32, null, 0, 2, 3);
        assertThat(sc.sourceRank(1)).isEqualTo(0);
        assertThat(sc.sourceIndex(1)).isEqualTo(9);
        // sendrecv: rank 0 of 3 receives from rank 2
        ExpectedValues sr = ev(PerfCollective.SEND_RECV, 48, DataType.FLOAT32, OpChoice.SUM, -1, 0, 3);
        assertThat(sr.sourceRank(3)).isEqualTo(2);
        assertThat(sr.sourceIndex(3)).isEqualTo(3);
        // broadcast from root 1
        ExpectedValues bc = ev(PerfCollective.BROADCAST, 48, DataType.FLOAT32, null, 1, 0, 3);
        assertThat(bc.expectedDouble(7, 3)).isEqualTo(ev(PerfCollective.BROADCAST, 48, DataType.FLOAT32, null, 1, 1,
                3).input(7, 3));
    }

    @Test
    void reduceScatterReducesThisRanksBlock() {
        int n = 2;
        ExpectedValues r1 = ev(PerfCollective.REDUCE_SCATTER, 64, DataType.INT32, OpChoice.SUM, -1, 1, n);
        ExpectedValues r0 = ev(PerfCollective.REDUCE_SCATTER, 64, DataType.INT32, OpChoice.SUM, -1, 0, n);
        // 16 ints total, 8 per rank: rank 1's element 3 is the sum of both inputs at index 8 + 3
        assertThat(r1.expectedLong(3, 0)).isEqualTo((long) r0.input(11, 0) + (long) r1.input(11, 0));
        assertThat(r1.inputCount()).isEqualTo(16);
        assertThat(r1.outputCount()).isEqualTo(8);
    }

    @Test
    void rootOnlyResultsAreNotCheckedElsewhere() {
        assertThat(ev(PerfCollective.REDUCE, 64, DataType.FLOAT32, OpChoice.SUM, 1, 0, 2).outputCount()).isZero();
        assertThat(ev(PerfCollective.REDUCE, 64, DataType.FLOAT32, OpChoice.SUM, 1, 1, 2).outputCount()).isEqualTo(16);
        assertThat(ev(PerfCollective.GATHER, 64, DataType.FLOAT32, null, 0, 1, 2).outputCount()).isZero();
    }

    @Test
    void countWrongFindsEveryCorruptedElement() {
        for (DataType t : new DataType[]{DataType.FLOAT32, DataType.INT8, DataType.UINT32, DataType.BFLOAT16,
                DataType.FLOAT64, DataType.UINT64}) {
            ExpectedValues e = ev(PerfCollective.BROADCAST, 256, t, null, 0, 1, 2);
            ExpectedValues root = ev(PerfCollective.BROADCAST, 256, t, null, 0, 0, 2);
            try (Arena a = Arena.ofConfined()) {
                MemorySegment buf = a.allocate(256);
                root.fillInput(access, buf, 4);          // what the root sent is what rank 1 must get
                assertThat(e.countWrong(access, buf, 4)).as("%s", t).isZero();
                long n = e.outputCount();
                for (long j : new long[]{0, n / 2, n - 1}) {
                    access.setLong(t, buf, j, access.getLong(t, buf, j) + 1);
                }
                assertThat(e.countWrong(access, buf, 4)).as("%s", t).isEqualTo(3);
                assertThat(e.countWrong(access, buf, 5)).as("another repetition expects other values")
                        .isGreaterThan(n / 2);
            }
        }
    }

    @Test
    void floatComparisonsUseTheTolerance() {
        ExpectedValues e = ev(PerfCollective.ALL_REDUCE, 8, DataType.FLOAT64, OpChoice.AVG, -1, 0, 1);
        assertThat(e.outputCount()).isEqualTo(1);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(8);
            double exp = e.expectedDouble(0, 0);
            double tol = e.lastTolerance();
            access.setDouble(DataType.FLOAT64, buf, 0, exp + tol / 2);
            assertThat(e.countWrong(access, buf, 0)).isZero();
            access.setDouble(DataType.FLOAT64, buf, 0, exp + 1);
            assertThat(e.countWrong(access, buf, 0)).isEqualTo(1);
            access.setDouble(DataType.FLOAT64, buf, 0, Double.NaN);
            assertThat(e.countWrong(access, buf, 0)).isEqualTo(1);
        }
    }
}
