package io.jccl.cuda.internal;

import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.Result;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

/**
 * Reads and writes single host-memory elements of the GPU kernels' types (fp32, fp16, bf16) as doubles, for
 * filling inputs and checking outputs of GPU collectives (the benchmark and the GPU tests). fp16 uses the JDK's
 * IEEE binary16 conversions; bf16 rounds to nearest even, NaN stays NaN. Not for hot paths.
 *
 * <p>Thread: stateless. The GPU-side counterpart is Elem&lt;T&gt; in jccl_device.cuh.
 */
public final class HostElements {
    private HostElements() {
    }

    /** Element {@code index} of {@code seg} as a double. */
    public static double get(DataType type, MemorySegment seg, long index) {
        return switch (type) {
            case FLOAT32 -> seg.getAtIndex(JAVA_FLOAT_UNALIGNED, index);
            case FLOAT16 -> Float.float16ToFloat(seg.getAtIndex(JAVA_SHORT_UNALIGNED, index));
            case BFLOAT16 -> bf16ToFloat(seg.getAtIndex(JAVA_SHORT_UNALIGNED, index));
            default -> throw unsupported(type);
        };
    }

    /** Stores {@code value} (rounded to the type) at element {@code index} of {@code seg}. */
    public static void set(DataType type, MemorySegment seg, long index, double value) {
        switch (type) {
            case FLOAT32 -> seg.setAtIndex(JAVA_FLOAT_UNALIGNED, index, (float) value);
            case FLOAT16 -> seg.setAtIndex(JAVA_SHORT_UNALIGNED, index, Float.floatToFloat16((float) value));
            case BFLOAT16 -> seg.setAtIndex(JAVA_SHORT_UNALIGNED, index, floatToBf16((float) value));
            default -> throw unsupported(type);
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

    private static JcclException unsupported(DataType type) {
        return new JcclException(Result.INVALID_ARGUMENT, "GPU kernels handle float, half and bfloat16; not "
                + type.ncclName());
    }
}
