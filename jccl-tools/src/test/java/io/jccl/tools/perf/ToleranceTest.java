package io.jccl.tools.perf;

import io.jccl.DataType;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ToleranceTest {

    @Test
    void integersAndExactOperationsMustMatchExactly() {
        for (DataType t : new DataType[]{DataType.INT8, DataType.UINT64, DataType.INT32}) {
            for (OpChoice op : OpChoice.values()) {
                assertThat(Tolerance.exact(t, op)).isTrue();
                assertThat(Tolerance.bound(t, op, 8, 100)).isZero();
            }
        }
        for (OpChoice op : new OpChoice[]{OpChoice.SUM, OpChoice.PROD, OpChoice.MIN, OpChoice.MAX}) {
            assertThat(Tolerance.bound(DataType.FLOAT8_E5M2, op, 8, 100)).isZero();
        }
        assertThat(Tolerance.exact(DataType.FLOAT32, null)).isTrue();
    }

    @Test
    void avgAndMulsumOnFloatsAllowTwiceTheRoundingBound() {
        // fp32, 4 ranks, inputs summing to 10 in magnitude: 2 * 2^-24 * 10 + 5 * 2^-149
        assertThat(Tolerance.bound(DataType.FLOAT32, OpChoice.AVG, 4, 10))
                .isEqualTo(2 * 0x1p-24 * 10 + 5 * 0x1p-149);
        // fp16: 2 * 2^-11 * 8 + 3 * 2^-24
        assertThat(Tolerance.bound(DataType.FLOAT16, OpChoice.MULSUM, 2, 8)).isEqualTo(2 * 0x1p-11 * 8 + 3 * 0x1p-24);
        // bf16 avg of 3 ranks summing to 12: 12/3 = 4 may be off by at most 2 * 2^-8 * 12 plus subnormals
        double b = Tolerance.bound(DataType.BFLOAT16, OpChoice.AVG, 3, 12);
        assertThat(b).isGreaterThan(0.09).isLessThan(0.1);
    }

    @Test
    void theBoundCoversOneRoundingOfTheMean() {
        // an fp16 mean of 1/3 rounds to the nearest half: error < u * |x| which the bound (2 u sumAbs) covers
        double exact = 1.0 / 3;
        double rounded = Float.float16ToFloat(Float.floatToFloat16((float) exact));
        assertThat(Math.abs(rounded - exact)).isLessThanOrEqualTo(Tolerance.bound(DataType.FLOAT16, OpChoice.AVG, 3, 1));
    }
}
