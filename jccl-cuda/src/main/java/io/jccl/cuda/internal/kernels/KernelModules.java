package io.jccl.cuda.internal.kernels;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.internal.driver.CuModules;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The PTX modules shipped in this jar ({@code /io/jccl/cuda/kernels/*.ptx}, built by build-ptx.sh), loaded into a
 * device's primary context with cuModuleLoadData on first use (the driver JIT-compiles them for that GPU) and
 * kept for the life of the process, with the functions looked up from them. With {@code -Djccl.cuda.cubinDir=DIR},
 * a module is loaded from {@code DIR/<module>.cubin} when that file exists (machine code assembled ahead of time with
 * {@code ptxas -arch=sm_90}: no JIT at first use, about a second saved per module).
 *
 * <p>Thread: safe from any thread (concurrent maps; loading is idempotent). Mirrors NCCL's kernel table
 * (ncclDevKernelForFunc), which NCCL links in at build time instead.
 */
public final class KernelModules {
    /** Classpath folder of the PTX files. */
    public static final String RESOURCE_DIR = "/io/jccl/cuda/kernels/";

    private static final Map<String, MemorySegment> MODULES = new ConcurrentHashMap<>();
    private static final Map<String, MemorySegment> FUNCTIONS = new ConcurrentHashMap<>();

    private KernelModules() {
    }

    /** The text of PTX module {@code module} (without .ptx) from the classpath. */
    public static String ptx(String module) {
        try (InputStream in = KernelModules.class.getResourceAsStream(RESOURCE_DIR + module + ".ptx")) {
            if (in == null) {
                throw new JcclException(Result.INTERNAL_ERROR, "PTX resource " + RESOURCE_DIR + module
                        + ".ptx is missing from the jccl-cuda jar; rebuild it (jccl-cuda/build-ptx.sh, then mvn "
                                + "package)");
            }
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new JcclException(Result.SYSTEM_ERROR, "cannot read PTX resource " + module + ": " + e, e);
        }
    }

    /** The CUfunction {@code kernel} of PTX module {@code module} on {@code device}, loading the module if needed. */
    public static MemorySegment function(CudaDevice device, String module, String kernel) {
        String fnKey = device.ordinal() + "/" + module + "/" + kernel;
        MemorySegment fn = FUNCTIONS.get(fnKey);
        if (fn != null) {
            return fn;
        }
        MemorySegment mod = MODULES.computeIfAbsent(device.ordinal() + "/" + module, k -> load(device, module));
        device.makeCurrent();
        fn = CuModules.function(mod, kernel);
        FUNCTIONS.put(fnKey, fn);
        return fn;
    }

    private static MemorySegment load(CudaDevice device, String module) {
        String dir = io.jccl.internal.param.InternalProperties.CUDA_CUBIN_DIR.get();
        if (dir != null && !dir.isBlank()) {
            Path cubin = Path.of(dir, module + ".cubin");
            if (Files.isRegularFile(cubin)) {
                try (Arena arena = Arena.ofConfined()) {
                    byte[] image = Files.readAllBytes(cubin);
                    MemorySegment seg = arena.allocate(image.length, 16);
                    seg.copyFrom(MemorySegment.ofArray(image));
                    device.makeCurrent();
                    return CuModules.loadData(seg, cubin.toString());
                } catch (IOException e) {
                    throw new JcclException(Result.SYSTEM_ERROR, "cannot read " + cubin + ": " + e.getMessage(), e);
                }
            }
        }
        String text = ptx(module);
        device.makeCurrent();
        try (Arena arena = Arena.ofConfined()) {
            return CuModules.loadData(arena.allocateFrom(text), module + ".ptx");
        }
    }
}
