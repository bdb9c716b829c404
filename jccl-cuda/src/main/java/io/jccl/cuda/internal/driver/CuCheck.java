package io.jccl.cuda.internal.driver;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.cuda.internal.ffm.NativeLibrary;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.StringJoiner;

import static io.jccl.cuda.internal.driver.DriverCall.Arg.INT;
import static io.jccl.cuda.internal.driver.DriverCall.Arg.PTR;
import static java.lang.foreign.ValueLayout.ADDRESS;

/**
 * Turns a failed {@code CUresult} into {@link JcclException}({@link Result#UNHANDLED_CUDA_ERROR},
 * {@code "<call>(<args>) failed: CUDA_ERROR_xxx (<string>)"}). Callers test {@code rc != 0} themselves and only
 * then build the exception, so the success path allocates nothing:
 * {@code if (rc != 0) throw CuCheck.error(rc, "cuMemAlloc_v2", bytes);}
 *
 * <p>Thread: stateless, any thread. Mirrors NCCL's CUCHECK macro.
 */
final class CuCheck {
    /** CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED. */
    public static final int PEER_ACCESS_ALREADY_ENABLED = 704;
    /** CUDA_ERROR_NOT_READY (stream or event still busy). */
    public static final int NOT_READY = 600;
    /** CUDA_ERROR_NO_DEVICE. */
    public static final int NO_DEVICE = 100;

    private CuCheck() {
    }

    private static final class H {
        static final DriverCall NAME = DriverCall.of("cuGetErrorName", INT, PTR).unchecked();
        static final DriverCall STRING = DriverCall.of("cuGetErrorString", INT, PTR).unchecked();
    }

    /** The exception for a failed call; {@code args} are printed with {@link String#valueOf}. */
    public static JcclException error(int rc, String call, Object... args) {
        StringJoiner a = new StringJoiner(", ", call + "(", ")");
        for (Object o : args) {
            a.add(String.valueOf(o));
        }
        return new JcclException(Result.UNHANDLED_CUDA_ERROR, a + " failed: " + describe(rc));
    }

    /** {@code CUDA_ERROR_xxx (<description>)} for a CUresult, or {@code CUDA error <n>} when the driver has no name. */
    public static String describe(int rc) {
        String name = lookup(H.NAME, rc);
        String text = lookup(H.STRING, rc);
        if (name == null) {
            return "CUDA error " + rc + (text != null ? " (" + text + ")" : "");
        }
        return name + (text != null ? " (" + text + ")" : "");
    }

    private static String lookup(DriverCall call, int rc) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            return call.call(rc, out) == 0 ? NativeLibrary.cString(out.get(ADDRESS, 0)) : null;
        } catch (RuntimeException | Error e) {
            return null;
        }
    }

    /** A device pointer printed as hex, for error messages. */
    public static String hex(long pointer) {
        return "0x" + Long.toHexString(pointer);
    }

    /** A native handle (context, stream, event, ...) printed as hex, for error messages. */
    public static String hex(MemorySegment handle) {
        return handle == null ? "null" : "0x" + Long.toHexString(handle.address());
    }
}
