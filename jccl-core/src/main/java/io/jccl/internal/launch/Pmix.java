package io.jccl.internal.launch;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.debug.Log;
import io.jccl.internal.param.Params;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * One PMIx client session: the few calls an MPI library's bootstrap makes (PMIx_Init, Put, Commit, Fence, Get,
 * Finalize), bound through FFM from libpmix. Every native call runs on the session's own thread, one at a time,
 * while the caller waits for it under a deadline, logging every {@code JCCL_WAIT_LOG_MS} (10 s) and failing with
 * {@link Result#TIMEOUT} when it passes: a fence some process never reaches does not hang the JVM. A call that never
 * came back leaves the session unfinalized (its thread is still inside libpmix).
 *
 * <p>Owned by: one thread at a time (not thread-safe; the pmix rendezvous hands it from its placement to its
 * exchange); the native calls run on its "jccl-pmix" thread.
 * Mirrors: Open MPI's PMIx modex (OPAL_MODEX_SEND, a fence, OPAL_MODEX_RECV) in ompi_mpi_init.
 */
final class Pmix implements AutoCloseable {
    // Sizes and offsets of PMIx 4.2's structs on x86_64 Linux (pmix_common.h), checked with gcc's sizeof/offsetof:
    /** sizeof(pmix_proc_t): char nspace[PMIX_MAX_NSLEN + 1], then the uint32 rank. */
    static final long PROC_BYTES = 260;
    /** offsetof(pmix_proc_t, rank). */
    static final long PROC_RANK = 256;
    /** PMIX_MAX_NSLEN: the longest namespace, without its NUL. */
    static final int NSPACE_MAX = 255;
    /** sizeof(pmix_value_t): a uint16 type, then the data union (24 bytes, its largest member) at 8. */
    static final long VALUE_BYTES = 32;
    /** offsetof(pmix_value_t, data). */
    static final long VALUE_DATA = 8;
    /** sizeof(pmix_info_t): char key[PMIX_MAX_KEYLEN + 1], uint32 flags, then a pmix_value_t. */
    static final long INFO_BYTES = 552;
    /** offsetof(pmix_info_t, value); the flags (0: optional) lie at 512. */
    static final long INFO_VALUE = 520;
    /** PMIX_MAX_KEYLEN. */
    static final int KEY_MAX = 511;

    // pmix_data_type_t codes, the scope, status codes and the wildcard rank (pmix_common.h)
    static final short TYPE_BOOL = 1;
    static final short TYPE_STRING = 3;
    static final short TYPE_SIZE = 4;
    static final short TYPE_INT = 6;
    static final short TYPE_UINT = 11;
    static final short TYPE_UINT16 = 13;
    static final short TYPE_UINT32 = 14;
    static final short TYPE_UINT64 = 15;
    static final short TYPE_BYTE_OBJECT = 27;
    static final short TYPE_PROC_RANK = 40;
    /** PMIX_GLOBAL: the value is visible to every process of the job. */
    static final byte SCOPE_GLOBAL = 3;
    static final int ERR_TIMEOUT = -24;
    /** PMIX_RANK_WILDCARD (UINT32_MAX - 1) as a Java int: every rank, or the job itself. */
    static final int RANK_WILDCARD = -2;

    /**
     * How long past the deadline the library gets to return PMIX_ERR_TIMEOUT itself (it is passed PMIX_TIMEOUT), so
     * that the session can still be finalized: at most this, at most half the timeout.
     */
    private static final long GRACE_NANOS = TimeUnit.SECONDS.toNanos(3);
    private static final Duration FINALIZE_WAIT = Duration.ofSeconds(10);

    /** The bound functions of one opened libpmix (and the C library's free, for what PMIx_Get returns). */
    record Lib(String name, MethodHandle init, MethodHandle fin, MethodHandle put, MethodHandle commit,
               MethodHandle fence, MethodHandle get, MethodHandle valueDestruct, MethodHandle errorString,
               MethodHandle free) {
    }

    /** A native call returning a pmix_status_t. */
    @FunctionalInterface
    private interface NativeCall {
        int run() throws Throwable;
    }

    /** The library, or why it could not be opened. */
    private record Loaded(Lib lib, String failure) {
    }

    private static Loaded loaded;

    private final Lib lib;
    private final Arena arena = Arena.ofShared();
    private final ExecutorService thread = Executors.newSingleThreadExecutor(
            Thread.ofPlatform().daemon().name("jccl-pmix").factory());
    private final MemorySegment self = arena.allocate(PROC_BYTES, 4);
    private final long nagNanos;
    private long timeoutNanos;
    private long start;
    /** The end of the current step's waits, the library's own timeout's grace included (a nanoTime). */
    private long deadline;
    private String nspace;
    private int rank;
    private String stuckIn;
    private boolean finalized;

    private Pmix(Lib lib, Map<String, String> env, Duration timeout, long nagNanos) {
        this.lib = lib;
        this.nagNanos = nagNanos;
        restartClock(timeout);
        this.nspace = env.getOrDefault("PMIX_NAMESPACE", "?");
        String r = env.get("PMIX_RANK");
        this.rank = r == null ? -1 : EnvPlacement.parseInt(r, "PMIX_RANK");
    }

    /** Whether the environment is that of a PMIx client (mpirun, srun --mpi=pmix and prterun set these). */
    static boolean inEnvironment(Map<String, String> env) {
        return env.containsKey("PMIX_NAMESPACE") || env.containsKey("PMIX_RANK")
                || env.keySet().stream().anyMatch(k -> k.startsWith("PMIX_SERVER_URI"));
    }

    /** The names tried for the library: JCCL_PMIX_LIBRARY alone when set, else the usual shared object names. */
    static List<String> libraryNames(String configured) {
        if (!configured.isBlank()) {
            return List.of(configured.trim());
        }
        List<String> names = new ArrayList<>(List.of("libpmix.so.2"));
        String mapped = System.mapLibraryName("pmix");
        if (!names.contains(mapped)) {
            names.add(mapped);
        }
        return names;
    }

    /** libpmix, opened and bound once per process; empty (see {@link #loadFailure}) when it cannot be. */
    static synchronized Optional<Lib> library() {
        if (loaded == null) {
            loaded = load(libraryNames(Params.PMIX_LIBRARY.get()));
        }
        return Optional.ofNullable(loaded.lib());
    }

    /** Why {@link #library} is empty. */
    static synchronized String loadFailure() {
        return library().isPresent() ? "" : loaded.failure();
    }

    @SuppressWarnings("restricted") // FFM: JCCL runs with --enable-native-access
    private static Loaded load(List<String> names) {
        List<String> why = new ArrayList<>();
        for (String name : names) {
            SymbolLookup lookup;
            try {
                lookup = SymbolLookup.libraryLookup(name, Arena.global());
            } catch (IllegalArgumentException | IllegalCallerException e) {
                why.add(name + ": " + e.getMessage());
                continue;
            }
            try {
                return new Loaded(bind(name, lookup), null);
            } catch (IllegalArgumentException e) {
                why.add(name + ": " + e.getMessage());
            }
        }
        return new Loaded(null, String.join("; ", why));
    }

    @SuppressWarnings("restricted") // FFM: JCCL runs with --enable-native-access
    private static Lib bind(String name, SymbolLookup lookup) {
        Linker linker = Linker.nativeLinker();
        SymbolLookup libc = linker.defaultLookup();
        java.util.function.BiFunction<String, FunctionDescriptor, MethodHandle> h = (symbol, fd) ->
                linker.downcallHandle(lookup.find(symbol).orElseThrow(() -> new IllegalArgumentException(
                        "no symbol " + symbol + " (not a PMIx 4 client library?)")), fd);
        return new Lib(name,
                h.apply("PMIx_Init", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG)),
                h.apply("PMIx_Finalize", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG)),
                h.apply("PMIx_Put", FunctionDescriptor.of(JAVA_INT, JAVA_BYTE, ADDRESS, ADDRESS)),
                h.apply("PMIx_Commit", FunctionDescriptor.of(JAVA_INT)),
                h.apply("PMIx_Fence", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG)),
                h.apply("PMIx_Get", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS)),
                h.apply("PMIx_Value_destruct", FunctionDescriptor.ofVoid(ADDRESS)),
                h.apply("PMIx_Error_string", FunctionDescriptor.of(ADDRESS, JAVA_INT)),
                linker.downcallHandle(libc.find("free").orElseThrow(), FunctionDescriptor.ofVoid(ADDRESS)));
    }

    /**
     * PMIx_Init: connects to the local PMIx server (mpirun's, slurmstepd's) within {@code timeout}; the later calls
     * share that deadline until {@link #restartClock}.
     */
    static Pmix init(Lib lib, Map<String, String> env, Duration timeout) {
        return init(lib, env, timeout, TimeUnit.MILLISECONDS.toNanos(Params.WAIT_LOG_MS.get()));
    }

    /** As {@link #init(Lib, Map, Duration)}, logging every {@code nagNanos} while a call waits. */
    static Pmix init(Lib lib, Map<String, String> env, Duration timeout, long nagNanos) {
        Pmix p = new Pmix(lib, env, timeout, nagNanos);
        try {
            p.check("PMIx_Init", p.blocking("PMIx_Init", p.deadline,
                    () -> (int) lib.init().invokeExact(p.self, MemorySegment.NULL, 0L)));
        } catch (RuntimeException e) {
            p.finalized = true; // never initialised: nothing to finalize
            p.release();
            throw e;
        }
        p.nspace = p.self.getString(0);
        p.rank = p.self.get(JAVA_INT, PROC_RANK);
        return p;
    }

    /** Gives the calls from now on {@code timeout} in all (the session's next step: the placement, the exchange). */
    void restartClock(Duration timeout) {
        timeoutNanos = timeout.toNanos();
        start = System.nanoTime();
        deadline = start + timeoutNanos + Math.min(GRACE_NANOS, timeoutNanos / 2);
    }

    /** Whether {@link #close} ran or a call never returned: the session can make no more calls. */
    boolean isClosed() {
        return finalized || stuckIn != null;
    }

    /** This process's namespace (the job's name at the PMIx server). */
    String namespace() {
        return nspace;
    }

    /** This process's rank in its namespace. */
    int rank() {
        return rank;
    }

    /** PMIx_Put of a string under {@code key}, visible to the whole job after {@link #commit} and a fence. */
    void put(String key, String value) {
        check("PMIx_Put", blocking("PMIx_Put", deadline, () -> {
            MemorySegment v = arena.allocate(VALUE_BYTES, 8).fill((byte) 0);
            v.set(JAVA_SHORT, 0, TYPE_STRING);
            v.set(ADDRESS, VALUE_DATA, arena.allocateFrom(value));
            return (int) lib.put().invokeExact(SCOPE_GLOBAL, cKey(key), v);
        }));
    }

    /** PMIx_Commit: hands what was put to the local server. */
    void commit() {
        check("PMIx_Commit", blocking("PMIx_Commit", deadline,
                () -> (int) lib.commit().invokeExact()));
    }

    /** PMIx_Fence over the whole namespace, collecting the data put (PMIX_COLLECT_DATA) under the deadline. */
    void fence() {
        check("PMIx_Fence", blocking("PMIx_Fence", deadline, () -> {
            MemorySegment all = proc(RANK_WILDCARD);
            MemorySegment info = arena.allocate(2 * INFO_BYTES, 8).fill((byte) 0);
            boolInfo(info, 0, "pmix.collect", true);
            intInfo(info, 1, "pmix.timeout", timeoutSeconds());
            return (int) lib.fence().invokeExact(all, 1L, info, 2L);
        }));
    }

    /**
     * PMIx_Get of {@code key} as {@code ofRank} (or {@link #RANK_WILDCARD} for the job) put it: a {@link String}, a
     * {@link Long} for the integer types, a {@code byte[]} for a byte object.
     */
    Object get(int ofRank, String key) {
        Object[] got = new Object[1];
        check("PMIx_Get(" + key + ")", blocking("PMIx_Get(" + key + ")", deadline, () -> {
            MemorySegment info = arena.allocate(INFO_BYTES, 8).fill((byte) 0);
            intInfo(info, 0, "pmix.timeout", timeoutSeconds());
            MemorySegment out = arena.allocate(ADDRESS);
            int status = (int) lib.get().invokeExact(proc(ofRank), cKey(key), info, 1L, out);
            if (status == 0) {
                got[0] = take(out.get(ADDRESS, 0));
            }
            return status;
        }));
        return got[0];
    }

    /** {@link #get} of a number ({@code pmix.job.size}, {@code pmix.lrank}, ...). */
    long getNumber(int ofRank, String key) {
        return switch (get(ofRank, key)) {
            case Long l -> l;
            case Object o -> throw new JcclException(Result.SYSTEM_ERROR, "PMIx: " + key + " of rank " + ofRank
                    + " in namespace " + nspace + " is not a number: " + o);
        };
    }

    /** PMIx_Finalize, unless a call never came back; never throws (logs what went wrong). */
    @Override
    public void close() {
        if (!finalized && stuckIn == null) {
            finalized = true;
            try {
                int status = blocking("PMIx_Finalize", System.nanoTime() + FINALIZE_WAIT.toNanos(),
                        () -> (int) lib.fin().invokeExact(MemorySegment.NULL, 0L));
                if (status != 0) {
                    Log.warn(rank, "PMIx: PMIx_Finalize of rank %d in namespace %s failed: %s", rank, nspace,
                            errorString(status));
                }
            } catch (JcclException e) {
                Log.warn(rank, "%s", e.getMessage());
            }
        }
        if (stuckIn != null) {
            Log.warn(rank, "PMIx: rank %d in namespace %s is not finalized: %s never returned", rank, nspace,
                    stuckIn);
        }
        release();
    }

    private void release() {
        thread.shutdownNow();
        if (stuckIn == null) {
            arena.close();
        }
    }

    /**
     * Runs {@code call} on the session's thread and waits for it until {@code until} (a nanoTime), logging at the
     * session's interval (JCCL_WAIT_LOG_MS); past it, fails with TIMEOUT and marks the session stuck.
     */
    private int blocking(String op, long until, NativeCall call) {
        Callable<Integer> task = () -> {
            try {
                return call.run();
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new JcclException(Result.INTERNAL_ERROR, "PMIx: " + op + " failed: " + t, t);
            }
        };
        Future<Integer> f = thread.submit(task);
        long called = System.nanoTime();
        while (true) {
            long left = until - System.nanoTime();
            if (left <= 0) {
                f.cancel(false);
                stuckIn = op;
                throw timeout(op, "never returned");
            }
            try {
                return f.get(Math.min(left, nagNanos), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                if (until - System.nanoTime() > 0) {
                    Log.warn(rank, "PMIx: rank %d in namespace %s still waiting in %s after %d s", rank, nspace, op,
                            TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - called));
                }
            } catch (ExecutionException e) {
                Throwable c = e.getCause();
                if (c instanceof RuntimeException r) {
                    throw r;
                }
                throw new JcclException(Result.INTERNAL_ERROR, "PMIx: " + op + " failed: " + c, c);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                stuckIn = op;
                throw new JcclException(Result.ABORTED, "PMIx: interrupted in " + op + " (rank " + rank
                        + ", namespace " + nspace + ")");
            }
        }
    }

    private void check(String op, int status) {
        if (status == 0) {
            return;
        }
        if (status == ERR_TIMEOUT) {
            throw timeout(op, "returned " + errorString(status));
        }
        throw new JcclException(Result.SYSTEM_ERROR, "PMIx: " + op + " of rank " + rank + " in namespace " + nspace
                + " failed: " + errorString(status));
    }

    private JcclException timeout(String op, String how) {
        return new JcclException(Result.TIMEOUT, "PMIx: " + op + " of rank " + rank + " in namespace " + nspace
                + " timed out after " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms ("
                + Params.TIMEOUT_MS.name() + "=" + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + ", " + how
                + "): a process of the job never reached it, or the PMIx server (mpirun, slurmstepd) is gone");
    }

    @SuppressWarnings("restricted") // FFM: PMIx_Error_string returns a static NUL-terminated string
    private String errorString(int status) {
        try {
            MemorySegment s = (MemorySegment) lib.errorString().invokeExact(status);
            return (s.equals(MemorySegment.NULL) ? "?" : s.reinterpret(256).getString(0)) + " (" + status + ")";
        } catch (Throwable t) {
            return "status " + status;
        }
    }

    /** A pmix_proc_t of this namespace and {@code r}. */
    private MemorySegment proc(int r) {
        MemorySegment p = arena.allocate(PROC_BYTES, 4).fill((byte) 0);
        MemorySegment.copy(self, 0, p, 0, NSPACE_MAX + 1);
        p.set(JAVA_INT, PROC_RANK, r);
        return p;
    }

    private MemorySegment cKey(String key) {
        if (key.getBytes(StandardCharsets.UTF_8).length > KEY_MAX) {
            throw new IllegalArgumentException("PMIx key too long: " + key);
        }
        return arena.allocateFrom(key);
    }

    private static void boolInfo(MemorySegment info, int i, String key, boolean v) {
        MemorySegment value = infoKey(info, i, key);
        value.set(JAVA_SHORT, 0, TYPE_BOOL);
        value.set(JAVA_BYTE, VALUE_DATA, (byte) (v ? 1 : 0));
    }

    private static void intInfo(MemorySegment info, int i, String key, int v) {
        MemorySegment value = infoKey(info, i, key);
        value.set(JAVA_SHORT, 0, TYPE_INT);
        value.set(JAVA_INT, VALUE_DATA, v);
    }

    /** Writes the key of {@code info[i]}; returns its value. */
    private static MemorySegment infoKey(MemorySegment info, int i, String key) {
        MemorySegment one = info.asSlice(i * INFO_BYTES, INFO_BYTES);
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        MemorySegment.copy(k, 0, one, JAVA_BYTE, 0, k.length);
        return one.asSlice(INFO_VALUE, VALUE_BYTES);
    }

    /** PMIX_TIMEOUT for the next call: the seconds left of the session's timeout, rounded up, at least 1. */
    private int timeoutSeconds() {
        long left = start + timeoutNanos - System.nanoTime();
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, (left + 999_999_999L) / 1_000_000_000L));
    }

    /** Reads the pmix_value_t PMIx_Get allocated, then releases it (PMIX_VALUE_RELEASE: destruct, free). */
    @SuppressWarnings("restricted") // FFM: the value and what it points to are PMIx's allocations
    private Object take(MemorySegment ptr) throws Throwable {
        MemorySegment v = ptr.reinterpret(VALUE_BYTES);
        try {
            int type = v.get(JAVA_SHORT, 0) & 0xffff;
            return switch (type) {
                case TYPE_STRING -> v.get(ADDRESS, VALUE_DATA).reinterpret(Long.MAX_VALUE).getString(0);
                case TYPE_BYTE_OBJECT -> v.get(ADDRESS, VALUE_DATA).reinterpret(v.get(JAVA_LONG, VALUE_DATA + 8))
                        .toArray(JAVA_BYTE);
                case TYPE_UINT16 -> (long) (v.get(JAVA_SHORT, VALUE_DATA) & 0xffff);
                case TYPE_UINT32, TYPE_UINT, TYPE_PROC_RANK -> v.get(JAVA_INT, VALUE_DATA) & 0xffff_ffffL;
                case TYPE_INT -> (long) v.get(JAVA_INT, VALUE_DATA);
                case TYPE_UINT64, TYPE_SIZE -> v.get(JAVA_LONG, VALUE_DATA);
                default -> "a value of PMIx type " + type;
            };
        } finally {
            lib.valueDestruct().invokeExact(v);
            lib.free().invokeExact(v);
        }
    }
}
