package io.jccl.tools.perf;

import io.jccl.DataType;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The input pattern must make every partial result exact: checked over every type, operation and a range of rank
 * counts, for every subset bound that matters (sums of magnitudes, counts of non-unit factors).
 */
class DataPatternTest {
    private static final List<Integer> RANKS = List.of(1, 2, 3, 4, 7, 8, 9, 16, 17, 33, 100);
    private static final int INDICES = 300;

    @Test
    void sumsOfMagnitudesStayWithinTheExactRange() {
        for (DataType type : DataType.values()) {
            for (OpChoice op : List.of(OpChoice.SUM, OpChoice.AVG, OpChoice.MULSUM)) {
                for (int n : RANKS) {
                    DataPattern p = DataPattern.of(type, op, n);
                    long limit = TypeLimits.exactIntegerLimit(type);
                    for (int rep = 0; rep < 3; rep++) {
                        for (long i = 0; i < INDICES; i++) {
                            double sumAbs = 0;
                            for (int r = 0; r < n; r++) {
                                double v = p.value(r, i, rep);
                                assertThat(v).as("%s %s n=%d value is an integer", type, op, n).isEqualTo(Math.rint(v));
                                if (type.isUnsigned()) {
                                    assertThat(v).isGreaterThanOrEqualTo(0);
                                }
                                sumAbs += Math.abs(v * op.scalar(r));
                            }
                            assertThat(sumAbs).as("%s %s n=%d i=%d", type, op, n, i).isLessThanOrEqualTo(limit);
                        }
                    }
                }
            }
        }
    }

    @Test
    void floatProductsHaveAtMostOneTwoAndOneHalfPerElement() {
        for (DataType type : List.of(DataType.FLOAT8_E4M3, DataType.FLOAT8_E5M2, DataType.FLOAT16, DataType.BFLOAT16,
                DataType.FLOAT32, DataType.FLOAT64)) {
            for (int n : RANKS) {
                DataPattern p = DataPattern.of(type, OpChoice.PROD, n);
                for (long i = 0; i < INDICES; i++) {
                    int twos = 0;
                    int halves = 0;
                    for (int r = 0; r < n; r++) {
                        double v = p.value(r, i, 1);
                        assertThat(v).isIn(0.5, 1.0, 2.0);
                        twos += v == 2.0 ? 1 : 0;
                        halves += v == 0.5 ? 1 : 0;
                    }
                    assertThat(twos).isLessThanOrEqualTo(1);
                    assertThat(halves).isLessThanOrEqualTo(1);
                }
            }
        }
    }

    @Test
    void integerProductsUseSmallNonZeroFactors() {
        DataPattern signed = DataPattern.of(DataType.INT8, OpChoice.PROD, 8);
        DataPattern unsigned = DataPattern.of(DataType.UINT32, OpChoice.PROD, 8);
        for (long i = 0; i < INDICES; i++) {
            assertThat(signed.value(3, i, 0)).isIn(-1.0, 2.0, 3.0, 4.0);
            assertThat(unsigned.value(3, i, 0)).isIn(1.0, 2.0, 3.0);
        }
    }

    @Test
    void valuesDependOnRankIndexAndRepetition() {
        DataPattern p = DataPattern.of(DataType.FLOAT32, null, 1);
        assertThat(p.amplitude()).isEqualTo(DataPattern.MAX_AMPLITUDE);
        long differRank = 0;
        long differRep = 0;
        long distinct = java.util.stream.LongStream.range(0, 1000).mapToDouble(i -> p.value(0, i, 0)).distinct().count();
        for (long i = 0; i < 1000; i++) {
            differRank += p.value(0, i, 0) != p.value(1, i, 0) ? 1 : 0;
            differRep += p.value(0, i, 0) != p.value(0, i, 1) ? 1 : 0;
        }
        assertThat(distinct).isGreaterThan(400);
        assertThat(differRank).isGreaterThan(990);
        assertThat(differRep).isGreaterThan(990);
        assertThat(p.value(5, 17, 2)).isEqualTo(p.value(5, 17, 2));
    }

    @Test
    void signedAndFloatingValuesAreCentredOnZero() {
        DataPattern p = DataPattern.of(DataType.INT32, OpChoice.MAX, 4);
        boolean negative = false;
        for (long i = 0; i < 100; i++) {
            negative |= p.value(0, i, 0) < 0;
        }
        assertThat(negative).isTrue();
    }

    @Test
    void fp8WithManyRanksBecomesSparse() {
        DataPattern p = DataPattern.of(DataType.FLOAT8_E5M2, OpChoice.SUM, 33);
        assertThat(p.amplitude()).isEqualTo(1);
        assertThat(p.stride()).isEqualTo(5);   // ceil(33 / 8)
        DataPattern small = DataPattern.of(DataType.FLOAT8_E4M3, OpChoice.SUM, 4);
        assertThat(small.amplitude()).isEqualTo(4);
        assertThat(small.stride()).isEqualTo(1);
    }
}
