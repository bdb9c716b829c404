import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.Jccl;
import io.jccl.RedOp;
import io.jccl.UniqueId;
import io.jccl.bench.OversubscriptionBench;
import io.jccl.bench.PairedSamples;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * JCCL's allReduce and Open MPI's MPI_Allreduce in the same processes, on the same buffers, in alternating ~30 ms
 * phases: started by mpirun, each rank calls Open MPI through FFM (libmpi.so.40), joins a JCCL communicator whose
 * unique id rank 0 broadcasts with MPI_Bcast (the way NCCL is used beside MPI), then times both libraries round after
 * round. Both sides of every round's ratio see the same host state, which two separate jobs on a 2-vCPU VM do not (its
 * rows swing 2-3x from run to run). Run by bench/sweeps/compare-openmpi.sh --same-process; needs mpirun's
 * {@code --mca opal_signal ""} (Open MPI's SIGSEGV/SIGBUS handlers would replace the JVM's).
 * Args: MIN_BYTES MAX_BYTES FACTOR ROUNDS [registered|plain [PHASE_MS]] (registered: JCCL's and Open MPI's buffers come
 * from comm.allocate, so JCCL takes its single-copy path).
 */
public final class SameProcessCompare {
    private static final Linker LINKER = Linker.nativeLinker();
    private static SymbolLookup mpi;
    private static MethodHandle allreduce;
    private static MethodHandle barrier;
    private static MemorySegment commWorld;
    private static MemorySegment mpiFloat;
    private static MemorySegment mpiDouble;
    private static MemorySegment opSum;
    private static MemorySegment opMax;

