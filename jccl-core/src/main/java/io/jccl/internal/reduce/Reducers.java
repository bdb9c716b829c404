package io.jccl.internal.reduce;

import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.Result;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Interim scalar reducers for fp32/fp64/int32/int64 (replaced by the reduce branch's full kernel set). */
final class Reducers {
    private Reducers() {
    }

    static Reducer of(DataType type, RedOp op, int nRanks) {
        return switch (type) {
            case FLOAT32, FLOAT64, INT32, INT64 -> new Simple(type, op, nRanks);
            default -> throw new JcclException(Result.INVALID_ARGUMENT, "reduction on " + type + " not available yet");
        };
    }

    private static final class Simple implements Reducer {
        private final DataType type;
        private final RedOp op;
        private final int n;

        Simple(DataType type, RedOp op, int n) {
            this.type = type;
            this.op = op;
            this.n = n;
        }

        @Override
        public DataType type() {
            return type;
        }

        @Override
        public RedOp op() {
            return op;
        }

        private double get(MemorySegment s, long off) {
            return switch (type) {
                case FLOAT32 -> s.get(ValueLayout.JAVA_FLOAT_UNALIGNED, off);
                case FLOAT64 -> s.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, off);
                case INT32 -> s.get(ValueLayout.JAVA_INT_UNALIGNED, off);
                default -> s.get(ValueLayout.JAVA_LONG_UNALIGNED, off);
            };
        }

        private void set(MemorySegment s, long off, double v) {
            switch (type) {
                case FLOAT32 -> s.set(ValueLayout.JAVA_FLOAT_UNALIGNED, off, (float) v);
                case FLOAT64 -> s.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, off, v);
                case INT32 -> s.set(ValueLayout.JAVA_INT_UNALIGNED, off, (int) (long) v);
                default -> s.set(ValueLayout.JAVA_LONG_UNALIGNED, off, (long) v);
            }
        }

        private double pre(double x) {
            return op.kind() == RedOp.Kind.PRE_MUL_SUM ? x * op.scalar() : x;
        }

        private double post(double x) {
            if (op.kind() != RedOp.Kind.AVG) {
                return x;
            }
            return type.isFloatingPoint() ? x / n : (double) ((long) x / n);
        }

        private double apply(double a, double b) {
            return switch (op.kind()) {
                case SUM, AVG, PRE_MUL_SUM -> a + b;
                case PROD -> a * b;
                case MAX -> Math.max(a, b);
                case MIN -> Math.min(a, b);
            };
        }

        @Override
        public void combine(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dstOff, long count) {
            int e = type.sizeBytes();
            for (long i = 0; i < count; i++) {
                set(dst, dstOff + i * e, apply(get(a, aOff + i * e), get(b, bOff + i * e)));
            }
        }

        @Override
        public void accumulate(MemorySegment p, long pOff, MemorySegment in, long inOff, MemorySegment dst, long dstOff,
                               long count, boolean last) {
            int e = type.sizeBytes();
            for (long i = 0; i < count; i++) {
                double v = apply(get(p, pOff + i * e), pre(get(in, inOff + i * e)));
                set(dst, dstOff + i * e, last ? post(v) : v);
            }
        }

        @Override
        public void prepare(MemorySegment in, long inOff, MemorySegment dst, long dstOff, long count, boolean last) {
            int e = type.sizeBytes();
            for (long i = 0; i < count; i++) {
                double v = pre(get(in, inOff + i * e));
                set(dst, dstOff + i * e, last ? post(v) : v);
            }
        }

        @Override
        public void finish(MemorySegment p, long pOff, MemorySegment dst, long dstOff, long count) {
            int e = type.sizeBytes();
            for (long i = 0; i < count; i++) {
                set(dst, dstOff + i * e, post(get(p, pOff + i * e)));
            }
        }

        @Override
        public boolean hasPreOp() {
            return op.kind() == RedOp.Kind.PRE_MUL_SUM;
        }

        @Override
        public boolean hasPostOp() {
            return op.kind() == RedOp.Kind.AVG;
        }
    }
}
