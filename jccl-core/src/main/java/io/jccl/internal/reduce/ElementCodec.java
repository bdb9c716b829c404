package io.jccl.internal.reduce;

import io.jccl.DataType;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Reads and writes single elements of any {@link DataType} as {@code double} (integers exactly up to 2^53;
 * 64-bit integers also through {@link #getLong}/{@link #setLong}). Used by verification code and tools, never on a
 * hot path. Owned by: any thread (stateless).
 *
 * <p>Indices are element indices (not byte offsets); data is in native byte order and may be unaligned.
 * <ul>
 *   <li>Integers: {@link #get} reads unsigned types as unsigned. {@link #set} truncates toward zero and wraps modulo
 *       2^bits (so -1.0 stores 255 in a uint8); NaN and ±infinity store 0. {@link #setLong} keeps the low bits.</li>
 *   <li>Floats: {@link #set} rounds the double once, to nearest even, straight to the element type (no double
 *       rounding through fp32); fp8 saturates to ± its largest finite value, as {@link Fp8} describes.
 *       {@link #setLong} rounds the (signed) long once in the same way. {@link #getLong} truncates toward zero like a
 *       Java cast (NaN gives 0, huge values saturate).</li>
 * </ul>
 */
public final class ElementCodec {
    private static final ValueLayout.OfByte I8 = ValueLayout.JAVA_BYTE;
    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE_UNALIGNED;

    private ElementCodec() {
    }

    /** The element at {@code index} (element index, not bytes) as a double; unsigned types are read as unsigned. */
    public static double get(DataType type, MemorySegment seg, long index) {
        long off = index * type.sizeBytes();
        return switch (type) {
            case INT8 -> seg.get(I8, off);
            case UINT8 -> seg.get(I8, off) & 0xFF;
            case INT32 -> seg.get(I32, off);
            case UINT32 -> Integer.toUnsignedLong(seg.get(I32, off));
            case INT64 -> (double) seg.get(I64, off);
            case UINT64 -> unsignedToDouble(seg.get(I64, off));
            case FLOAT16 -> Float.float16ToFloat(seg.get(I16, off));
            case FLOAT32 -> seg.get(F32, off);
            case FLOAT64 -> seg.get(F64, off);
            case BFLOAT16 -> Bf16.widen(seg.get(I16, off));
            case FLOAT8_E4M3 -> Fp8.E4M3.widen(seg.get(I8, off));
            case FLOAT8_E5M2 -> Fp8.E5M2.widen(seg.get(I8, off));
        };
    }

    /**
     * Stores {@code v} at {@code index}, converting as a cast would (integers truncate, floats round to nearest even).
     */
    public static void set(DataType type, MemorySegment seg, long index, double v) {
        long off = index * type.sizeBytes();
        switch (type) {
            case INT8, UINT8, INT32, UINT32, INT64, UINT64 -> storeInteger(type, seg, off, truncateWrapping(v));
            case FLOAT16 -> seg.set(I16, off, Float.floatToFloat16(roundToOddFloat(v)));
            case FLOAT32 -> seg.set(F32, off, (float) v);
            case FLOAT64 -> seg.set(F64, off, v);
            case BFLOAT16 -> seg.set(I16, off, Bf16.narrow(roundToOddFloat(v)));
            case FLOAT8_E4M3 -> seg.set(I8, off, Fp8.E4M3.narrow(roundToOddFloat(v)));
            case FLOAT8_E5M2 -> seg.set(I8, off, Fp8.E5M2.narrow(roundToOddFloat(v)));
        }
    }

    /** The element as a long (integer types exact, including uint64 as its two's-complement bits; floats truncated). */
    public static long getLong(DataType type, MemorySegment seg, long index) {
        long off = index * type.sizeBytes();
        return switch (type) {
            case INT8 -> seg.get(I8, off);
            case UINT8 -> seg.get(I8, off) & 0xFF;
            case INT32 -> seg.get(I32, off);
            case UINT32 -> Integer.toUnsignedLong(seg.get(I32, off));
            case INT64, UINT64 -> seg.get(I64, off);
            default -> (long) get(type, seg, index);
        };
    }

    /** Stores a long, exactly for integer types (wrapping to the type's width), converted for floats. */
    public static void setLong(DataType type, MemorySegment seg, long index, long v) {
        long off = index * type.sizeBytes();
        switch (type) {
            case INT8, UINT8, INT32, UINT32, INT64, UINT64 -> storeInteger(type, seg, off, v);
            case FLOAT16 -> seg.set(I16, off, Float.floatToFloat16(roundToOddFloat(v)));
            case FLOAT32 -> seg.set(F32, off, (float) v);
            case FLOAT64 -> seg.set(F64, off, (double) v);
            case BFLOAT16 -> seg.set(I16, off, Bf16.narrow(roundToOddFloat(v)));
            case FLOAT8_E4M3 -> seg.set(I8, off, Fp8.E4M3.narrow(roundToOddFloat(v)));
            case FLOAT8_E5M2 -> seg.set(I8, off, Fp8.E5M2.narrow(roundToOddFloat(v)));
        }
    }

    private static void storeInteger(DataType type, MemorySegment seg, long off, long v) {
        switch (type.sizeBytes()) {
            case 1 -> seg.set(I8, off, (byte) v);
            case 4 -> seg.set(I32, off, (int) v);
            default -> seg.set(I64, off, v);
        }
    }

    /** {@code v} as an unsigned 64-bit integer, rounded to nearest even. */
    static double unsignedToDouble(long v) {
        if (v >= 0) {
            return v;
        }
        // Halve keeping the lost bit sticky, convert (one rounding), double back (exact).
        return (double) ((v >>> 1) | (v & 1)) * 2.0;
    }

    /** {@code v} truncated toward zero, modulo 2^64; NaN and infinities give 0. */
    static long truncateWrapping(double v) {
        if (!Double.isFinite(v)) {
            return 0;
        }
        if (Math.abs(v) < 0x1p63) {
            return (long) v;
        }
        // |v| >= 2^63 is an integer: mantissa * 2^(exponent - 52), of which only the low 64 bits matter.
        int scale = Math.getExponent(v) - 52;
        long mantissa = (Double.doubleToRawLongBits(v) & 0x000F_FFFF_FFFF_FFFFL) | 0x0010_0000_0000_0000L;
        long low = scale >= 64 ? 0 : mantissa << scale;
        return v < 0 ? -low : low;
    }

    /**
     * {@code v} rounded to fp32 with round-to-odd: an inexact result gets its last mantissa bit set. Rounding that
     * again to any format with at most 22 mantissa bits (fp16, bf16, fp8) gives the correctly rounded value of
     * {@code v}, which rounding through a plain {@code (float) v} does not (double rounding).
     */
    static float roundToOddFloat(double v) {
        float f = (float) v;
        if (Double.isNaN(v) || (double) f == v) {
            return f;
        }
        return makeOdd(f, Math.abs(v) > Math.abs((double) f));
    }

    /** {@code v} rounded to fp32 with round-to-odd (see {@link #roundToOddFloat(double)}). */
    static float roundToOddFloat(long v) {
        float f = (float) v;
        // (long) f saturates at 2^63 - 1, so 2^63 (only reachable by rounding up) is inexact by definition.
        if (f != 0x1p63f && (long) f == v) {
            return f;
        }
        boolean fBelowV = f != 0x1p63f && (long) f < v;
        return makeOdd(f, f >= 0 ? fBelowV : !fBelowV);
    }

    /** The odd neighbour of an inexact {@code f}: itself when odd, else one ulp toward the exact value. */
    private static float makeOdd(float f, boolean exactHasLargerMagnitude) {
        int bits = Float.floatToRawIntBits(f);
        if ((bits & 1) != 0) {
            return f;
        }
        return Float.intBitsToFloat(exactHasLargerMagnitude ? bits + 1 : bits - 1);
    }
}
