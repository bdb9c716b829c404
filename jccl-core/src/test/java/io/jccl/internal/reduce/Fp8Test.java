package io.jccl.internal.reduce;

import io.jccl.DataType;
import io.jccl.RedOp;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class Fp8Test {

    enum Format {
        E4M3(Fp8.E4M3, RefFormat.E4M3), E5M2(Fp8.E5M2, RefFormat.E5M2);

        final Fp8 fp8;
        final RefFormat ref;

        Format(Fp8 fp8, RefFormat ref) {
            this.fp8 = fp8;
            this.ref = ref;
        }
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void widenIsExactForAll256Codes(Format f) {
        for (int code = 0; code < 256; code++) {
            double expected = f.ref.decode(code);
            float actual = f.fp8.widen((byte) code);
            assertThat(Double.compare(actual, expected)).as("code 0x%02X", code).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void widenThenNarrowRoundTripsAll256Codes(Format f) {
        for (int code = 0; code < 256; code++) {
            int back = f.fp8.narrow(f.fp8.widen((byte) code)) & 0xFF;
            double v = f.ref.decode(code);
            int expected;
            if (Double.isNaN(v)) {
                expected = Fp8.NAN_CODE;
            } else if (Double.isInfinite(v)) {
                expected = (code & 0x80) | f.fp8.maxCode();   // SATFINITE: ±inf -> ±max finite
            } else {
                expected = code;
            }
            assertThat(back).as("code 0x%02X", code).isEqualTo(expected);
        }
    }

    @Test
    void knownValues() {
        Fp8 e4 = Fp8.E4M3;
        Fp8 e5 = Fp8.E5M2;
        assertThat(e4.maxFinite()).isEqualTo(448f);
        assertThat(e5.maxFinite()).isEqualTo(57344f);
        assertThat(e4.narrow(448f) & 0xFF).isEqualTo(0x7E);
        assertThat(e4.narrow(-448f) & 0xFF).isEqualTo(0xFE);
        assertThat(e5.narrow(57344f) & 0xFF).isEqualTo(0x7B);
        assertThat(e4.narrow(1f) & 0xFF).isEqualTo(0x38);
        assertThat(e5.narrow(1f) & 0xFF).isEqualTo(0x3C);
        // smallest subnormals and their halves (ties to even: 0)
        assertThat(e4.narrow(0x1p-9f) & 0xFF).isEqualTo(0x01);
        assertThat(e5.narrow(0x1p-16f) & 0xFF).isEqualTo(0x01);
        assertThat(e4.narrow(0x1p-10f) & 0xFF).isEqualTo(0x00);
        assertThat(e4.narrow(-0x1p-10f) & 0xFF).isEqualTo(0x80);
        assertThat(e4.narrow(Math.nextUp(0x1p-10f)) & 0xFF).isEqualTo(0x01);
        assertThat(e5.narrow(0x1p-17f) & 0xFF).isEqualTo(0x00);
        // 1.5 * 2^-9 is halfway between codes 1 and 2: even code 2 wins; 2.5 * 2^-9 -> 2
        assertThat(e4.narrow(1.5f * 0x1p-9f) & 0xFF).isEqualTo(0x02);
        assertThat(e4.narrow(2.5f * 0x1p-9f) & 0xFF).isEqualTo(0x02);
        // 1 + 1/16 is halfway between 1 (0x38) and 1.125 (0x39): even 0x38; 1 + 3/16 -> 1.25 (0x3A)
        assertThat(e4.narrow(1.0625f) & 0xFF).isEqualTo(0x38);
        assertThat(e4.narrow(1.1875f) & 0xFF).isEqualTo(0x3A);
        assertThat(e5.narrow(1.125f) & 0xFF).isEqualTo(0x3C);
        assertThat(e5.narrow(1.375f) & 0xFF).isEqualTo(0x3E);
        // rounding up across a binade
        assertThat(e4.narrow(15.5f) & 0xFF).isEqualTo(0x58);        // 15.5 is halfway 15 / 16 -> 16 (even)
        // negative zero and NaN
        assertThat(e4.narrow(-0f) & 0xFF).isEqualTo(0x80);
        assertThat(e4.narrow(Float.NaN) & 0xFF).isEqualTo(0x7F);
        assertThat(e5.narrow(Float.intBitsToFloat(0xFFC0_0001)) & 0xFF).isEqualTo(0x7F);
    }

    @Test
    void saturatesBeyondLargestFinite() {
        for (float v : new float[]{449f, 464f, 465f, 480f, 1e6f, Float.MAX_VALUE, Float.POSITIVE_INFINITY}) {
            assertThat(Fp8.E4M3.narrow(v) & 0xFF).as("%s", v).isEqualTo(0x7E);
            assertThat(Fp8.E4M3.narrow(-v) & 0xFF).as("%s", -v).isEqualTo(0xFE);
        }
        for (float v : new float[]{57345f, 61440f, 65536f, 1e9f, Float.POSITIVE_INFINITY}) {
            assertThat(Fp8.E5M2.narrow(v) & 0xFF).as("%s", v).isEqualTo(0x7B);
            assertThat(Fp8.E5M2.narrow(-v) & 0xFF).as("%s", -v).isEqualTo(0xFB);
        }
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void everyMidpointAndItsNeighboursRoundLikeTheReference(Format f) {
        for (int code = 0; code < 0x7F; code++) {
            double lo = f.ref.decode(code);
            double hi = f.ref.decode(code + 1);
            if (!Double.isFinite(lo) || !Double.isFinite(hi)) {
                continue;
            }
            float mid = (float) ((lo + hi) / 2);          // exact: fp8 midpoints need few bits
            for (float v : new float[]{mid, Math.nextDown(mid), Math.nextUp(mid), (float) lo, (float) hi}) {
                checkAgainstReference(f, v);
                checkAgainstReference(f, -v);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void randomFloatsRoundLikeTheReference(Format f) {
        Random rnd = new Random(8);
        for (int i = 0; i < 200_000; i++) {
            float v = i % 2 == 0 ? Float.intBitsToFloat(rnd.nextInt())
                    : (float) Math.scalb(rnd.nextDouble() * 2 - 1, rnd.nextInt(50) - 25);
            checkAgainstReference(f, v);
        }
    }

    @Property
    void arbitraryFloatsRoundLikeTheReference(@ForAll float v) {
        checkAgainstReference(Format.E4M3, v);
        checkAgainstReference(Format.E5M2, v);
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void vectorConversionsMatchScalarBitForBit(Format f) {
        assumeTrue(Simd.QUARTER != null, "no vector shape for fp8 on this platform");
        DataType type = f == Format.E4M3 ? DataType.FLOAT8_E4M3 : DataType.FLOAT8_E5M2;
        Fp8Reducer r = (Fp8Reducer) Reducers.create(type, RedOp.SUM, 2, true);
        int n = NarrowFloatReducer.BLOCK;
        Random rnd = new Random(3);
        float[] in = new float[n];
        MemorySegment vector = MemorySegment.ofArray(new byte[n + 1]).asSlice(1);
        MemorySegment scalar = MemorySegment.ofArray(new byte[n]);
        for (int round = 0; round < 256; round++) {
            for (int i = 0; i < n; i++) {
                in[i] = switch (i % 4) {
                    case 0 -> Float.intBitsToFloat(rnd.nextInt());
                    case 1 -> (float) Math.scalb(rnd.nextGaussian(), rnd.nextInt(44) - 24);
                    case 2 -> f.fp8.widen((byte) rnd.nextInt()) * (1 + (rnd.nextInt(3) - 1) * 0x1p-5f);
                    default -> {
                        float lo = f.fp8.widen((byte) rnd.nextInt(0x7F));              // midpoints of neighbours
                        yield (lo + f.fp8.widen((byte) (f.fp8.narrow(lo) + 1))) / 2;
                    }
                };
            }
            r.narrowVector(in, vector, 0, n);
            r.narrowScalar(in, scalar, 0, n);
            for (int i = 0; i < n; i++) {
                byte v = vector.get(ValueLayout.JAVA_BYTE, i);
                if (v != scalar.get(ValueLayout.JAVA_BYTE, i)) {
                    fail("narrow %s: vector 0x%02X, scalar 0x%02X", in[i], v, scalar.get(ValueLayout.JAVA_BYTE, i));
                }
            }
        }
        MemorySegment codes = MemorySegment.ofArray(new byte[n + 3]).asSlice(3);
        for (int i = 0; i < n; i++) {
            codes.set(ValueLayout.JAVA_BYTE, i, (byte) i);                                // all 256 codes, 4 times
        }
        float[] widenedVector = new float[n];
        float[] widenedScalar = new float[n];
        r.widenVector(codes, 0, widenedVector, n);
        r.widenScalar(codes, 0, widenedScalar, n);
        for (int i = 0; i < n; i++) {
            assertThat(Float.floatToRawIntBits(widenedVector[i])).as("widen 0x%02X", i & 0xFF)
                    .isEqualTo(Float.floatToRawIntBits(widenedScalar[i]));
        }
    }

    private static void checkAgainstReference(Format f, float v) {
        int code = f.fp8.narrow(v) & 0xFF;
        double expected = f.ref.round(v);
        if (Double.isNaN(expected)) {
            assertThat(code).as("narrow(%s)", v).isEqualTo(Fp8.NAN_CODE);
        } else {
            assertThat(Double.compare(f.ref.decode(code), expected)).as("narrow(%s) gave 0x%02X, expected %s",
                    v, code, expected).isZero();
        }
    }
}
