package io.jccl.cuda.internal.driver;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * A reusable native {@code CUlaunchConfig} with one {@code CUlaunchAttribute}, for cuLaunchKernelEx: a 1-D grid, a
 * stream and, when asked, programmatic stream serialization (programmatic dependent launch, sm_90). With it, the
 * driver may start scheduling a kernel's blocks while the kernel before it in the stream is finishing; the kernels
 * themselves wait for their predecessor's completion (griddepcontrol.wait) before touching memory, so ordering is
 * the stream's. Written before each launch; allocates nothing after construction.
 *
 * <p>Thread: owned by one enqueuer (the communicator's calling thread). Mirrors the launch configuration NCCL
 * builds for cuLaunchKernelEx (ncclLaunchKernel), with only the programmatic-serialization attribute.
 */
public final class LaunchConfig {
    /** CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION. */
    static final int ATTR_PROGRAMMATIC_STREAM_SERIALIZATION = 6;

    /** CUlaunchAttribute: id, 4 bytes of padding, a 64-byte value union (8-byte aligned). */
    static final StructLayout ATTRIBUTE = MemoryLayout.structLayout(
            JAVA_INT.withName("id"), MemoryLayout.paddingLayout(4),
            MemoryLayout.sequenceLayout(64, JAVA_BYTE).withName("value"));
    /** CUlaunchConfig as cuda.h lays it out (56 bytes on 64-bit hosts). */
    static final StructLayout CONFIG = MemoryLayout.structLayout(
            JAVA_INT.withName("gridDimX"), JAVA_INT.withName("gridDimY"), JAVA_INT.withName("gridDimZ"),
            JAVA_INT.withName("blockDimX"), JAVA_INT.withName("blockDimY"), JAVA_INT.withName("blockDimZ"),
            JAVA_INT.withName("sharedMemBytes"), MemoryLayout.paddingLayout(4),
            ADDRESS.withName("hStream"), ADDRESS.withName("attrs"), JAVA_INT.withName("numAttrs"),
            MemoryLayout.paddingLayout(4));

    private static final VarHandle GRID_X = CONFIG.varHandle(MemoryLayout.PathElement.groupElement("gridDimX"));
    private static final VarHandle BLOCK_X = CONFIG.varHandle(MemoryLayout.PathElement.groupElement("blockDimX"));
    private static final VarHandle SHARED = CONFIG.varHandle(MemoryLayout.PathElement.groupElement("sharedMemBytes"));
    private static final VarHandle STREAM = CONFIG.varHandle(MemoryLayout.PathElement.groupElement("hStream"));
    private static final VarHandle NUM_ATTRS = CONFIG.varHandle(MemoryLayout.PathElement.groupElement("numAttrs"));

    private final MemorySegment config;
    private final MemorySegment attribute;

    /** A configuration allocated in {@code arena}, which must outlive every launch that uses it. */
    public LaunchConfig(Arena arena) {
        this.config = arena.allocate(CONFIG);
        this.attribute = arena.allocate(ATTRIBUTE);
        attribute.set(JAVA_INT, 0, ATTR_PROGRAMMATIC_STREAM_SERIALIZATION);
        attribute.set(JAVA_INT, ATTRIBUTE.byteOffset(MemoryLayout.PathElement.groupElement("value")), 1);
        config.set(JAVA_INT, CONFIG.byteOffset(MemoryLayout.PathElement.groupElement("gridDimY")), 1);
        config.set(JAVA_INT, CONFIG.byteOffset(MemoryLayout.PathElement.groupElement("gridDimZ")), 1);
        config.set(JAVA_INT, CONFIG.byteOffset(MemoryLayout.PathElement.groupElement("blockDimY")), 1);
        config.set(JAVA_INT, CONFIG.byteOffset(MemoryLayout.PathElement.groupElement("blockDimZ")), 1);
        config.set(ADDRESS, CONFIG.byteOffset(MemoryLayout.PathElement.groupElement("attrs")), attribute);
    }

    /**
     * Sets the next launch: {@code gridX} blocks of {@code blockX} threads on {@code stream}, programmatic when
     * {@code programmatic} (the launch may overlap the end of the stream's previous kernel).
     */
    public LaunchConfig set(int gridX, int blockX, int sharedBytes, MemorySegment stream, boolean programmatic) {
        GRID_X.set(config, 0L, gridX);
        BLOCK_X.set(config, 0L, blockX);
        SHARED.set(config, 0L, sharedBytes);
        STREAM.set(config, 0L, stream);
        NUM_ATTRS.set(config, 0L, programmatic ? 1 : 0);
        return this;
    }

    MemorySegment segment() {
        return config;
    }

    @Override
    public String toString() {
        return describe(config);
    }

    /** A configuration's launch as error messages show it: {@code {grid 96, block 512, stream 0x.., programmatic}}. */
    static String describe(MemorySegment config) {
        return "{grid " + (int) GRID_X.get(config, 0L) + ", block " + (int) BLOCK_X.get(config, 0L) + ", stream "
                + CuCheck.hex((MemorySegment) STREAM.get(config, 0L)) + ((int) NUM_ATTRS.get(config, 0L) == 1
                ? ", programmatic}" : "}");
    }
}
