package io.jccl.internal.reduce;

import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;
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
 *
 * <p>The Vector API is optional. Without {@code jdk.incubator.vector} in the module graph (a plain {@code java}
 * without {@code --add-modules jdk.incubator.vector}) every species here is null, {@link #VECTOR_BY_DEFAULT} is
 * false and one INFO line says so; the vector kernels sit in nested classes of their reducers that are then never
 * loaded, so nothing touches a class of the module.
 */
final class Simd {
    /** The system property that forces every kernel onto its scalar loop. */
    static final String SCALAR_PROPERTY = "jccl.reduce.scalar";
    /** The Vector API's module. */
    static final String VECTOR_MODULE = "jdk.incubator.vector";

    static final ByteOrder ORDER = ByteOrder.nativeOrder();

    /** Whether {@value #VECTOR_MODULE} is in the module graph (else every species below is null). */
    static final boolean PRESENT = ModuleLayer.boot().findModule(VECTOR_MODULE).isPresent()
            || Simd.class.getModule().getLayer() != null
            && Simd.class.getModule().getLayer().findModule(VECTOR_MODULE).isPresent();

    static final VectorSpecies<Float> F32 = PRESENT ? Shapes.F32 : null;
    static final VectorSpecies<Integer> I32 = PRESENT ? Shapes.I32 : null;
    static final VectorSpecies<Double> F64 = PRESENT ? Shapes.F64 : null;
    static final VectorSpecies<Long> I64 = PRESENT ? Shapes.I64 : null;
    static final VectorSpecies<Byte> I8 = PRESENT ? Shapes.I8 : null;

    /** Shorts with {@code F32.length()} lanes (half of F32's bits), or null. */
    static final VectorSpecies<Short> HALF = PRESENT ? Shapes.HALF : null;
    /** Bytes with {@code F32.length()} lanes (a quarter of F32's bits), or null. */
    static final VectorSpecies<Byte> QUARTER = PRESENT ? Shapes.QUARTER : null;

    /**
     * True unless {@value #SCALAR_PROPERTY} is set, the Vector API is absent or the platform has no vectors wider
     * than one lane.
     */
    static final boolean VECTOR_BY_DEFAULT = !io.jccl.internal.param.InternalProperties.REDUCE_SCALAR.get()
            && PRESENT && Shapes.usable();

    static {
        if (!PRESENT) {
            Log.info(Subsys.INIT, -1, "reductions run scalar loops: %s is not in the module graph (java "
                    + "--add-modules %s turns the vector kernels on)", VECTOR_MODULE, VECTOR_MODULE);
        }
    }

    private Simd() {
    }

    /** The species, apart from Simd so that only a JVM with the Vector API loads its classes. */
    private static final class Shapes {
        static final VectorSpecies<Float> F32 = FloatVector.SPECIES_PREFERRED;
        static final VectorSpecies<Integer> I32 = IntVector.SPECIES_PREFERRED;
        static final VectorSpecies<Double> F64 = DoubleVector.SPECIES_PREFERRED;
        static final VectorSpecies<Long> I64 = LongVector.SPECIES_PREFERRED;
        static final VectorSpecies<Byte> I8 = ByteVector.SPECIES_PREFERRED;
        static final VectorSpecies<Short> HALF = species(short.class, F32.vectorBitSize() / 2);
        static final VectorSpecies<Byte> QUARTER = species(byte.class, F32.vectorBitSize() / 4);

        private Shapes() {
        }

        static boolean usable() {
            return F32.length() > 1 && F32.vectorShape() == I32.vectorShape();
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
    }

    /** Lanes of {@link #F32}, or 1 without the Vector API. */
    static int f32Lanes() {
        return PRESENT ? F32.length() : 1;
    }

    /** A one-line description of the shapes in use (for logs and the benchmark). */
    static String describe() {
        if (!PRESENT) {
            return "scalar: " + VECTOR_MODULE + " is not in the module graph";
        }
        return "f32 " + F32.length() + " lanes (" + F32.vectorBitSize() + " bit), f64 " + F64.length()
                + ", i8 " + I8.length() + ", bf16 " + (HALF == null ? "scalar" : HALF.length() + " lanes")
                + ", fp8 " + (QUARTER == null ? "scalar" : QUARTER.length() + " lanes")
                + (VECTOR_BY_DEFAULT ? "" : " [scalar forced]");
    }
}
