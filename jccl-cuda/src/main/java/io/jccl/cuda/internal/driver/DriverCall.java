package io.jccl.cuda.internal.driver;

import io.jccl.JcclException;
import io.jccl.cuda.internal.ffm.NativeLibrary;
import io.jccl.internal.param.InternalProperties;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.List;
import java.util.function.Function;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * One native function that returns a status ({@code CUresult}, {@code nvmlReturn_t}): its exported name, its
 * parameters ({@link Arg}: what the function takes, how an error message shows it) and its downcall handle, adapted
 * once at binding so that every call of every function goes through the one {@code invokeExact} in {@link #invoke}.
 * The driver classes declare their functions as these and call them with {@code call(...)}: the arguments in C
 * order, as {@link MemorySegment}s (pointers, handles, structs) and {@code long}s (every integer; the handle narrows
 * them to the C type), without the function's returned out parameter or its fixed ones.
 *
 * <p>A call returns the out parameter's value when the function has one ({@code long}: an int or float's bits, an
 * address), otherwise the status. A failed status throws {@link CuCheck#error} named after the function with every
 * argument as {@link Arg} shows it ({@code cuMemcpyHtoDAsync_v2(0x7f.., 0x5c.., 4096, 0x3a..) failed: ...}), except
 * for the one code a binding {@link #accepting accepts} (returned as it is, or 0 in place of an out value) and for
 * {@link #unchecked} bindings, whose callers read every status themselves. Calls without an out parameter allocate
 * nothing, also on the hot path (records, waits, queries, launches, stream-ordered copies); those with one allocate
 * it in a confined arena per call. A missing library or symbol fails each call as {@link NativeLibrary#bind} says.
 *
 * <p>Thread: immutable, any thread (the driver's rules on current contexts apply). Mirrors NCCL's cudawrap.h pairing
 * of a driver symbol resolved at run time with CUCHECK, which names the failed call.
 *
 * @param name the exported symbol, as error messages name it
 * @param handle the downcall adapted to {@link #TYPE}: the returned out, three more references, three values
 * @param args the function's parameters, in C order
 * @param returned what the returned out parameter points to, or null when the function has none
 * @param refs how many references a call passes (fixed ones and the returned out left out)
 * @param values how many values a call passes
 * @param accepted the one failed status returned instead of thrown (0: none)
 * @param checked false when every status is returned to the caller
 */
record DriverCall(String name, MethodHandle handle, List<Arg> args, MemoryLayout returned, int refs, int values,
                  int accepted, boolean checked) {
    /** The adapted handle's type: slot 0 the returned out, slots 1 to 3 the other references, 4 to 6 the values. */
    private static final MethodType TYPE = MethodType.methodType(int.class, MemorySegment.class,
            MemorySegment.class, MemorySegment.class, MemorySegment.class, long.class, long.class, long.class);
    private static final int FIRST_REF = 1;
    private static final int FIRST_VALUE = 4;

    /**
     * One parameter of a native function: the layout it is passed with, and how an error message shows the value
     * passed (a {@link MemorySegment}, a {@link Long}, or the fixed value).
     *
     * @param layout the parameter's layout in the function descriptor
     * @param shown the text of the value in an error message
     * @param returned for the out parameter a call returns: the layout it points to; otherwise null
     * @param fixed a value the binding passes itself on every call, or null when the caller passes one
     */
    record Arg(MemoryLayout layout, Function<Object, String> shown, MemoryLayout returned, Object fixed) {
        /** A device pointer (CUdeviceptr, a long), shown in hex. */
        static final Arg DPTR = new Arg(JAVA_LONG, v -> CuCheck.hex((long) v), null, null);
        /** A pointer or handle (context, stream, event, host memory: a segment), shown in hex. */
        static final Arg PTR = new Arg(ADDRESS, v -> CuCheck.hex((MemorySegment) v), null, null);
        /** A C int, shown in decimal. */
        static final Arg INT = new Arg(JAVA_INT, String::valueOf, null, null);
        /** A C long or size_t, shown in decimal. */
        static final Arg LONG = new Arg(JAVA_LONG, String::valueOf, null, null);
        /** A C char, shown in decimal. */
        static final Arg BYTE = new Arg(JAVA_BYTE, String::valueOf, null, null);
        /** A NUL-terminated string, shown as its text. */
        static final Arg CSTRING = text(NativeLibrary::cString);
        /** A NULL pointer the binding passes itself, shown as {@code NULL}. */
        static final Arg NULL = new Arg(ADDRESS, v -> "NULL", null, MemorySegment.NULL);

        /** A pointer to a {@code pointee} the call allocates and returns the value of, shown as {@code label}. */
        static Arg out(String label, ValueLayout pointee) {
            if (!(pointee instanceof AddressLayout || pointee instanceof ValueLayout.OfInt
                    || pointee instanceof ValueLayout.OfLong || pointee instanceof ValueLayout.OfFloat)) {
                throw new IllegalArgumentException("an out parameter pointing to " + pointee);
            }
            return new Arg(ADDRESS, v -> label, pointee, null);
        }

        /** A pointer the caller passes, shown as {@code label} ({@code "&buf"}). */
        static Arg label(String label) {
            return label(ADDRESS, label);
        }

        /** A parameter of {@code layout} (a struct passed by value, say) shown as {@code label}. */
        static Arg label(MemoryLayout layout, String label) {
            return new Arg(layout, v -> label, null, null);
        }

        /** A pointer shown as {@code text} makes it. */
        static Arg text(Function<MemorySegment, String> text) {
            return new Arg(ADDRESS, v -> text.apply((MemorySegment) v), null, null);
        }

        /** A C int the binding passes itself. */
        static Arg fixed(int value) {
            return new Arg(JAVA_INT, String::valueOf, null, value);
        }

        /** A C long the binding passes itself. */
        static Arg fixed(long value) {
            return new Arg(JAVA_LONG, String::valueOf, null, value);
        }

        /** A pointer the binding passes itself (memory that lives as long as the binding), shown as {@code label}. */
        static Arg fixed(MemorySegment pointer, String label) {
            return new Arg(ADDRESS, v -> label, null, pointer);
        }
    }

    /** A driver function (libcuda), checked. */
    static DriverCall of(String symbol, Arg... args) {
        return bind(CudaLibrary.library(), symbol, false, args);
    }

    /**
     * A short, never-blocking driver function of the hot path, checked. With {@code -Djccl.cuda.critical=true} the
     * handle skips the Java thread-state transition ({@link Linker.Option#critical}); off by default.
     */
    static DriverCall hot(String symbol, Arg... args) {
        return bind(CudaLibrary.library(), symbol, InternalProperties.CUDA_CRITICAL.get(), args);
    }

    /** A function of another library (NVML; the C library in tests), checked. */
    static DriverCall of(NativeLibrary library, String symbol, Arg... args) {
        return bind(library, symbol, false, args);
    }

    /** This function, returning {@code status} instead of throwing it. */
    DriverCall accepting(int status) {
        return new DriverCall(name, handle, args, returned, refs, values, status, checked);
    }

    /** This function, returning every status to the caller (which may build the error with {@link #error}). */
    DriverCall unchecked() {
        if (returned != null) {
            throw new IllegalArgumentException(name + ": an unchecked call cannot return its out parameter");
        }
        return new DriverCall(name, handle, args, returned, refs, values, accepted, false);
    }

    /** The error for {@code status}, showing {@code shown} as the arguments (for calls checked by their caller). */
    JcclException error(int status, Object... shown) {
        return CuCheck.error(status, name, shown);
    }

    private static DriverCall bind(NativeLibrary library, String symbol, boolean critical, Arg... args) {
        List<Arg> list = List.of(args);
        MemoryLayout[] layouts = list.stream().map(Arg::layout).toArray(MemoryLayout[]::new);
        FunctionDescriptor descriptor = FunctionDescriptor.of(JAVA_INT, layouts);
        MethodHandle h = critical ? library.bind(symbol, descriptor, Linker.Option.critical(false))
                : library.bind(symbol, descriptor);
        for (int i = args.length - 1; i >= 0; i--) {
            if (args[i].fixed() != null) {
                h = MethodHandles.insertArguments(h, i, args[i].fixed());
            }
        }
        int[] slots = slots(symbol, list);
        int[] reorder = new int[h.type().parameterCount()];
        MethodType passed = h.type();
        int refs = 0;
        int values = 0;
        MemoryLayout returned = null;
        for (int i = 0, k = 0; i < slots.length; i++) {
            if (slots[i] < 0) {
                continue;
            }
            reorder[k] = slots[i];
            passed = passed.changeParameterType(k++, TYPE.parameterType(slots[i]));
            if (slots[i] == 0) {
                returned = args[i].returned();
            } else if (slots[i] < FIRST_VALUE) {
                refs++;
            } else {
                values++;
            }
        }
        h = MethodHandles.permuteArguments(MethodHandles.explicitCastArguments(h, passed), TYPE, reorder);
        return new DriverCall(symbol, h, list, returned, refs, values, 0, true);
    }

    /** Where each parameter travels in {@link #TYPE}: -1 when fixed, 0 the returned out, then references, values. */
    private static int[] slots(String symbol, List<Arg> args) {
        int[] slots = new int[args.size()];
        int ref = FIRST_REF;
        int value = FIRST_VALUE;
        boolean out = false;
        for (int i = 0; i < slots.length; i++) {
            Arg a = args.get(i);
            if (a.fixed() != null) {
                slots[i] = -1;
            } else if (a.returned() != null) {
                if (out) {
                    throw new IllegalArgumentException(symbol + ": at most one returned out parameter");
                }
                out = true;
                slots[i] = 0;
            } else if (!(a.layout() instanceof ValueLayout) || a.layout() instanceof AddressLayout) {
                slots[i] = ref++;
            } else if (a.layout() instanceof ValueLayout.OfInt || a.layout() instanceof ValueLayout.OfLong
                    || a.layout() instanceof ValueLayout.OfByte) {
                slots[i] = value++;
            } else {
                throw new IllegalArgumentException(symbol + ": a parameter of " + a.layout());
            }
        }
        if (ref > FIRST_VALUE || value > TYPE.parameterCount()) {
            throw new IllegalArgumentException(symbol + ": more than 3 references or 3 values");
        }
        return slots;
    }

    // The calls: one per shape of arguments a binding takes (in C order), each handing its references and its
    // values on to invoke in that order. A call returns the out parameter's value or the status (see above).

    long call() {
        return invoke(0, 0, MemorySegment.NULL, MemorySegment.NULL, MemorySegment.NULL, 0, 0, 0);
    }

    long call(long a) {
        return invoke(0, 1, MemorySegment.NULL, MemorySegment.NULL, MemorySegment.NULL, a, 0, 0);
    }

    long call(MemorySegment a) {
        return invoke(1, 0, a, MemorySegment.NULL, MemorySegment.NULL, 0, 0, 0);
    }

    long call(long a, long b) {
        return invoke(0, 2, MemorySegment.NULL, MemorySegment.NULL, MemorySegment.NULL, a, b, 0);
    }

    long call(long a, MemorySegment b) {
        return invoke(1, 1, b, MemorySegment.NULL, MemorySegment.NULL, a, 0, 0);
    }

    long call(MemorySegment a, long b) {
        return invoke(1, 1, a, MemorySegment.NULL, MemorySegment.NULL, b, 0, 0);
    }

    long call(MemorySegment a, MemorySegment b) {
        return invoke(2, 0, a, b, MemorySegment.NULL, 0, 0, 0);
    }

    long call(long a, long b, long c) {
        return invoke(0, 3, MemorySegment.NULL, MemorySegment.NULL, MemorySegment.NULL, a, b, c);
    }

    long call(long a, MemorySegment b, long c) {
        return invoke(1, 2, b, MemorySegment.NULL, MemorySegment.NULL, a, c, 0);
    }

    long call(MemorySegment a, long b, long c) {
        return invoke(1, 2, a, MemorySegment.NULL, MemorySegment.NULL, b, c, 0);
    }

    long call(MemorySegment a, long b, MemorySegment c) {
        return invoke(2, 1, a, c, MemorySegment.NULL, b, 0, 0);
    }

    long call(MemorySegment a, MemorySegment b, MemorySegment c) {
        return invoke(3, 0, a, b, c, 0, 0, 0);
    }

    long call(MemorySegment a, MemorySegment b, MemorySegment c, long d, long e) {
        return invoke(3, 2, a, b, c, d, e, 0);
    }

    long call(long a, long b, long c, MemorySegment d) {
        return invoke(1, 3, d, MemorySegment.NULL, MemorySegment.NULL, a, b, c);
    }

    long call(long a, MemorySegment b, long c, MemorySegment d) {
        return invoke(2, 2, b, d, MemorySegment.NULL, a, c, 0);
    }

    long call(MemorySegment a, long b, long c, MemorySegment d) {
        return invoke(2, 2, a, d, MemorySegment.NULL, b, c, 0);
    }

    long call(long a, MemorySegment b, long c, MemorySegment d, long e) {
        return invoke(2, 3, b, d, MemorySegment.NULL, a, c, e);
    }

    long call(long a, MemorySegment b, long c, MemorySegment d, long e, MemorySegment f) {
        return invoke(3, 3, b, d, f, a, c, e);
    }

    /**
     * The one call of every binding: {@code refs} references and {@code values} values in C order (the unused
     * slots NULL and 0), checked against the function's parameters (a constant test once compiled).
     */
    private long invoke(int refs, int values, MemorySegment r1, MemorySegment r2, MemorySegment r3, long v0,
                        long v1, long v2) {
        if (refs != this.refs || values != this.values) {
            throw new IllegalArgumentException(name + " takes " + this.refs + " references and " + this.values
                    + " values besides its fixed and returned ones, not " + refs + " and " + values);
        }
        if (returned == null) {
            int status = status(MemorySegment.NULL, r1, r2, r3, v0, v1, v2);
            if (status != 0 && status != accepted && checked) {
                throw failure(status, MemorySegment.NULL, r1, r2, r3, v0, v1, v2);
            }
            return status;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(returned).fill((byte) 0);
            int status = status(out, r1, r2, r3, v0, v1, v2);
            if (status == 0) {
                return read(out, returned);
            }
            if (status == accepted) {
                return 0;
            }
            throw failure(status, out, r1, r2, r3, v0, v1, v2);
        }
    }

    private int status(MemorySegment r0, MemorySegment r1, MemorySegment r2, MemorySegment r3, long v0, long v1,
                       long v2) {
        try {
            return (int) handle.invokeExact(r0, r1, r2, r3, v0, v1, v2);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    private JcclException failure(int status, MemorySegment r0, MemorySegment r1, MemorySegment r2,
                                  MemorySegment r3, long v0, long v1, long v2) {
        Object[] passed = {r0, r1, r2, r3, v0, v1, v2};
        int[] slots = slots(name, args);
        Object[] shown = new Object[slots.length];
        for (int i = 0; i < slots.length; i++) {
            Arg a = args.get(i);
            shown[i] = a.shown().apply(slots[i] < 0 ? a.fixed() : passed[slots[i]]);
        }
        return error(status, shown);
    }

    /** The value an out parameter points to, as a long: an int sign-extended, a float's bits, an address. */
    private static long read(MemorySegment out, MemoryLayout pointee) {
        return switch (pointee) {
            case AddressLayout l -> out.get(l, 0).address();
            case ValueLayout.OfInt l -> out.get(l, 0);
            case ValueLayout.OfLong l -> out.get(l, 0);
            case ValueLayout.OfFloat l -> Float.floatToRawIntBits(out.get(l, 0));
            default -> throw new IllegalStateException("an out parameter pointing to " + pointee);
        };
    }
}
