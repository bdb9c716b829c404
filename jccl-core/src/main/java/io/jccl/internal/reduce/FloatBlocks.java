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
    private static final VectorSpecies<Float> S = Simd.F32;
    private static final int LANES = S.length();

    private FloatBlocks() {
    }

    /** x[0..n) = x ⊕ y; with {@code vector}, n must be a multiple of {@code Simd.F32.length()}. */
    static void binary(Kernel k, float[] x, float[] y, int n, float s, float q, boolean vector) {
        if (vector) {
            switch (k) {
                case SUM -> sumV(x, y, n);
                case PROD -> prodV(x, y, n);
                case MIN -> minV(x, y, n);
                case MAX -> maxV(x, y, n);
                case MUL_ADD -> mulAddV(x, y, n, s);
                case SUM_DIV -> sumDivV(x, y, n, q);
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
                divV(x, n, q);
            } else {
                mulV(x, n, s);
            }
        } else if (divide) {
            divS(x, n, q);
        } else {
            mulS(x, n, s);
        }
    }

    private static void sumV(float[] x, float[] y, int n) {
        for (int i = 0; i < n; i += LANES) {
            FloatVector.fromArray(S, x, i).add(FloatVector.fromArray(S, y, i)).intoArray(x, i);
        }
    }

    private static void prodV(float[] x, float[] y, int n) {
        for (int i = 0; i < n; i += LANES) {
            FloatVector.fromArray(S, x, i).mul(FloatVector.fromArray(S, y, i)).intoArray(x, i);
        }
    }

    private static void minV(float[] x, float[] y, int n) {
        for (int i = 0; i < n; i += LANES) {
            FloatVector.fromArray(S, x, i).min(FloatVector.fromArray(S, y, i)).intoArray(x, i);
        }
    }

    private static void maxV(float[] x, float[] y, int n) {
        for (int i = 0; i < n; i += LANES) {
            FloatVector.fromArray(S, x, i).max(FloatVector.fromArray(S, y, i)).intoArray(x, i);
        }
    }

    private static void mulAddV(float[] x, float[] y, int n, float s) {
        for (int i = 0; i < n; i += LANES) {
            FloatVector.fromArray(S, x, i).add(FloatVector.fromArray(S, y, i).mul(s)).intoArray(x, i);
        }
    }

    private static void sumDivV(float[] x, float[] y, int n, float q) {
        for (int i = 0; i < n; i += LANES) {
            FloatVector.fromArray(S, x, i).add(FloatVector.fromArray(S, y, i)).div(q).intoArray(x, i);
        }
    }

    private static void mulV(float[] x, int n, float s) {
        for (int i = 0; i < n; i += LANES) {
            FloatVector.fromArray(S, x, i).mul(s).intoArray(x, i);
        }
    }

    private static void divV(float[] x, int n, float q) {
        for (int i = 0; i < n; i += LANES) {
            FloatVector.fromArray(S, x, i).div(q).intoArray(x, i);
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
}
