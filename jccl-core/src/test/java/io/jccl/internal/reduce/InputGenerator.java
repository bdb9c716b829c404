package io.jccl.internal.reduce;

import io.jccl.DataType;

import java.util.Random;

/**
 * Random raw elements for a type: mostly moderate values of both signs, plus extremes, zeros of both signs,
 * infinities, NaNs (quiet and signalling), subnormals and arbitrary bit patterns (test helper).
 */
final class InputGenerator {
    private final DataType type;
    private final Random rnd;

    InputGenerator(DataType type, Random rnd) {
        this.type = type;
        this.rnd = rnd;
    }

    long[] next(int count) {
        long[] out = new long[count];
        for (int i = 0; i < count; i++) {
            out[i] = next();
        }
        return out;
    }

    private long next() {
        int pick = rnd.nextInt(100);
        return switch (type) {
            case FLOAT8_E4M3, FLOAT8_E5M2 -> rnd.nextInt(256);
            case INT8, UINT8, INT32, UINT32, INT64, UINT64 -> integer(pick);
            case FLOAT32 -> Float.floatToRawIntBits(pick < 90 ? (float) moderate(pick) : special(pick)) & 0xFFFF_FFFFL;
            case FLOAT64 -> pick < 90 ? Double.doubleToRawLongBits(moderate(pick)) : doubleSpecial(pick);
            case FLOAT16 -> (pick < 90 ? Float.floatToFloat16((float) moderate(pick) / 64) : half(pick)) & 0xFFFFL;
            case BFLOAT16 -> (pick < 90 ? Float.floatToRawIntBits((float) moderate(pick)) >>> 16 : half(pick))
                    & 0xFFFFL;
        };
    }

    private double moderate(int pick) {
        double v = rnd.nextGaussian() * Math.scalb(1.0, rnd.nextInt(24) - 12);
        return pick < 20 ? Math.rint(v * 8) / 8 : v;              // some short mantissas: exact sums and ties
    }

    private float special(int pick) {
        return switch (pick % 10) {
            case 0 -> Float.NaN;
            case 1 -> Float.intBitsToFloat(0xFF80_0001);              // negative signalling NaN
            case 2 -> Float.POSITIVE_INFINITY;
            case 3 -> Float.NEGATIVE_INFINITY;
            case 4 -> -0f;
            case 5 -> 0f;
            case 6 -> Float.MAX_VALUE;
            case 7 -> -Float.MIN_VALUE;
            case 8 -> Float.MIN_NORMAL;
            default -> Float.intBitsToFloat(rnd.nextInt());
        };
    }

    private long doubleSpecial(int pick) {
        return switch (pick % 10) {
            case 0 -> Double.doubleToRawLongBits(Double.NaN);
            case 1 -> 0xFFF0_0000_0000_0001L;
            case 2 -> Double.doubleToRawLongBits(Double.POSITIVE_INFINITY);
            case 3 -> Double.doubleToRawLongBits(Double.NEGATIVE_INFINITY);
            case 4 -> Double.doubleToRawLongBits(-0.0);
            case 5 -> 0;
            case 6 -> Double.doubleToRawLongBits(Double.MAX_VALUE);
            case 7 -> Double.doubleToRawLongBits(-Double.MIN_VALUE);
            case 8 -> Double.doubleToRawLongBits(Double.MIN_NORMAL);
            default -> rnd.nextLong();
        };
    }

    /** fp16/bf16 specials: both have 16 bits with the sign on top; exponent fields differ. */
    private long half(int pick) {
        boolean bf = type == DataType.BFLOAT16;
        return switch (pick % 10) {
            case 0 -> bf ? 0x7FC0 : 0x7E00;                               // quiet NaN
            case 1 -> bf ? 0xFF81 : 0xFC01;                               // negative signalling NaN
            case 2 -> bf ? 0x7F80 : 0x7C00;                               // +inf
            case 3 -> bf ? 0xFF80 : 0xFC00;                               // -inf
            case 4 -> 0x8000;                                             // -0
            case 5 -> 0x0001;                                             // smallest subnormal
            case 6 -> bf ? 0x7F7F : 0x7BFF;                               // largest finite
            case 7 -> bf ? 0xFF7F : 0xFBFF;
            default -> rnd.nextInt(65536);
        };
    }

    private long integer(int pick) {
        int bits = type.sizeBytes() * 8;
        long mask = bits == 64 ? -1L : (1L << bits) - 1;
        long v = switch (pick % 8) {
            case 0 -> 0;
            case 1 -> -1;
            case 2 -> 1L << (bits - 1);                                   // signed minimum / unsigned 2^(bits-1)
            case 3 -> (1L << (bits - 1)) - 1;
            case 4, 5 -> rnd.nextInt(201) - 100;
            default -> rnd.nextLong();
        };
        return v & mask;
    }
}
