package io.jccl.tools.perf.gpu;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.cuda.internal.ffm.NativeLibrary;
import io.jccl.tools.perf.Registration;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * NCCL's buffer registration calls for perf's {@code -R}, each looked up at its first use so that an older
 * libnccl still runs {@code -R 0}: {@code ncclMemAlloc}/{@code ncclMemFree} and
 * {@code ncclCommRegister}/{@code ncclCommDeregister} (NCCL 2.19), {@code ncclCommWindowRegister}/
 * {@code ncclCommWindowDeregister} (NCCL 2.27). A missing symbol fails with its name, the library's version and
 * the version that has it. Device memory is passed as addresses, communicators and handles as native pointers.
 *
 * <p>Thread: any; handles are bound once and cached. Mirrors nccl-tests' weak references to these symbols
 * ({@code #pragma weak ncclCommWindowRegister}) and its version checks.
 */
final class NcclRegistration {
    /** nccl.h's {@code NCCL_WIN_COLL_SYMMETRIC}: a window every rank registers at the same size, for collectives. */
    static final int WIN_COLL_SYMMETRIC = 0x01;
    private static final String V2_19 = "2.19";
    private static final String V2_27 = "2.27";

    private final NcclLibrary nccl;
    private final NativeLibrary lib;
    private final Map<String, MethodHandle> handles = new ConcurrentHashMap<>();

    NcclRegistration(NcclLibrary nccl, NativeLibrary lib) {
        this.nccl = nccl;
        this.lib = lib;
    }

    /** Fails now, naming the first missing symbol, when the library cannot do {@code mode}'s registration. */
    void require(Registration mode) {
        switch (mode) {
            case NONE -> { }
            case BUFFERS -> {
                present("ncclMemAlloc", V2_19, mode);
                present("ncclMemFree", V2_19, mode);
                present("ncclCommRegister", V2_19, mode);
                present("ncclCommDeregister", V2_19, mode);
            }
            case WINDOWS -> {
                present("ncclMemAlloc", V2_19, mode);
                present("ncclMemFree", V2_19, mode);
                present("ncclCommWindowRegister", V2_27, mode);
                present("ncclCommWindowDeregister", V2_27, mode);
            }
        }
    }

    private void present(String symbol, String since, Registration mode) {
        if (!lib.has(symbol)) {
            throw missing(symbol, since, "-R " + mode.code() + " (" + mode.description() + ")");
        }
    }

    private JcclException missing(String symbol, String since, String what) {
        String version;
        try {
            version = "NCCL " + nccl.versionString();
        } catch (RuntimeException e) {
            version = "an NCCL of unknown version";
        }
        return new JcclException(Result.SYSTEM_ERROR, nccl.path() + " (" + version + ") has no " + symbol + ": "
                + what + " needs NCCL " + since + " or newer; point JCCL_NCCL_LIBRARY at a newer libnccl.so.2 or "
                + "measure NCCL with a lower -R");
    }

    private MethodHandle handle(String symbol, String since, MemoryLayout... args) {
        MethodHandle h = handles.get(symbol);
        if (h == null) {
            if (!lib.has(symbol)) {
                throw missing(symbol, since, symbol);
            }
            h = lib.bind(symbol, FunctionDescriptor.of(JAVA_INT, args));
            handles.put(symbol, h);
        }
        return h;
    }

    /** ncclMemAlloc: {@code bytes} of device memory on the current GPU that NCCL can register; its address. */
    long memAlloc(long bytes) {
        MethodHandle h = handle("ncclMemAlloc", V2_19, ADDRESS, JAVA_LONG);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment ptr = a.allocate(ADDRESS);
            nccl.check((int) h.invokeExact(ptr, bytes), "ncclMemAlloc");
            return ptr.get(ADDRESS, 0).address();
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** ncclMemFree of what {@link #memAlloc} returned. */
    void memFree(long address) {
        MethodHandle h = handle("ncclMemFree", V2_19, ADDRESS);
        try {
            nccl.check((int) h.invokeExact(MemorySegment.ofAddress(address)), "ncclMemFree");
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** ncclCommRegister: registers {@code bytes} at {@code address} with {@code comm}; the handle. */
    MemorySegment commRegister(MemorySegment comm, long address, long bytes) {
        MethodHandle h = handle("ncclCommRegister", V2_19, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment handle = a.allocate(ADDRESS);
            nccl.check((int) h.invokeExact(comm, MemorySegment.ofAddress(address), bytes, handle),
                    "ncclCommRegister");
            return handle.get(ADDRESS, 0);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** ncclCommDeregister of a {@link #commRegister} handle. */
    void commDeregister(MemorySegment comm, MemorySegment handle) {
        MethodHandle h = handle("ncclCommDeregister", V2_19, ADDRESS, ADDRESS);
        try {
            nccl.check((int) h.invokeExact(comm, handle), "ncclCommDeregister");
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** ncclCommWindowRegister (collective over {@code comm}'s ranks): the ncclWindow_t. */
    MemorySegment commWindowRegister(MemorySegment comm, long address, long bytes, int flags) {
        MethodHandle h = handle("ncclCommWindowRegister", V2_27, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, JAVA_INT);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment win = a.allocate(ADDRESS);
            nccl.check((int) h.invokeExact(comm, MemorySegment.ofAddress(address), bytes, win, flags),
                    "ncclCommWindowRegister");
            return win.get(ADDRESS, 0);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** ncclCommWindowDeregister of a {@link #commWindowRegister} window. */
    void commWindowDeregister(MemorySegment comm, MemorySegment window) {
        MethodHandle h = handle("ncclCommWindowDeregister", V2_27, ADDRESS, ADDRESS);
        try {
            nccl.check((int) h.invokeExact(comm, window), "ncclCommWindowDeregister");
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }
}
