package io.jccl.internal.reduce;

import io.jccl.DataType;
import io.jccl.RedOp;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * bf16 conversions (scalar against the reference model, vector against scalar) and the JDK's fp16 conversions the
 * fp16 kernels rely on (against the same reference model, which this also cross-checks).
 */
class HalfFloatTest {

    @Test
    void bf16WidenIsExactForAllCodes() {
        for (int code = 0; code < 65536; code++) {
            double expected = RefFormat.BF16.decode(code);
            assertThat(Double.compare(Bf16.widen((short) code), expected)).as("0x%04X", code).isZero();
        }
    }

    @Test
    void bf16NarrowRoundsToNearestEven() {
        assertThat(Bf16.narrow(1f)).isEqualTo((short) 0x3F80);
        assertThat(Bf16.narrow(Float.intBitsToFloat(0x3F80_8000))).isEqualTo((short) 0x3F80);   // tie, even stays
        assertThat(Bf16.narrow(Float.intBitsToFloat(0x3F81_8000))).isEqualTo((short) 0x3F82);   // tie, odd rounds up
        assertThat(Bf16.narrow(Float.intBitsToFloat(0x3F80_8001))).isEqualTo((short) 0x3F81);
        assertThat(Bf16.narrow(Float.intBitsToFloat(0x7F7F_FFFF))).isEqualTo((short) 0x7F80);   // overflow -> inf
        assertThat(Bf16.narrow(Float.NEGATIVE_INFINITY)).isEqualTo((short) 0xFF80);
        assertThat(Bf16.narrow(-0f)).isEqualTo((short) 0x8000);
        short nan = Bf16.narrow(Float.intBitsToFloat(0x7F80_0001));                            // signalling NaN
        assertThat(Float.isNaN(Bf16.widen(nan))).isTrue();
        assertThat(nan & 0x0040).as("quiet bit").isNotZero();
        assertThat(Bf16.narrow(Float.intBitsToFloat(0xFFC0_0000))).isEqualTo((short) 0xFFC0);
    }

    @Test
    void bf16NarrowMatchesTheReferenceAroundEveryMidpointPattern() {
        Random rnd = new Random(16);
        for (int i = 0; i < 300_000; i++) {
            int high = rnd.nextInt() & 0xFFFF_0000;
            int low = switch (i % 5) {
                case 0 -> 0x8000;
                case 1 -> 0x7FFF;
                case 2 -> 0x8001;
                case 3 -> 0;
                default -> rnd.nextInt() & 0xFFFF;
            };
            checkBf16(Float.intBitsToFloat(high | low));
        }
    }

    @Property
    void bf16NarrowMatchesTheReference(@ForAll float v) {
        checkBf16(v);
    }

    @Test
    void jdkFp16ConversionsMatchTheReference() {
        for (int code = 0; code < 65536; code++) {
            double v = RefFormat.FP16.decode(code);
            assertThat(Double.compare(Float.float16ToFloat((short) code), v)).as("0x%04X", code).isZero();
        }
        Random rnd = new Random(61);
        for (int i = 0; i < 200_000; i++) {
            float v = i % 2 == 0 ? Float.intBitsToFloat(rnd.nextInt())
                    : (float) Math.scalb(rnd.nextDouble(), rnd.nextInt(48) - 30);
            double expected = RefFormat.FP16.round(v);
            assertThat(Double.compare(Float.float16ToFloat(Float.floatToFloat16(v)), expected)).as("%s", v).isZero();
        }
    }

    @Test
    void bf16VectorWidenMatchesScalarForAllCodes() {
        assumeTrue(Simd.HALF != null);
        Bf16Reducer r = (Bf16Reducer) Reducers.create(DataType.BFLOAT16, RedOp.SUM, 2, true);
        int n = NarrowFloatReducer.BLOCK;
        MemorySegment codes = MemorySegment.ofArray(new byte[2 * n + 1]).asSlice(1);        // misaligned
        float[] vector = new float[n];
        float[] scalar = new float[n];
        for (int base = 0; base < 65536; base += n) {
            for (int i = 0; i < n; i++) {
                codes.set(ValueLayout.JAVA_SHORT_UNALIGNED, 2L * i, (short) (base + i));
            }
            r.widenVector(codes, 0, vector, n);
            r.widenScalar(codes, 0, scalar, n);
            for (int i = 0; i < n; i++) {
                if (Float.floatToRawIntBits(vector[i]) != Float.floatToRawIntBits(scalar[i])) {
                    fail("bf16 widen 0x%04X: vector %s, scalar %s", base + i, vector[i], scalar[i]);
                }
            }
        }
    }

    @Test
    void bf16VectorNarrowMatchesScalar() {
        assumeTrue(Simd.HALF != null);
        Bf16Reducer r = (Bf16Reducer) Reducers.create(DataType.BFLOAT16, RedOp.SUM, 2, true);
        int n = NarrowFloatReducer.BLOCK;
        float[] in = new float[n];
        MemorySegment vector = MemorySegment.ofArray(new byte[2 * n + 3]).asSlice(3);
        MemorySegment scalar = MemorySegment.ofArray(new byte[2 * n]);
        Random rnd = new Random(5);
        for (int round = 0; round < 256; round++) {
            for (int i = 0; i < n; i++) {
                int high = rnd.nextInt() & 0xFFFF_0000;
                in[i] = switch (i & 3) {
                    case 0 -> Float.intBitsToFloat(high | 0x8000);                  // exact ties
                    case 1 -> Float.intBitsToFloat(high | (rnd.nextBoolean() ? 0x7FFF : 0x8001));
                    case 2 -> Float.intBitsToFloat(rnd.nextInt());
                    default -> (float) Math.scalb(rnd.nextGaussian(), rnd.nextInt(60) - 40);
                };
            }
            if (round == 0) {
                in[0] = Float.NaN;
                in[1] = Float.POSITIVE_INFINITY;
                in[2] = -0f;
                in[3] = Float.intBitsToFloat(0x7F7F_FFFF);                              // rounds up to infinity
                in[4] = Float.intBitsToFloat(0xFF80_0001);                              // negative signalling NaN
            }
            r.narrowVector(in, vector, 0, n);
            r.narrowScalar(in, scalar, 0, n);
            for (int i = 0; i < n; i++) {
                short v = vector.get(ValueLayout.JAVA_SHORT_UNALIGNED, 2L * i);
                short sc = scalar.get(ValueLayout.JAVA_SHORT_UNALIGNED, 2L * i);
                if (v != sc) {
                    fail("bf16 narrow %s: vector 0x%04X, scalar 0x%04X", in[i], v, sc);
                }
            }
        }
    }

    private static void checkBf16(float v) {
        double expected = RefFormat.BF16.round(v);
        assertThat(Double.compare(Bf16.widen(Bf16.narrow(v)), expected)).as("bf16(%s)", v).isZero();
    }
}
