package io.jccl.internal.reduce;

import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

import java.nio.ByteOrder;

/**
 * The vector shapes the reduction kernels use, chosen once per JVM from the platform's preferred shape, and the
 * switch that forces the scalar loops ({@code -Djccl.reduce.scalar=true}, read once when the reduce package is
 * first used). Owned by: any thread (immutable constants). Mirrors: the vector width choices of NCCL's
 * {@code reduceCopy} (its {@code BytePack<16>} loads), moved to the CPU.
 *
 * <p>bf16 is widened into fp32 lanes, so it is loaded as shorts with as many lanes as {@link #F32} ({@link #HALF});
 * fp8 likewise as bytes ({@link #QUARTER}). Either is {@code null} when the platform has no vector shape of that size
 * (e.g. 128-bit vectors leave no 32-bit byte vector), and that type then converts with scalar loops. (fp16 converts
 * with the JDK's scalar conversions, which C2 vectorizes itself: see {@link Fp16Reducer}.)
 */
final class Simd {
    /** The system property that forces every kernel onto its scalar loop. */
    static final String SCALAR_PROPERTY = "jccl.reduce.scalar";

    static final ByteOrder ORDER = ByteOrder.nativeOrder();

    static final VectorSpecies<Float> F32 = FloatVector.SPECIES_PREFERRED;
    static final VectorSpecies<Integer> I32 = IntVector.SPECIES_PREFERRED;
    static final VectorSpecies<Double> F64 = DoubleVector.SPECIES_PREFERRED;
    static final VectorSpecies<Long> I64 = LongVector.SPECIES_PREFERRED;
    static final VectorSpecies<Byte> I8 = ByteVector.SPECIES_PREFERRED;

    /** Shorts with {@code F32.length()} lanes (half of F32's bits), or null. */
    static final VectorSpecies<Short> HALF = species(short.class, F32.vectorBitSize() / 2);
    /** Bytes with {@code F32.length()} lanes (a quarter of F32's bits), or null. */
    static final VectorSpecies<Byte> QUARTER = species(byte.class, F32.vectorBitSize() / 4);

    /** True unless {@value #SCALAR_PROPERTY} is set or the platform has no vectors wider than one lane. */
    static final boolean VECTOR_BY_DEFAULT = !io.jccl.internal.param.InternalProperties.REDUCE_SCALAR.get()
            && F32.length() > 1
            && F32.vectorShape() == I32.vectorShape();

    private Simd() {
    }

    private static <E> VectorSpecies<E> species(Class<E> lane, int bits) {
        if (bits < 64) {
            return null;
        }
        try {
            return VectorSpecies.of(lane, VectorShape.forBitSize(bits));
        } catch (IllegalArgumentException noSuchShape) {
            return null;
        }
    }

    /** A one-line description of the shapes in use (for logs and the benchmark). */
    static String describe() {
        return "f32 " + F32.length() + " lanes (" + F32.vectorBitSize() + " bit), f64 " + F64.length()
                + ", i8 " + I8.length() + ", bf16 " + (HALF == null ? "scalar" : HALF.length() + " lanes")
                + ", fp8 " + (QUARTER == null ? "scalar" : QUARTER.length() + " lanes")
                + (VECTOR_BY_DEFAULT ? "" : " [scalar forced]");
    }
}
