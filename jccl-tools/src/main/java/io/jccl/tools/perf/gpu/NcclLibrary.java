package io.jccl.tools.perf.gpu;

import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.Result;
import io.jccl.cuda.internal.ffm.NativeLibrary;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * NVIDIA's NCCL ({@code libnccl.so.2}) through FFM, for perf's side-by-side comparisons with JCCL
 * ({@code --backend nccl|both}) in one process on the same buffers and streams. Device buffers are passed as
 * addresses, streams and communicators as native handles ({@code CudaStream.handle()} is a {@code cudaStream_t}).
 * Every ncclResult_t is checked: a failure becomes a {@link JcclException} with the {@link Result} of the same number
 * and NCCL's own error string.
 *
 * <p>Where the library comes from: {@link #load()} takes {@code JCCL_NCCL_LIBRARY} (environment) or
 * {@code jccl.nccl.library} (system property), else the {@code nvidia.nccl} Python package's copy (as installed
 * with PyTorch), else {@code libnccl.so.2} from the library path.
 *
 * <p>Thread: immutable; NCCL's own rules apply (one thread driving several GPUs must use group calls).
 */
final class NcclLibrary {
    /** Bytes in an ncclUniqueId. */
    public static final int UNIQUE_ID_BYTES = 128;
    private static final StructLayout UNIQUE_ID = MemoryLayout.structLayout(
            MemoryLayout.sequenceLayout(UNIQUE_ID_BYTES, JAVA_BYTE).withName("internal")).withName("ncclUniqueId");
    private static final String PYTHON_DISCOVERY = "import nvidia.nccl;print(list(nvidia.nccl.__path__)[0])";

    private final NativeLibrary lib;
    private final MethodHandle getVersion;
    private final MethodHandle getUniqueId;
    private final MethodHandle commInitAll;
    private final MethodHandle commInitRank;
    private final MethodHandle commDestroy;
    private final MethodHandle allReduce;
    private final MethodHandle allGather;
    private final MethodHandle reduceScatter;
    private final MethodHandle broadcast;
    private final MethodHandle reduce;
    private final MethodHandle send;
    private final MethodHandle recv;
    private final MethodHandle groupStart;
    private final MethodHandle groupEnd;
    private final MethodHandle getErrorString;

    private NcclLibrary(NativeLibrary lib) {
        this.lib = lib;
        getVersion = bind("ncclGetVersion", ADDRESS);
        getUniqueId = bind("ncclGetUniqueId", ADDRESS);
        commInitAll = bind("ncclCommInitAll", ADDRESS, JAVA_INT, ADDRESS);
        commInitRank = bind("ncclCommInitRank", ADDRESS, JAVA_INT, UNIQUE_ID, JAVA_INT);
        commDestroy = bind("ncclCommDestroy", ADDRESS);
        allReduce = bind("ncclAllReduce", JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS);
        allGather = bind("ncclAllGather", JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, ADDRESS, ADDRESS);
        reduceScatter = bind("ncclReduceScatter", JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS,
                ADDRESS);
        broadcast = bind("ncclBroadcast", JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS);
        reduce = bind("ncclReduce", JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS);
        send = bind("ncclSend", JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS);
        recv = bind("ncclRecv", JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS);
        groupStart = bind("ncclGroupStart");
        groupEnd = bind("ncclGroupEnd");
        getErrorString = lib.bind("ncclGetErrorString", FunctionDescriptor.of(ADDRESS, JAVA_INT));
    }

    private MethodHandle bind(String symbol, MemoryLayout... args) {
        return lib.bind(symbol, FunctionDescriptor.of(JAVA_INT, args));
    }

    /** Loads NCCL from {@link #resolvePath()}. Never throws; calls fail with SYSTEM_ERROR when it is missing. */
    public static NcclLibrary load() {
        return load(resolvePath());
    }

    /** Loads NCCL from a path or library name. */
    public static NcclLibrary load(String path) {
        return new NcclLibrary(NativeLibrary.open(path, "NCCL not found: could not load " + path
                + "; set JCCL_NCCL_LIBRARY to the path of libnccl.so.2 (pip package nvidia-nccl-cu13 installs one)"));
    }

    /** JCCL_NCCL_LIBRARY, then -Djccl.nccl.library, then the nvidia.nccl Python package, then "libnccl.so.2". */
    public static String resolvePath() {
        String env = System.getenv("JCCL_NCCL_LIBRARY");
        if (env != null && !env.isBlank()) {
            return env;
        }
        String prop = io.jccl.internal.param.InternalProperties.NCCL_LIBRARY.get();
        if (prop != null && !prop.isBlank()) {
            return prop;
        }
        return discoverFromPython().orElse("libnccl.so.2");
    }

