package io.jccl.cuda.internal.driver;

import io.jccl.cuda.internal.ffm.NativeLibrary;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static io.jccl.cuda.internal.driver.CuCheck.error;
import static io.jccl.cuda.internal.driver.CuCheck.hex;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

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
        static final MethodHandle LOAD_DATA = CudaLibrary.bind("cuModuleLoadData", ADDRESS, ADDRESS);
        static final MethodHandle UNLOAD = CudaLibrary.bind("cuModuleUnload", ADDRESS);
        static final MethodHandle GET_FUNCTION = CudaLibrary.bind("cuModuleGetFunction", ADDRESS, ADDRESS, ADDRESS);
        static final MethodHandle LAUNCH_EX = CudaLibrary.bindHot("cuLaunchKernelEx", ADDRESS, ADDRESS, ADDRESS,
                ADDRESS);
        static final MethodHandle FUNC_SET_ATTRIBUTE = CudaLibrary.bind("cuFuncSetAttribute", ADDRESS, JAVA_INT,
                JAVA_INT);
        static final MethodHandle LIBRARY_LOAD_DATA = CudaLibrary.bind("cuLibraryLoadData", ADDRESS, ADDRESS, ADDRESS,
                ADDRESS, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT);
        static final MethodHandle LIBRARY_GET_KERNEL = CudaLibrary.bind("cuLibraryGetKernel", ADDRESS, ADDRESS,
                ADDRESS);
        static final MethodHandle OCCUPANCY = CudaLibrary.bind("cuOccupancyMaxActiveBlocksPerMultiprocessor",
                ADDRESS, ADDRESS, JAVA_INT, JAVA_LONG);
    }

    /** Loads a module from a NUL-terminated PTX image (the driver JIT-compiles it for the current device). */
    public static MemorySegment loadData(MemorySegment image, String what) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(ADDRESS);
            int rc = (int) H.LOAD_DATA.invokeExact(p, image);
            if (rc != 0) {
                throw error(rc, "cuModuleLoadData", "&module", what);
            }
            return p.get(ADDRESS, 0);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** Loads a context-independent library from a NUL-terminated PTX image (no JIT or library options). */
    public static MemorySegment libraryLoadData(MemorySegment image, String what) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(ADDRESS);
            MemorySegment n = MemorySegment.NULL;
            int rc = (int) H.LIBRARY_LOAD_DATA.invokeExact(p, image, n, n, 0, n, n, 0);
            if (rc != 0) {
                throw error(rc, "cuLibraryLoadData", "&library", what, "NULL", "NULL", 0, "NULL", "NULL", 0);
            }
            return p.get(ADDRESS, 0);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** The CUkernel {@code name} of a library (usable wherever a CUfunction is expected, for launches). */
    public static MemorySegment libraryKernel(MemorySegment library, String name) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(ADDRESS);
            int rc = (int) H.LIBRARY_GET_KERNEL.invokeExact(p, library, a.allocateFrom(name));
            if (rc != 0) {
                throw error(rc, "cuLibraryGetKernel", "&kernel", hex(library), name);
            }
            return p.get(ADDRESS, 0);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    public static void unload(MemorySegment module) {
        int rc;
        try {
            rc = (int) H.UNLOAD.invokeExact(module);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        if (rc != 0) {
            throw error(rc, "cuModuleUnload", hex(module));
        }
    }

    /** The kernel {@code name} of {@code module}. */
    public static MemorySegment function(MemorySegment module, String name) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(ADDRESS);
            int rc = (int) H.GET_FUNCTION.invokeExact(p, module, a.allocateFrom(name));
            if (rc != 0) {
                throw error(rc, "cuModuleGetFunction", "&function", hex(module), name);
            }
            return p.get(ADDRESS, 0);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /**
     * Launches {@code fn} as {@code config} describes (cuLaunchKernelEx): grid, block, stream and launch attributes
     * already written into the caller's reusable {@link LaunchConfig}.
     */
    public static void launch(MemorySegment fn, LaunchConfig config, MemorySegment params) {
        int rc;
        try {
            rc = (int) H.LAUNCH_EX.invokeExact(config.segment(), fn, params, MemorySegment.NULL);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        if (rc != 0) {
            throw error(rc, "cuLaunchKernelEx", config, hex(fn), hex(params), "NULL");
        }
    }

    public static void setAttribute(MemorySegment fn, int attribute, int value) {
        int rc;
        try {
            rc = (int) H.FUNC_SET_ATTRIBUTE.invokeExact(fn, attribute, value);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        if (rc != 0) {
            throw error(rc, "cuFuncSetAttribute", hex(fn), attribute, value);
        }
    }

    /** How many blocks of {@code blockSize} threads of {@code fn} can be resident on one multiprocessor. */
    public static int maxActiveBlocksPerSm(MemorySegment fn, int blockSize, long dynamicSharedBytes) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment n = a.allocate(JAVA_INT);
            int rc = (int) H.OCCUPANCY.invokeExact(n, fn, blockSize, dynamicSharedBytes);
            if (rc != 0) {
                throw error(rc, "cuOccupancyMaxActiveBlocksPerMultiprocessor", "&n", hex(fn), blockSize,
                        dynamicSharedBytes);
            }
            return n.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }
}
