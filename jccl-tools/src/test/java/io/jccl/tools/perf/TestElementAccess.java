package io.jccl.tools.perf;

import io.jccl.DataType;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Element access for tests, independent of jccl-core's codec: every type but fp8, little-endian as the host.
 * fp16 through {@link Float#floatToFloat16}, bf16 as the upper half of a float rounded to nearest even.
 */
final class TestElementAccess implements ElementAccess {
    static final TestElementAccess INSTANCE = new TestElementAccess();

    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE_UNALIGNED;

    @Override
    public double getDouble(DataType type, MemorySegment seg, long i) {
        return switch (type) {
            case FLOAT16 -> Float.float16ToFloat(seg.getAtIndex(SHORT, i));
            case BFLOAT16 -> Float.intBitsToFloat((seg.getAtIndex(SHORT, i) & 0xffff) << 16);
            case FLOAT32 -> seg.getAtIndex(FLOAT, i);
            case FLOAT64 -> seg.getAtIndex(DOUBLE, i);
            case UINT64 -> {
                long v = getLong(type, seg, i);
                yield v >= 0 ? v : (v >>> 1) * 2.0 + (v & 1);
            }
            case FLOAT8_E4M3, FLOAT8_E5M2 -> throw new UnsupportedOperationException("fp8 in tests");
            default -> getLong(type, seg, i);
        };
    }

    @Override
    public void setDouble(DataType type, MemorySegment seg, long i, double v) {
        switch (type) {
            case FLOAT16 -> seg.setAtIndex(SHORT, i, Float.floatToFloat16((float) v));
            case BFLOAT16 -> {
                int bits = Float.floatToRawIntBits((float) v);
                int rounded = bits + 0x7fff + ((bits >>> 16) & 1);
                seg.setAtIndex(SHORT, i, (short) (rounded >>> 16));
            }
            case FLOAT32 -> seg.setAtIndex(FLOAT, i, (float) v);
            case FLOAT64 -> seg.setAtIndex(DOUBLE, i, v);
            case FLOAT8_E4M3, FLOAT8_E5M2 -> throw new UnsupportedOperationException("fp8 in tests");
            default -> setLong(type, seg, i, (long) v);
        }
    }

    @Override
    public long getLong(DataType type, MemorySegment seg, long i) {
        return switch (type) {
            case INT8 -> seg.get(ValueLayout.JAVA_BYTE, i);
            case UINT8 -> seg.get(ValueLayout.JAVA_BYTE, i) & 0xffL;
            case INT32 -> seg.getAtIndex(INT, i);
            case UINT32 -> seg.getAtIndex(INT, i) & 0xffff_ffffL;
            case INT64, UINT64 -> seg.getAtIndex(LONG, i);
            default -> (long) getDouble(type, seg, i);
        };
    }

    @Override
    public void setLong(DataType type, MemorySegment seg, long i, long v) {
        switch (type) {
            case INT8, UINT8 -> seg.set(ValueLayout.JAVA_BYTE, i, (byte) v);
            case INT32, UINT32 -> seg.setAtIndex(INT, i, (int) v);
            case INT64, UINT64 -> seg.setAtIndex(LONG, i, v);
            default -> setDouble(type, seg, i, v);
        }
    }
}