    public static void main(String[] args) throws Throwable {
        if (args.length < 4) {
            System.err.println("usage: mpirun -np N --mca opal_signal \"\" ./jccl java -cp bench/target/jccl-bench.jar "
                    + "bench/openmpi/SameProcessCompare.java MIN_BYTES MAX_BYTES FACTOR ROUNDS [registered|plain "
                    + "[PHASE_MS]]");
            System.exit(2);
        }
        long minb = Long.parseLong(args[0]);
        long maxb = Long.parseLong(args[1]);
        long factor = Long.parseLong(args[2]);
        int rounds = Integer.parseInt(args[3]);
        boolean registered = args.length > 4 && args[4].equals("registered");
        double phaseNs = (args.length > 5 ? Double.parseDouble(args[5]) : 30) * 1e6;
        Arena arena = Arena.global();
        mpi = SymbolLookup.libraryLookup("libmpi.so.40", arena);
        commWorld = mpi.findOrThrow("ompi_mpi_comm_world");
        mpiFloat = mpi.findOrThrow("ompi_mpi_float");
        mpiDouble = mpi.findOrThrow("ompi_mpi_double");
        MemorySegment mpiByte = mpi.findOrThrow("ompi_mpi_byte");
        opSum = mpi.findOrThrow("ompi_mpi_op_sum");
        opMax = mpi.findOrThrow("ompi_mpi_op_max");
        MethodHandle init = fn("MPI_Init", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        MethodHandle commRank = fn("MPI_Comm_rank", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        MethodHandle commSize = fn("MPI_Comm_size", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        MethodHandle bcast = fn("MPI_Bcast",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
        MethodHandle finalizeMpi = fn("MPI_Finalize", FunctionDescriptor.of(JAVA_INT));
        allreduce = fn("MPI_Allreduce",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
        barrier = fn("MPI_Barrier", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        check((int) init.invokeExact(MemorySegment.NULL, MemorySegment.NULL), "MPI_Init");
        MemorySegment out = arena.allocate(JAVA_INT);
        check((int) commRank.invokeExact(commWorld, out), "MPI_Comm_rank");
        int rank = out.get(JAVA_INT, 0);
        check((int) commSize.invokeExact(commWorld, out), "MPI_Comm_size");
        int n = out.get(JAVA_INT, 0);
        MemorySegment idBytes = arena.allocate(UniqueId.BYTES);
        if (rank == 0) {
            MemorySegment.copy(Jccl.uniqueId().toBytes(), 0, idBytes, ValueLayout.JAVA_BYTE, 0, UniqueId.BYTES);
        }
        check((int) bcast.invokeExact(idBytes, UniqueId.BYTES, mpiByte, 0, commWorld), "MPI_Bcast");
        UniqueId id = UniqueId.fromBytes(idBytes.toArray(ValueLayout.JAVA_BYTE));
        List<Long> sizes = new ArrayList<>();
        for (long b = minb; b <= maxb; b *= factor) {
            sizes.add(b / 4 * 4);
        }
        long wrong = 0;
        // reference: JCCL's time, test: Open MPI's, so the ratios read as JCCL's speed-up
        PairedSamples[] samples = new PairedSamples[sizes.size()];
        for (int s = 0; s < sizes.size(); s++) {
            samples[s] = new PairedSamples(rounds);
        }
        int[] calls = new int[sizes.size()];
        try (Communicator comm = Communicator.init(id, n, rank); Arena bufs = Arena.ofShared()) {
            // registered: both libraries use buffers from comm.allocate (shared memory peers map; JCCL reads them
            // directly), else plain native memory
            MemorySegment send = registered ? comm.allocate(maxb) : bufs.allocate(maxb, 64);
            MemorySegment recv = registered ? comm.allocate(maxb) : bufs.allocate(maxb, 64);
            for (long i = 0; i < maxb / 4; i++) {
                send.setAtIndex(ValueLayout.JAVA_FLOAT, i, rank + 1);
            }
            float want = n * (n + 1) / 2f;
            for (int s = 0; s < sizes.size(); s++) {
                long count = sizes.get(s) / 4;
                // warm-up: JCCL's JIT needs thousands of calls before its time is the steady one
                int least = (int) Math.max(4, Math.min(2000, (64L << 20) / sizes.get(s)));
                double t = 0;
                for (int k = 0; k < 8; k++) {
                    t = maxMpi(Math.max(phase(false, comm, send, recv, count, least),
                            phase(true, comm, send, recv, count, least)));
                }
                phase(true, comm, send, recv, count, 1);
                wrong += OversubscriptionBench.countWrong(recv, count, want);
                phase(false, comm, send, recv, count, 1);
                wrong += OversubscriptionBench.countWrong(recv, count, want);
                calls[s] = (int) Math.max(3, Math.min(1_000_000, phaseNs / Math.max(1, t)));
            }
            for (int r = -2; r < rounds; r++) {
                for (int s = 0; s < sizes.size(); s++) {
                    long count = sizes.get(s) / 4;
                    boolean mpiFirst = ((r + s) & 1) == 0;
                    double a = 0;
                    double b = 0;
                    for (int half = 0; half < 2; half++) {
                        if (mpiFirst == (half == 0)) {
                            a = avgMpi(phase(true, comm, send, recv, count, calls[s]), n);
                        } else {
                            b = avgMpi(phase(false, comm, send, recv, count, calls[s]), n);
                        }
                    }
                    if (r >= 0) {
                        samples[s].add(b, a);
                    }
                }
            }
        }
        long wrongAll = (long) reduceMpi(wrong, opSum);
        if (rank == 0) {
            System.out.printf("# allReduce float sum, out of place, %d ranks: JCCL and Open MPI in the same "
                    + "processes, alternating phases of ~%.0f ms, %d round(s), %s buffers; us per call (mean over "
                    + "ranks), medians%n",
                    n, phaseNs / 1e6, rounds, registered ? "registered (comm.allocate)" : "plain native");
            System.out.printf("# %10s %7s %10s %10s %8s %8s %8s %8s%n", "bytes", "calls", "ompi_us", "jccl_us",
                    "busbw_x", "pair_p10", "pair_med", "pair_p90");
            for (int s = 0; s < sizes.size(); s++) {
                PairedSamples p = samples[s];
                System.out.printf("  %10d %7d %10.2f %10.2f %8.2f %8.2f %8.2f %8.2f%n", sizes.get(s), calls[s],
                        p.testMedian() / 1e3, p.referenceMedian() / 1e3, p.ratioOfMedians(), p.pairedRatio(0.1),
                        p.pairedRatio(0.5), p.pairedRatio(0.9));
            }
            System.out.printf("# busbw_x and pair_*: Open MPI time / JCCL time (JCCL busbw / Open MPI busbw; above 1: "
                    + "JCCL faster), of the medians and per round (10th, 50th, 90th percentile); wrong elements: %d%n",
                    wrongAll);
        }
        check((int) finalizeMpi.invokeExact(), "MPI_Finalize");
        System.exit(wrongAll == 0 ? 0 : 1);
    }

    private static MethodHandle fn(String name, FunctionDescriptor d) {
        return LINKER.downcallHandle(mpi.findOrThrow(name), d);
    }

    private static void check(int rc, String call) {
        if (rc != 0) {
            throw new IllegalStateException(call + " returned " + rc);
        }
    }

    /** {@code calls} allReduces of one library after a barrier of that library; returns ns per call. */
    private static double phase(boolean useMpi, Communicator comm, MemorySegment send, MemorySegment recv, long count,
                                int calls) throws Throwable {
        if (useMpi) {
            check((int) barrier.invokeExact(commWorld), "MPI_Barrier");
            long t0 = System.nanoTime();
            for (int i = 0; i < calls; i++) {
                check((int) allreduce.invokeExact(send, recv, (int) count, mpiFloat, opSum, commWorld),
                        "MPI_Allreduce");
            }
            return (System.nanoTime() - t0) / (double) calls;
        }
        comm.barrier();
        long t0 = System.nanoTime();
        for (int i = 0; i < calls; i++) {
            comm.allReduce(send, recv, count, DataType.FLOAT32, RedOp.SUM);
        }
        return (System.nanoTime() - t0) / (double) calls;
    }

    private static double reduceMpi(double v, MemorySegment op) throws Throwable {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment in = a.allocate(ValueLayout.JAVA_DOUBLE);
            MemorySegment res = a.allocate(ValueLayout.JAVA_DOUBLE);
            in.set(ValueLayout.JAVA_DOUBLE, 0, v);
            check((int) allreduce.invokeExact(in, res, 1, mpiDouble, op, commWorld), "MPI_Allreduce");
            return res.get(ValueLayout.JAVA_DOUBLE, 0);
        }
    }

    private static double maxMpi(double v) throws Throwable {
        return reduceMpi(v, opMax);
    }

    private static double avgMpi(double v, int n) throws Throwable {
        return reduceMpi(v, opSum) / n;
    }

}
