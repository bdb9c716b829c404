package io.jccl.cuda;

import io.jccl.DataType;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

/**
 * Reads and writes single host-memory elements of every {@link DataType} exactly as the GPU kernels store them, for
 * filling inputs and checking outputs of GPU collectives (tests and the perf tool). fp16 uses the JDK's IEEE
 * binary16 conversions; bf16 and fp8 round to nearest even; fp8 saturates to its largest finite value as
 * cuda_fp8.h's {@code __NV_SATFINITE} conversions do (e4m3: ±448, no infinities; e5m2: ±57344); integers wrap to
 * their width. Not for hot paths.
 *
 * <p>Thread: stateless. The GPU-side counterpart is {@code Elem<T>} in jccl_types.cuh.
 */
public final class HostElements {
    private static final float[] E4M3 = table(4, 3, 7, false);
    private static final float[] E5M2 = table(5, 2, 15, true);

    private HostElements() {
    }

    /** Element {@code index} of {@code seg} as a double (unsigned integers read as unsigned). */
    public static double get(DataType type, MemorySegment seg, long index) {
        return switch (type) {
            case FLOAT32 -> seg.getAtIndex(JAVA_FLOAT_UNALIGNED, index);
            case FLOAT64 -> seg.getAtIndex(JAVA_DOUBLE_UNALIGNED, index);
            case FLOAT16 -> Float.float16ToFloat(seg.getAtIndex(JAVA_SHORT_UNALIGNED, index));
            case BFLOAT16 -> bf16ToFloat(seg.getAtIndex(JAVA_SHORT_UNALIGNED, index));
            case FLOAT8_E4M3 -> E4M3[seg.get(JAVA_BYTE, index) & 0xFF];
            case FLOAT8_E5M2 -> E5M2[seg.get(JAVA_BYTE, index) & 0xFF];
            case UINT64 -> {
                long v = seg.getAtIndex(JAVA_LONG_UNALIGNED, index);
                yield v >= 0 ? v : (double) (v >>> 1) * 2.0 + (v & 1);
            }
            default -> getLong(type, seg, index);
        };
    }

    /** Stores {@code value} at element {@code index}: floats round to nearest even, integers truncate and wrap. */
    public static void set(DataType type, MemorySegment seg, long index, double value) {
        switch (type) {
            case FLOAT32 -> seg.setAtIndex(JAVA_FLOAT_UNALIGNED, index, (float) value);
            case FLOAT64 -> seg.setAtIndex(JAVA_DOUBLE_UNALIGNED, index, value);
            case FLOAT16 -> seg.setAtIndex(JAVA_SHORT_UNALIGNED, index, Float.floatToFloat16((float) value));
            case BFLOAT16 -> seg.setAtIndex(JAVA_SHORT_UNALIGNED, index, floatToBf16((float) value));
            case FLOAT8_E4M3 -> seg.set(JAVA_BYTE, index, (byte) encodeFp8(value, 3, 7, false));
            case FLOAT8_E5M2 -> seg.set(JAVA_BYTE, index, (byte) encodeFp8(value, 2, 15, true));
            default -> setLong(type, seg, index, (long) value);
        }
    }

    /** The element as a long: exact for every integer type (uint64 as its bits); floating-point values truncate. */
    public static long getLong(DataType type, MemorySegment seg, long index) {
        return switch (type) {
            case INT8 -> seg.get(JAVA_BYTE, index);
            case UINT8 -> seg.get(JAVA_BYTE, index) & 0xFFL;
            case INT32 -> seg.getAtIndex(JAVA_INT_UNALIGNED, index);
            case UINT32 -> seg.getAtIndex(JAVA_INT_UNALIGNED, index) & 0xFFFF_FFFFL;
            case INT64, UINT64 -> seg.getAtIndex(JAVA_LONG_UNALIGNED, index);
            default -> (long) get(type, seg, index);
        };
    }

    /** Stores an integer, wrapping to the type's width; floating-point types convert. */
    public static void setLong(DataType type, MemorySegment seg, long index, long value) {
        switch (type) {
            case INT8, UINT8 -> seg.set(JAVA_BYTE, index, (byte) value);
            case INT32, UINT32 -> seg.setAtIndex(JAVA_INT_UNALIGNED, index, (int) value);
            case INT64, UINT64 -> seg.setAtIndex(JAVA_LONG_UNALIGNED, index, value);
            default -> set(type, seg, index, value);
        }
    }

    /** The float a bf16 bit pattern stands for. */
    public static float bf16ToFloat(short bits) {
        return Float.intBitsToFloat((bits & 0xFFFF) << 16);
    }

    /** The bf16 bit pattern nearest to {@code f} (ties to even). */
    public static short floatToBf16(float f) {
        if (Float.isNaN(f)) {
            return (short) 0x7FC0;
        }
        int bits = Float.floatToRawIntBits(f);
        bits += 0x7FFF + ((bits >>> 16) & 1);
        return (short) (bits >>> 16);
    }

    /** The value of an fp8 e4m3 byte. */
    public static float e4m3ToFloat(byte b) {
        return E4M3[b & 0xFF];
    }

    /** The value of an fp8 e5m2 byte. */
    public static float e5m2ToFloat(byte b) {
        return E5M2[b & 0xFF];
    }

    /** The e4m3 byte nearest to {@code v} (ties to even, saturating to ±448, NaN to 0x7F). */
    public static byte toE4m3(double v) {
        return (byte) encodeFp8(v, 3, 7, false);
    }

    /** The e5m2 byte nearest to {@code v} (ties to even, saturating to ±57344, NaN to 0x7F). */
    public static byte toE5m2(double v) {
        return (byte) encodeFp8(v, 2, 15, true);
    }

    private static float[] table(int eBits, int mBits, int bias, boolean ieee) {
        float[] t = new float[256];
        int eMax = (1 << eBits) - 1;
        for (int c = 0; c < 256; c++) {
            int s = c >>> 7;
            int e = (c >>> mBits) & eMax;
            int m = c & ((1 << mBits) - 1);
            double v;
            if (ieee && e == eMax) {
                v = m == 0 ? Double.POSITIVE_INFINITY : Double.NaN;
            } else if (!ieee && e == eMax && m == (1 << mBits) - 1) {
                v = Double.NaN;
            } else if (e == 0) {
                v = m * Math.scalb(1.0, 1 - bias - mBits);
            } else {
                v = (1.0 + m / (double) (1 << mBits)) * Math.scalb(1.0, e - bias);
            }
            t[c] = (float) (s == 1 ? -v : v);
        }
        return t;
    }

    private static int encodeFp8(double v, int mBits, int bias, boolean ieee) {
        if (Double.isNaN(v)) {
            return 0x7F;
        }
        int sign = (v < 0 || (v == 0 && 1 / v < 0)) ? 0x80 : 0;
        double a = Math.abs(v);
        double max = ieee ? 57344.0 : 448.0;
        int maxCode = ieee ? 0x7B : 0x7E;
        if (a >= max) {
            return sign | maxCode;
        }
        int minExp = 1 - bias;
        int e = a == 0 ? minExp : Math.max(Math.getExponent(a), minExp);
        double quantum = Math.scalb(1.0, e - mBits);
        double r = Math.rint(a / quantum) * quantum;
        if (r >= max) {
            return sign | maxCode;
        }
        if (r < Math.scalb(1.0, minExp)) {
            return sign | (int) (r / Math.scalb(1.0, minExp - mBits));
        }
        int re = Math.getExponent(r);
        int m = (int) (r / Math.scalb(1.0, re - mBits)) - (1 << mBits);
        return sign | ((re + bias) << mBits) | m;
    }
}
