package io.jccl.internal.reduce;

import io.jccl.internal.reduce.ReducerBase.Kernel;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The fp32 arithmetic of the narrow-float kernels, on blocks already widened into float arrays: x = x ⊕ y (or
 * x = scalar·x, x = x / nRanks), with a vector loop for lengths that are multiples of the lane count and a scalar
 * loop for the rest. Each loop is its own small method so it is compiled (and profiled) on its own. No fused
 * multiply-add: vector and scalar results are the same bits. Owned by: whichever thread runs the primitive
 * (stateless). Mirrors: the fp32 accumulation NCCL's half-precision functors do in registers.
 */
final class FloatBlocks {

    private FloatBlocks() {
    }

    /** x[0..n) = x ⊕ y; with {@code vector}, n must be a multiple of {@code Simd.F32.length()}. */
    static void binary(Kernel k, float[] x, float[] y, int n, float s, float q, boolean vector) {
        if (vector) {
            switch (k) {
                case SUM -> V.sumV(x, y, n);
                case PROD -> V.prodV(x, y, n);
                case MIN -> V.minV(x, y, n);
                case MAX -> V.maxV(x, y, n);
                case MUL_ADD -> V.mulAddV(x, y, n, s);
                case SUM_DIV -> V.sumDivV(x, y, n, q);
            }
        } else {
            switch (k) {
                case SUM -> sumS(x, y, n);
                case PROD -> prodS(x, y, n);
                case MIN -> minS(x, y, n);
                case MAX -> maxS(x, y, n);
                case MUL_ADD -> mulAddS(x, y, n, s);
                case SUM_DIV -> sumDivS(x, y, n, q);
            }
        }
    }

    /** x[0..n) = x / q ({@code divide}) or s·x. */
    static void unary(boolean divide, float[] x, int n, float s, float q, boolean vector) {
        if (vector) {
            if (divide) {
                V.divV(x, n, q);
            } else {
                V.mulV(x, n, s);
            }
        } else if (divide) {
            divS(x, n, q);
        } else {
            mulS(x, n, s);
        }
    }

    private static void sumS(float[] x, float[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = x[i] + y[i];
        }
    }

    private static void prodS(float[] x, float[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = x[i] * y[i];
        }
    }

    private static void minS(float[] x, float[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = Math.min(x[i], y[i]);
        }
    }

    private static void maxS(float[] x, float[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = Math.max(x[i], y[i]);
        }
    }

    private static void mulAddS(float[] x, float[] y, int n, float s) {
        for (int i = 0; i < n; i++) {
            float product = s * y[i];
            x[i] = x[i] + product;
        }
    }

    private static void sumDivS(float[] x, float[] y, int n, float q) {
        for (int i = 0; i < n; i++) {
            float sum = x[i] + y[i];
            x[i] = sum / q;
        }
    }

    private static void mulS(float[] x, int n, float s) {
        for (int i = 0; i < n; i++) {
            x[i] = s * x[i];
        }
    }

    private static void divS(float[] x, int n, float q) {
        for (int i = 0; i < n; i++) {
            x[i] = x[i] / q;
        }
    }

    /**
     * The vector kernels, apart so that they are loaded (and verified) only when the Vector API is present:
     * without it this class is never touched.
     */
    private static final class V {
        static final VectorSpecies<Float> S = Simd.F32;
        static final int LANES = S.length();

        private V() {
        }

        static void sumV(float[] x, float[] y, int n) {
            for (int i = 0; i < n; i += LANES) {
                FloatVector.fromArray(S, x, i).add(FloatVector.fromArray(S, y, i)).intoArray(x, i);
            }
        }

        static void prodV(float[] x, float[] y, int n) {
            for (int i = 0; i < n; i += LANES) {
                FloatVector.fromArray(S, x, i).mul(FloatVector.fromArray(S, y, i)).intoArray(x, i);
            }
        }

        static void minV(float[] x, float[] y, int n) {
            for (int i = 0; i < n; i += LANES) {
                FloatVector.fromArray(S, x, i).min(FloatVector.fromArray(S, y, i)).intoArray(x, i);
            }
        }

        static void maxV(float[] x, float[] y, int n) {
            for (int i = 0; i < n; i += LANES) {
                FloatVector.fromArray(S, x, i).max(FloatVector.fromArray(S, y, i)).intoArray(x, i);
            }
        }

        static void mulAddV(float[] x, float[] y, int n, float s) {
            for (int i = 0; i < n; i += LANES) {
                FloatVector.fromArray(S, x, i).add(FloatVector.fromArray(S, y, i).mul(s)).intoArray(x, i);
            }
        }

        static void sumDivV(float[] x, float[] y, int n, float q) {
            for (int i = 0; i < n; i += LANES) {
                FloatVector.fromArray(S, x, i).add(FloatVector.fromArray(S, y, i)).div(q).intoArray(x, i);
            }
        }

        static void mulV(float[] x, int n, float s) {
            for (int i = 0; i < n; i += LANES) {
                FloatVector.fromArray(S, x, i).mul(s).intoArray(x, i);
            }
        }

        static void divV(float[] x, int n, float q) {
            for (int i = 0; i < n; i += LANES) {
                FloatVector.fromArray(S, x, i).div(q).intoArray(x, i);
            }
        }
    }
}
