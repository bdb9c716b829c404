package io.jccl.internal.reduce;

import io.jccl.DataType;
import jdk.incubator.vector.Float16;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

class ElementCodecTest {
    /** One byte into a native segment, so every multi-byte element is misaligned. */
    private static MemorySegment misaligned(Arena arena, DataType type, int count) {
        return arena.allocate((long) count * type.sizeBytes() + 8, 8).asSlice(1, (long) count * type.sizeBytes());
    }

    @Test
    void integersReadSignedOrUnsignedFromTheRightBytes() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = misaligned(arena, DataType.INT64, 4);
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, -2L);
            assertThat(DataType.INT64.getDouble(s, 1)).isEqualTo(-2.0);
            assertThat(DataType.UINT64.getDouble(s, 1)).isEqualTo(0x1p64);   // 2^64 - 2 rounds to 2^64
            assertThat(DataType.UINT64.getLong(s, 1)).isEqualTo(-2L);
            assertThat(DataType.INT32.getDouble(s, 2)).isEqualTo(-2.0);       // low half of element 1 (little end)
            assertThat(DataType.UINT32.getDouble(s, 2)).isEqualTo(4294967294.0);
            assertThat(DataType.UINT32.getLong(s, 2)).isEqualTo(4294967294L);
            assertThat(DataType.INT8.getDouble(s, 8)).isEqualTo(-2.0);
            assertThat(DataType.UINT8.getDouble(s, 8)).isEqualTo(254.0);
            assertThat(DataType.UINT8.getLong(s, 9)).isEqualTo(255L);
        }
    }

    @Test
    void unsignedToDoubleRoundsToNearestEven() {
        Random rnd = new Random(64);
        for (int i = 0; i < 20_000; i++) {
            long v = rnd.nextLong() | (i % 2 == 0 ? Long.MIN_VALUE : 0);
            double expected = new java.math.BigDecimal(new BigInteger(Long.toUnsignedString(v))).doubleValue();
            if (ElementCodec.unsignedToDouble(v) != expected) {
                fail("unsigned %s: got %s expected %s", Long.toUnsignedString(v), ElementCodec.unsignedToDouble(v),
                        expected);
            }
        }
    }

    @Test
    void integerSetTruncatesTowardZeroAndWraps() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = misaligned(arena, DataType.INT64, 2);
            DataType.UINT8.setDouble(s, 3, -1.0);
            assertThat(DataType.UINT8.getDouble(s, 3)).isEqualTo(255.0);
            DataType.INT8.setDouble(s, 3, 200.0);
            assertThat(DataType.INT8.getDouble(s, 3)).isEqualTo(-56.0);
            DataType.INT8.setDouble(s, 3, 3.9);
            assertThat(DataType.INT8.getLong(s, 3)).isEqualTo(3);
            DataType.INT8.setDouble(s, 3, -3.9);
            assertThat(DataType.INT8.getLong(s, 3)).isEqualTo(-3);
            DataType.UINT32.setDouble(s, 1, 4294967296.0 + 7);
            assertThat(DataType.UINT32.getLong(s, 1)).isEqualTo(7);
            DataType.INT32.setDouble(s, 1, -2147483649.0);
            assertThat(DataType.INT32.getLong(s, 1)).isEqualTo(Integer.MAX_VALUE);
            DataType.UINT64.setDouble(s, 0, 0x1p63);
            assertThat(DataType.UINT64.getLong(s, 0)).isEqualTo(Long.MIN_VALUE);
            assertThat(DataType.UINT64.getDouble(s, 0)).isEqualTo(0x1p63);
            DataType.UINT64.setDouble(s, 0, -1.0);
            assertThat(DataType.UINT64.getLong(s, 0)).isEqualTo(-1L);
            DataType.INT64.setDouble(s, 0, 0x1p64 + 0x1p12);
            assertThat(DataType.INT64.getLong(s, 0)).isEqualTo(4096L);
            DataType.INT64.setDouble(s, 0, -(0x1p64 + 0x1p12));
            assertThat(DataType.INT64.getLong(s, 0)).isEqualTo(-4096L);
            DataType.INT64.setDouble(s, 0, 1e300);
            assertThat(DataType.INT64.getLong(s, 0)).isZero();
            DataType.INT32.setDouble(s, 0, Double.NaN);
            assertThat(DataType.INT32.getLong(s, 0)).isZero();
            DataType.INT32.setDouble(s, 0, Double.POSITIVE_INFINITY);
            assertThat(DataType.INT32.getLong(s, 0)).isZero();
        }
    }

    @Test
    void truncateWrappingMatchesBigIntegerArithmetic() {
        Random rnd = new Random(7);
        BigInteger mod = BigInteger.ONE.shiftLeft(64);
        for (int i = 0; i < 20_000; i++) {
            double v = Math.scalb(rnd.nextDouble() * 2 - 1, rnd.nextInt(140));
            BigInteger exact = new java.math.BigDecimal(v).toBigInteger();
            long expected = exact.mod(mod).longValue();
            if (ElementCodec.truncateWrapping(v) != expected) {
                fail("%s: got %s expected %s", v, ElementCodec.truncateWrapping(v), expected);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = DataType.class, names = {"INT8", "UINT8", "INT32", "UINT32", "INT64", "UINT64"})
    void setLongKeepsTheLowBits(DataType type) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = misaligned(arena, type, 3);
            int bits = type.sizeBytes() * 8;
            Random rnd = new Random(bits);
            for (int i = 0; i < 1000; i++) {
                long v = rnd.nextLong();
                type.setLong(s, 2, v);
                long low = bits == 64 ? v : v & ((1L << bits) - 1);
                long expected = type.isUnsigned() || bits == 64 ? low : (low << (64 - bits)) >> (64 - bits);
                assertThat(type.getLong(s, 2)).isEqualTo(expected);
            }
        }
    }

    @Test
    void fp16SetRoundsTheDoubleOnceLikeFloat16ValueOf() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = misaligned(arena, DataType.FLOAT16, 2);
            Random rnd = new Random(116);
            for (int i = 0; i < 50_000; i++) {
                double v;
                if (i % 2 == 0) {
                    // an fp16 midpoint nudged by far less than an fp32 ulp: a plain (float) cast lands on the tie
                    double lo = Float.float16ToFloat((short) rnd.nextInt(0x7BFF));
                    double hi = Float.float16ToFloat((short) (Float.floatToFloat16((float) lo) + 1));
                    v = (lo + hi) / 2 * (1 + (rnd.nextBoolean() ? 1 : -1) * 0x1p-40);
                } else {
                    v = Math.scalb(rnd.nextGaussian(), rnd.nextInt(40) - 26);
                }
                DataType.FLOAT16.setDouble(s, 1, v);
                short expected = Float16.float16ToRawShortBits(Float16.valueOf(v));
                short actual = s.get(ValueLayout.JAVA_SHORT_UNALIGNED, 2);
                if (actual != expected) {
                    fail("fp16 %s: got 0x%04X expected 0x%04X", v, actual, expected);
                }
            }
            double tie = (1.0 + (1.0 + 0x1p-10)) / 2;                    // halfway between 1 and its successor
            DataType.FLOAT16.setDouble(s, 0, tie + 0x1p-40);
            assertThat(DataType.FLOAT16.getDouble(s, 0)).isEqualTo(1.0 + 0x1p-10);
            DataType.FLOAT16.setDouble(s, 0, tie);
            assertThat(DataType.FLOAT16.getDouble(s, 0)).isEqualTo(1.0);
        }
    }

    @ParameterizedTest
    @EnumSource(value = DataType.class, names = {"BFLOAT16", "FLOAT8_E4M3", "FLOAT8_E5M2", "FLOAT16"})
    void narrowFloatSetMatchesTheReferenceRounding(DataType type) {
        RefFormat ref = switch (type) {
            case BFLOAT16 -> RefFormat.BF16;
            case FLOAT8_E4M3 -> RefFormat.E4M3;
            case FLOAT8_E5M2 -> RefFormat.E5M2;
            default -> RefFormat.FP16;
        };
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = misaligned(arena, type, 2);
            Random rnd = new Random(type.ordinal());
            for (int i = 0; i < 50_000; i++) {
                double v = switch (i % 3) {
                    case 0 -> Math.scalb(rnd.nextGaussian(), rnd.nextInt(60) - 30);
                    case 1 -> {
                        int code = rnd.nextInt(ref.codes());
                        double lo = ref.decode(code);
                        double hi = ref.decode(code + 1 < ref.codes() ? code + 1 : code);
                        yield (lo + hi) / 2 * (1 + (rnd.nextInt(3) - 1) * 0x1p-45);
                    }
                    default -> Double.longBitsToDouble(rnd.nextLong());
                };
                type.setDouble(s, 1, v);
                double expected = ref.round(v);
                double actual = type.getDouble(s, 1);
                if (Double.compare(actual, expected) != 0) {
                    fail("%s set(%s): got %s expected %s", type, v, actual, expected);
                }
            }
        }
    }

    @Test
    void floatSetLongRoundsOnceFromTheLong() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(16);
            // 2^62 + 2^54 is halfway between two bf16 values; +1 must round up, although (double) of it is the tie
            DataType.BFLOAT16.setLong(s, 0, (1L << 62) + (1L << 54) + 1);
            assertThat(DataType.BFLOAT16.getDouble(s, 0)).isEqualTo(0x1p62 + 0x1p55);
            DataType.BFLOAT16.setLong(s, 0, (1L << 62) + (1L << 54));
            assertThat(DataType.BFLOAT16.getDouble(s, 0)).isEqualTo(0x1p62);
            DataType.BFLOAT16.setLong(s, 0, (1L << 62) + 3 * (1L << 54));
            assertThat(DataType.BFLOAT16.getDouble(s, 0)).isEqualTo(0x1p62 + 0x1p56);
            DataType.BFLOAT16.setLong(s, 0, -((1L << 62) + (1L << 54) + 1));
            assertThat(DataType.BFLOAT16.getDouble(s, 0)).isEqualTo(-(0x1p62 + 0x1p55));
            DataType.BFLOAT16.setLong(s, 0, Long.MAX_VALUE);
            assertThat(DataType.BFLOAT16.getDouble(s, 0)).isEqualTo(0x1p63);
            DataType.BFLOAT16.setLong(s, 0, Long.MIN_VALUE);
            assertThat(DataType.BFLOAT16.getDouble(s, 0)).isEqualTo(-0x1p63);
            DataType.FLOAT16.setLong(s, 0, 65519);
            assertThat(DataType.FLOAT16.getDouble(s, 0)).isEqualTo(65504.0);
            DataType.FLOAT16.setLong(s, 0, 65520);
            assertThat(DataType.FLOAT16.getDouble(s, 0)).isEqualTo(Double.POSITIVE_INFINITY);
            DataType.FLOAT8_E4M3.setLong(s, 0, -1000);
            assertThat(DataType.FLOAT8_E4M3.getDouble(s, 0)).isEqualTo(-448.0);
            DataType.FLOAT32.setLong(s, 0, (1L << 24) + 1);
            assertThat(DataType.FLOAT32.getDouble(s, 0)).isEqualTo(0x1p24);
            DataType.FLOAT64.setLong(s, 0, Long.MAX_VALUE);
            assertThat(DataType.FLOAT64.getDouble(s, 0)).isEqualTo(0x1p63);
            Random rnd = new Random(99);
            for (int i = 0; i < 20_000; i++) {
                long v = rnd.nextLong() >> rnd.nextInt(64);
                DataType.FLOAT16.setLong(s, 0, v);
                short expected = Float16.float16ToRawShortBits(Float16.valueOf(v));
                assertThat(s.get(ValueLayout.JAVA_SHORT_UNALIGNED, 0)).as("%s", v).isEqualTo(expected);
                DataType.BFLOAT16.setLong(s, 0, v);
                if (DataType.BFLOAT16.getDouble(s, 0) != roundLongToBits(v, 8)) {
                    fail("bf16 setLong(%s): got %s expected %s", v, DataType.BFLOAT16.getDouble(s, 0),
                            roundLongToBits(v, 8));
                }
            }
        }
    }

    @Test
    void floatGetLongTruncatesLikeACast() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(16);
            DataType.FLOAT32.setDouble(s, 0, -3.75);
            assertThat(DataType.FLOAT32.getLong(s, 0)).isEqualTo(-3);
            DataType.FLOAT64.setDouble(s, 0, 1e30);
            assertThat(DataType.FLOAT64.getLong(s, 0)).isEqualTo(Long.MAX_VALUE);
            DataType.BFLOAT16.setDouble(s, 0, Double.NaN);
            assertThat(DataType.BFLOAT16.getLong(s, 0)).isZero();
            DataType.FLOAT8_E5M2.setDouble(s, 0, 7.0);
            assertThat(DataType.FLOAT8_E5M2.getLong(s, 0)).isEqualTo(7);
        }
    }

    @ParameterizedTest
    @EnumSource(DataType.class)
    void everyTypeRoundTripsSmallIntegersOnHeapAndNativeSegments(DataType type) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment[] segments = {misaligned(arena, type, 40),
                    MemorySegment.ofArray(new byte[40 * type.sizeBytes() + 3]).asSlice(3),
                    MemorySegment.ofArray(new long[40])};
            for (MemorySegment s : segments) {
                for (int i = 0; i < 20; i++) {
                    double v = type.isUnsigned() ? i : (i % 17) - 8;   // |v| <= 8: exact even in e5m2
                    type.setDouble(s, i, v);
                    type.setLong(s, 20 + i, (long) v);
                }
                for (int i = 0; i < 20; i++) {
                    double v = type.isUnsigned() ? i : (i % 17) - 8;   // |v| <= 8: exact even in e5m2
                    assertThat(type.getDouble(s, i)).isEqualTo(v);
                    assertThat(type.getLong(s, 20 + i)).isEqualTo((long) v);
                }
            }
        }
    }

    /** {@code v} rounded to nearest even with {@code bits} significant bits, exactly (BigInteger). */
    private static double roundLongToBits(long v, int bits) {
        BigInteger x = BigInteger.valueOf(v).abs();
        int drop = x.bitLength() - bits;
        if (drop > 0) {
            BigInteger q = x.shiftRight(drop);
            BigInteger rem = x.subtract(q.shiftLeft(drop));
            BigInteger half = BigInteger.ONE.shiftLeft(drop - 1);
            int c = rem.compareTo(half);
            if (c > 0 || (c == 0 && q.testBit(0))) {
                q = q.add(BigInteger.ONE);
            }
            x = q.shiftLeft(drop);
        }
        double d = x.doubleValue();
        return v < 0 ? -d : d;
    }
}
