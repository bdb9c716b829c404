package io.jccl.cuda.internal.ffm;

import io.jccl.JcclException;
import io.jccl.Result;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Objects;
import java.util.Optional;

/**
 * A shared library opened once through FFM, and downcall handles bound from it. When the library or a symbol is
 * missing, {@link #bind} still returns a handle of the right type, one that throws a {@link JcclException} with
 * {@link Result#SYSTEM_ERROR} and the reason each time it is called: holder classes can keep their handles in
 * static finals without failing their class initialisation, and every use reports the same clear error.
 *
 * <p>Thread: immutable after construction, used from any thread. Plays the role of NCCL's dlopen wrappers
 * (cudawrap.cc's library loading, the net plugin loader).
 */
public final class NativeLibrary {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle FAIL;

    static {
        try {
            FAIL = MethodHandles.lookup().findStatic(NativeLibrary.class, "fail",
                    MethodType.methodType(Object.class, String.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String name;
    private final SymbolLookup lookup;
    private final String loadFailure;

    private NativeLibrary(String name, SymbolLookup lookup, String loadFailure) {
        this.name = name;
        this.lookup = lookup;
        this.loadFailure = loadFailure;
    }

    /**
     * Opens {@code nameOrPath} with the dynamic linker (a bare name is searched on the library path, a path is
     * used as is). Never throws: a library that cannot be opened yields an instance whose handles all fail with
     * {@code whenMissing + " (" + reason + ")"}.
     */
    @SuppressWarnings("restricted") // FFM: JCCL is run with --enable-native-access
    public static NativeLibrary open(String nameOrPath, String whenMissing) {
        Objects.requireNonNull(nameOrPath, "nameOrPath");
        try {
            return new NativeLibrary(nameOrPath, SymbolLookup.libraryLookup(nameOrPath, Arena.global()), null);
        } catch (IllegalArgumentException | IllegalCallerException e) {
            return new NativeLibrary(nameOrPath, null, whenMissing + " (" + e.getMessage() + ")");
        }
    }

    /** The name or path this library was opened with. */
    public String name() {
        return name;
    }

    /** True when the library was opened. */
    public boolean isLoaded() {
        return lookup != null;
    }

    /** Why the library could not be opened, or empty when it was. */
    public Optional<String> loadFailure() {
        return Optional.ofNullable(loadFailure);
    }

    /** True when the library is loaded and exports {@code symbol}. */
    public boolean has(String symbol) {
        return lookup != null && lookup.find(symbol).isPresent();
    }

    /**
     * A downcall handle for {@code symbol}; when the library or the symbol is missing, a handle of the same type
     * that throws {@link JcclException} ({@link Result#SYSTEM_ERROR}) on every call.
     */
    @SuppressWarnings("restricted") // FFM: JCCL is run with --enable-native-access
    public MethodHandle bind(String symbol, FunctionDescriptor descriptor, Linker.Option... options) {
        if (lookup == null) {
            return failing(descriptor, loadFailure);
        }
        Optional<MemorySegment> address = lookup.find(symbol);
        if (address.isEmpty()) {
            return failing(descriptor, name + " has no symbol " + symbol
                    + ": the installed driver/library is older than JCCL needs; upgrade it");
        }
        return LINKER.downcallHandle(address.get(), descriptor, options);
    }

    private static MethodHandle failing(FunctionDescriptor descriptor, String message) {
        MethodType type = descriptor.toMethodType();
        MethodHandle thrower = MethodHandles.insertArguments(FAIL, 0, message);
        thrower = MethodHandles.dropArguments(thrower, 0, type.parameterList());
        return thrower.asType(type);
    }

    @SuppressWarnings("unused") // called through FAIL
    private static Object fail(String message) {
        throw new JcclException(Result.SYSTEM_ERROR, message);
    }

    /** Rethrows what a downcall threw: unchecked throwables as they are, anything else wrapped as INTERNAL_ERROR. */
    public static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new JcclException(Result.INTERNAL_ERROR, "native call failed unexpectedly: " + t, t);
    }

    /** Reads a NUL-terminated C string at {@code address} (a pointer returned by a native call); null for NULL. */
    @SuppressWarnings("restricted") // FFM: JCCL is run with --enable-native-access
    public static String cString(MemorySegment address) {
        if (address == null || address.equals(MemorySegment.NULL)) {
            return null;
        }
        return address.reinterpret(Long.MAX_VALUE).getString(0);
    }

    @Override
    public String toString() {
        return "NativeLibrary[" + name + (lookup != null ? ", loaded]" : ", missing: " + loadFailure + "]");
    }
}
