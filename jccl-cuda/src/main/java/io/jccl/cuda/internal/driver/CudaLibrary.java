package io.jccl.cuda.internal.driver;

import io.jccl.cuda.internal.ffm.NativeLibrary;

/**
 * The CUDA driver library, {@code libcuda.so.1}, opened on first use (system property {@code jccl.cuda.library}
 * may name another file). {@link DriverCall} binds every driver entry point from it by its versioned exported name
 * (reference §10): the header-level names of several functions are older ABIs in the library.
 *
 * <p>Thread: immutable, any thread. Mirrors NCCL's cudawrap.cc (driver symbols resolved at run time).
 */
public final class CudaLibrary {
    /** The file name the NVIDIA driver installs. */
    public static final String DEFAULT_NAME = "libcuda.so.1";

    private CudaLibrary() {
    }

    private static final class Holder {
        static final NativeLibrary LIB = open();

        private static NativeLibrary open() {
            String name = io.jccl.internal.param.InternalProperties.CUDA_LIBRARY.get();
            return NativeLibrary.open(name, "no NVIDIA driver found: could not load " + name
                    + "; install the NVIDIA driver (it provides libcuda.so.1) or run on a machine with an NVIDIA GPU");
        }
    }

    /** The driver library (opened on the first call). */
    public static NativeLibrary library() {
        return Holder.LIB;
    }

    /** True when libcuda.so.1 could be opened (says nothing about GPUs being present). */
    public static boolean isLoaded() {
        return Holder.LIB.isLoaded();
    }
}
