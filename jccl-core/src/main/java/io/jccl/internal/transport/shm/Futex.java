package io.jccl.internal.transport.shm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Linux futex wait/wake on a 32-bit word of a shared mapping, through FFM ({@code syscall(SYS_futex, ...)}), so a
 * thread in one process can sleep until a thread in another process changes the word. Without the PRIVATE flag, so
 * it works across processes. Falls back to "unavailable" on other systems; callers then poll.
 *
 * <p>Owned by: stateless, any thread. Mirrors: nothing in NCCL (NCCL spins on GPUs); the cross-process sleep the
 * shared-memory notes recommend instead of parkNanos, which another process cannot wake.
 */
final class Futex {
    private static final int FUTEX_WAIT = 0;
    private static final int FUTEX_WAKE = 1;
    private static final long SYS_FUTEX = switch (System.getProperty("os.arch")) {
        case "amd64", "x86_64" -> 202;
        case "aarch64" -> 98;
        default -> -1;
    };
    private static final MethodHandle SYSCALL = bind();

    private Futex() {
    }

    @SuppressWarnings("restricted") // FFM: JCCL is run with --enable-native-access
    private static MethodHandle bind() {
        if (SYS_FUTEX < 0 || !System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux")
                || io.jccl.internal.param.InternalProperties.FUTEX_DISABLE.get()) {
            return null;
        }
        try {
            Linker linker = Linker.nativeLinker();
            MemorySegment fn = linker.defaultLookup().find("syscall").orElse(null);
            if (fn == null) {
                return null;
            }
            FunctionDescriptor fd = FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                    ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS);
            return linker.downcallHandle(fn, fd, Linker.Option.firstVariadicArg(1));
        } catch (RuntimeException | LinkageError e) {
            return null;
        }
    }

    /** True when futexes can be used. */
    public static boolean available() {
        return SYSCALL != null;
    }

    /**
     * Sleeps while the int at {@code word} still equals {@code expected}, at most {@code timeoutNs}
     * ({@code timespec} is allocated by the caller once and reused: 16 bytes).
     */
    public static void await(MemorySegment word, int expected, long timeoutNs, MemorySegment timespec) {
        timespec.set(ValueLayout.JAVA_LONG, 0, timeoutNs / 1_000_000_000L);
        timespec.set(ValueLayout.JAVA_LONG, 8, timeoutNs % 1_000_000_000L);
        try {
            long r = (long) SYSCALL.invokeExact(SYS_FUTEX, word, FUTEX_WAIT, expected, timespec);
        } catch (Throwable t) {
            throw new IllegalStateException("futex wait failed", t);
        }
    }

    /** Wakes every thread sleeping on {@code word}. */
    public static void wakeAll(MemorySegment word) {
        try {
            long r = (long) SYSCALL.invokeExact(SYS_FUTEX, word, FUTEX_WAKE, Integer.MAX_VALUE, MemorySegment.NULL);
        } catch (Throwable t) {
            throw new IllegalStateException("futex wake failed", t);
        }
    }

    /** A reusable 16-byte timespec. */
    public static MemorySegment newTimespec(Arena arena) {
        return arena.allocate(16, 8);
    }
}
