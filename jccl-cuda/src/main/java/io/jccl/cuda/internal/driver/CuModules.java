package io.jccl.cuda.internal.driver;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static io.jccl.cuda.internal.driver.DriverCall.Arg.CSTRING;
import static io.jccl.cuda.internal.driver.DriverCall.Arg.INT;
import static io.jccl.cuda.internal.driver.DriverCall.Arg.LONG;
import static io.jccl.cuda.internal.driver.DriverCall.Arg.NULL;
import static io.jccl.cuda.internal.driver.DriverCall.Arg.PTR;
import static io.jccl.cuda.internal.driver.DriverCall.Arg.fixed;
import static io.jccl.cuda.internal.driver.DriverCall.Arg.out;
import static io.jccl.cuda.internal.driver.DriverCall.Arg.text;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Driver calls for modules (PTX JIT-compiled by the driver with cuModuleLoadData), functions and launches.
 * {@link #launch} allocates nothing: the caller owns the kernelParams array.
 *
 * <p>Thread: stateless, any platform thread with the module's context current. Mirrors NCCL's kernel launch
 * (ncclLaunchKernel → cuLaunchKernelEx), with only the programmatic-serialization attribute (see LaunchConfig).
 */
public final class CuModules {
    /** CUfunction_attribute: maximum dynamic shared memory per block. */
    public static final int FUNC_ATTR_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;

    private CuModules() {
    }

    private static final class H {
        static final DriverCall LOAD_DATA = DriverCall.of("cuModuleLoadData", PTR, PTR).unchecked();
        static final DriverCall UNLOAD = DriverCall.of("cuModuleUnload", PTR);
        static final DriverCall GET_FUNCTION = DriverCall.of("cuModuleGetFunction", out("&function", ADDRESS), PTR,
                CSTRING);
        static final DriverCall LAUNCH_EX = DriverCall.hot("cuLaunchKernelEx", text(LaunchConfig::describe), PTR,
                PTR, NULL);
        static final DriverCall FUNC_SET_ATTRIBUTE = DriverCall.of("cuFuncSetAttribute", PTR, INT, INT);
        static final DriverCall LIBRARY_LOAD_DATA = DriverCall.of("cuLibraryLoadData", PTR, PTR, NULL, NULL,
                fixed(0), NULL, NULL, fixed(0)).unchecked();
        static final DriverCall LIBRARY_GET_KERNEL = DriverCall.of("cuLibraryGetKernel", out("&kernel", ADDRESS),
                PTR, CSTRING);
        static final DriverCall OCCUPANCY = DriverCall.of("cuOccupancyMaxActiveBlocksPerMultiprocessor",
                out("&n", JAVA_INT), PTR, INT, LONG);
    }

    /** Loads a module from a NUL-terminated PTX image (the driver JIT-compiles it for the current device). */
    public static MemorySegment loadData(MemorySegment image, String what) {
        return load(H.LOAD_DATA, image, "&module", what);
    }

    /** Loads a context-independent library from a NUL-terminated PTX image (no JIT or library options). */
    public static MemorySegment libraryLoadData(MemorySegment image, String what) {
        return load(H.LIBRARY_LOAD_DATA, image, "&library", what, "NULL", "NULL", 0, "NULL", "NULL", 0);
    }

    /** Loads {@code image} with {@code load}; a failure shows {@code shown} (the image by its description). */
    private static MemorySegment load(DriverCall load, MemorySegment image, Object... shown) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(ADDRESS);
            long rc = load.call(p, image);
            if (rc != 0) {
                throw load.error((int) rc, shown);
            }
            return p.get(ADDRESS, 0);
        }
    }

    /** The CUkernel {@code name} of a library (usable wherever a CUfunction is expected, for launches). */
    public static MemorySegment libraryKernel(MemorySegment library, String name) {
        try (Arena a = Arena.ofConfined()) {
            return MemorySegment.ofAddress(H.LIBRARY_GET_KERNEL.call(library, a.allocateFrom(name)));
        }
    }

    public static void unload(MemorySegment module) {
        H.UNLOAD.call(module);
    }

    /** The kernel {@code name} of {@code module}. */
    public static MemorySegment function(MemorySegment module, String name) {
        try (Arena a = Arena.ofConfined()) {
            return MemorySegment.ofAddress(H.GET_FUNCTION.call(module, a.allocateFrom(name)));
        }
    }

    /**
     * Launches {@code fn} as {@code config} describes (cuLaunchKernelEx): grid, block, stream and launch attributes
     * already written into the caller's reusable {@link LaunchConfig}.
     */
    public static void launch(MemorySegment fn, LaunchConfig config, MemorySegment params) {
        H.LAUNCH_EX.call(config.segment(), fn, params);
    }

    public static void setAttribute(MemorySegment fn, int attribute, int value) {
        H.FUNC_SET_ATTRIBUTE.call(fn, attribute, value);
    }

    /** How many blocks of {@code blockSize} threads of {@code fn} can be resident on one multiprocessor. */
    public static int maxActiveBlocksPerSm(MemorySegment fn, int blockSize, long dynamicSharedBytes) {
        return (int) H.OCCUPANCY.call(fn, blockSize, dynamicSharedBytes);
    }
}