    /** {@code <nvidia.nccl package>/lib/libnccl.so.2} when python3 and the package are installed. */
    public static Optional<String> discoverFromPython() {
        try {
            Process p = new ProcessBuilder("python3", "-c", PYTHON_DISCOVERY).redirectErrorStream(false).start();
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return Optional.empty();
            }
            String dir = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            Path lib = Path.of(dir, "lib", "libnccl.so.2");
            return p.exitValue() == 0 && !dir.isEmpty() && Files.isRegularFile(lib) ? Optional.of(lib.toString())
                    : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /** The registration calls of {@code -R 1/2}, bound at their first use (an older NCCL may lack them). */
    NcclRegistration registration() {
        return new NcclRegistration(this, lib);
    }

    /** True when the library was loaded. */
    public boolean isLoaded() {
        return lib.isLoaded();
    }

    /** The path or name it was loaded from. */
    public String path() {
        return lib.name();
    }

    /** NCCL's version code (22809 for 2.28.9). */
    public int version() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(JAVA_INT);
            check((int) getVersion.invokeExact(v), "ncclGetVersion");
            return v.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** "2.28.9" from {@link #version()}. */
    public String versionString() {
        int v = version();
        return v >= 10000 ? (v / 10000) + "." + (v % 10000 / 100) + "." + (v % 100)
                : (v / 1000) + "." + (v % 1000 / 100) + "." + (v % 100);
    }

    /** A new ncclUniqueId (128 bytes) for {@link #commInitRank}. */
    public byte[] uniqueId() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment id = a.allocate(UNIQUE_ID);
            check((int) getUniqueId.invokeExact(id), "ncclGetUniqueId");
            return id.toArray(JAVA_BYTE);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** One communicator per listed CUDA device ordinal, in one call (single process, like GpuCommunicator.initAll). */
    public MemorySegment[] commInitAll(int... deviceOrdinals) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment comms = a.allocate(ADDRESS, deviceOrdinals.length);
            MemorySegment devs = a.allocateFrom(JAVA_INT, deviceOrdinals);
            check((int) commInitAll.invokeExact(comms, deviceOrdinals.length, devs), "ncclCommInitAll");
            MemorySegment[] out = new MemorySegment[deviceOrdinals.length];
            for (int i = 0; i < out.length; i++) {
                out[i] = comms.getAtIndex(ADDRESS, i);
            }
            return out;
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** Joins communicator {@code id} as {@code rank} of {@code nRanks} (the current CUDA device is used). */
    public MemorySegment commInitRank(int nRanks, byte[] id, int rank) {
        if (id.length != UNIQUE_ID_BYTES) {
            throw new JcclException(Result.INVALID_ARGUMENT, "an ncclUniqueId has 128 bytes, got " + id.length);
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment comm = a.allocate(ADDRESS);
            MemorySegment uid = a.allocate(UNIQUE_ID);
            uid.copyFrom(MemorySegment.ofArray(id));
            check((int) commInitRank.invokeExact(comm, nRanks, uid, rank), "ncclCommInitRank");
            return comm.get(ADDRESS, 0);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    public void commDestroy(MemorySegment comm) {
        try {
            check((int) commDestroy.invokeExact(comm), "ncclCommDestroy");
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    public void allReduce(long sendBuf, long recvBuf, long count, DataType type, RedOp op, MemorySegment comm,
                          MemorySegment stream) {
        try {
            check((int) allReduce.invokeExact(sendBuf, recvBuf, count, type.ncclId(), opId(op), comm, stream),
                    "ncclAllReduce");
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    public void allGather(long sendBuf, long recvBuf, long sendCount, DataType type, MemorySegment comm,
                          MemorySegment stream) {
        try {
            check((int) allGather.invokeExact(sendBuf, recvBuf, sendCount, type.ncclId(), comm, stream),
                    "ncclAllGather");
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    public void reduceScatter(long sendBuf, long recvBuf, long recvCount, DataType type, RedOp op, MemorySegment comm,
                              MemorySegment stream) {
        try {
            check((int) reduceScatter.invokeExact(sendBuf, recvBuf, recvCount, type.ncclId(), opId(op), comm, stream),
                    "ncclReduceScatter");
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    public void broadcast(long sendBuf, long recvBuf, long count, DataType type, int root, MemorySegment comm,
                          MemorySegment stream) {
        try {
            check((int) broadcast.invokeExact(sendBuf, recvBuf, count, type.ncclId(), root, comm, stream),
                    "ncclBroadcast");
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    public void reduce(long sendBuf, long recvBuf, long count, DataType type, RedOp op, int root, MemorySegment comm,
                       MemorySegment stream) {
        try {
            check((int) reduce.invokeExact(sendBuf, recvBuf, count, type.ncclId(), opId(op), root, comm, stream),
                    "ncclReduce");
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    public void send(long buf, long count, DataType type, int peer, MemorySegment comm, MemorySegment stream) {
        try {
            check((int) send.invokeExact(buf, count, type.ncclId(), peer, comm, stream), "ncclSend");
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    public void recv(long buf, long count, DataType type, int peer, MemorySegment comm, MemorySegment stream) {
        try {
            check((int) recv.invokeExact(buf, count, type.ncclId(), peer, comm, stream), "ncclRecv");
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    public void groupStart() {
        try {
            check((int) groupStart.invokeExact(), "ncclGroupStart");
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    public void groupEnd() {
        try {
            check((int) groupEnd.invokeExact(), "ncclGroupEnd");
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** NCCL's description of an ncclResult_t. */
    public String errorString(int result) {
        try {
            return NativeLibrary.cString((MemorySegment) getErrorString.invokeExact(result));
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    private static int opId(RedOp op) {
        if (op.kind() == RedOp.Kind.PRE_MUL_SUM) {
            throw new JcclException(Result.INVALID_ARGUMENT, "preMulSum needs ncclRedOpCreatePreMulSum, which this "
                    + "binding does not provide");
        }
        return op.kind().ncclId();
    }

    /** Throws a JcclException with NCCL's result and description when {@code rc} is not ncclSuccess. */
    void check(int rc, String call) {
        if (rc != 0) {
            Result r = Result.INTERNAL_ERROR;
            for (Result x : Result.values()) {
                if (x.code() == rc) {
                    r = x;
                }
            }
            String text;
            try {
                text = errorString(rc);
            } catch (RuntimeException e) {
                text = "no description";
            }
            throw new JcclException(r, call + " failed: ncclResult " + rc + " (" + text + ")");
        }
    }
}
