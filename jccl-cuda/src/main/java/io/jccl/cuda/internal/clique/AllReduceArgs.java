package io.jccl.cuda.internal.clique;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The by-value argument block of every allReduce kernel, {@code struct AllReduceArgs} in
 * src/main/cuda/jccl_device.cuh (416 bytes; a test checks the PTX parameter size against {@link #LAYOUT}).
 * Each GPU of a clique owns one native segment of this layout and a one-entry kernelParams array pointing at
 * it; a launch rewrites the fields in place, so launching allocates nothing.
 *
 * <p>Thread: owned by the thread that launches the clique's collectives. Mirrors NCCL's ncclDevKernelArgs.
 */
public final class AllReduceArgs {
    /** Ranks per pointer table (kMaxRanks in the CUDA code). */
    public static final int MAX_RANKS = 8;

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            MemoryLayout.sequenceLayout(MAX_RANKS, JAVA_LONG).withName("in"),
            MemoryLayout.sequenceLayout(MAX_RANKS, JAVA_LONG).withName("out"),
            MemoryLayout.sequenceLayout(MAX_RANKS, JAVA_LONG).withName("sig"),
            MemoryLayout.sequenceLayout(MAX_RANKS, JAVA_LONG).withName("ll"),
            MemoryLayout.sequenceLayout(MAX_RANKS, JAVA_LONG).withName("push"),
            JAVA_LONG.withName("count"),
            JAVA_LONG.withName("abortFlag"),
            JAVA_INT.withName("rank"),
            JAVA_INT.withName("nRanks"),
            JAVA_LONG.withName("ctlMine"),
            JAVA_LONG.withName("fifoMine"),
            JAVA_LONG.withName("ctlNext"),
            JAVA_LONG.withName("fifoNext"),
            JAVA_LONG.withName("ctlPrev"),
            JAVA_LONG.withName("slotBytes"),
            JAVA_LONG.withName("chunkElems"),
            JAVA_LONG.withName("llSlotWords"),
            JAVA_LONG.withName("pushSlotBytes"));

    static final long IN = offset("in");
    static final long OUT = offset("out");
    static final long SIG = offset("sig");
    static final long LL = offset("ll");
    static final long PUSH = offset("push");
    static final long COUNT = offset("count");
    static final long ABORT_FLAG = offset("abortFlag");
    static final long RANK = offset("rank");
    static final long N_RANKS = offset("nRanks");
    static final long CTL_MINE = offset("ctlMine");
    static final long FIFO_MINE = offset("fifoMine");
    static final long CTL_NEXT = offset("ctlNext");
    static final long FIFO_NEXT = offset("fifoNext");
    static final long CTL_PREV = offset("ctlPrev");
    static final long SLOT_BYTES = offset("slotBytes");
    static final long CHUNK_ELEMS = offset("chunkElems");
    static final long LL_SLOT_WORDS = offset("llSlotWords");
    static final long PUSH_SLOT_BYTES = offset("pushSlotBytes");

    private final MemorySegment args;
    private final MemorySegment params;

    /** Wraps {@code args} (LAYOUT-sized, 8-aligned native memory) and {@code params} (one native pointer slot). */
    public AllReduceArgs(MemorySegment args, MemorySegment params) {
        if (args.byteSize() < LAYOUT.byteSize()) {
            throw new IllegalArgumentException("argument segment too small: " + args.byteSize());
        }
        this.args = args;
        this.params = params;
        params.set(ADDRESS, 0, args);
        args.fill((byte) 0);
    }

    private static long offset(String name) {
        return LAYOUT.byteOffset(MemoryLayout.PathElement.groupElement(name));
    }

    /** The kernelParams array to pass to cuLaunchKernel. */
    public MemorySegment params() {
        return params;
    }

    /** Sets one rank's input and output pointers. */
    public void setBuffers(int rank, long in, long out) {
        args.set(JAVA_LONG, IN + 8L * rank, in);
        args.set(JAVA_LONG, OUT + 8L * rank, out);
    }

    /** Sets one rank's signal area, LL area and push area (fixed for the life of a clique). */
    public void setAreas(int rank, long signals, long llArea, long pushArea) {
        args.set(JAVA_LONG, SIG + 8L * rank, signals);
        args.set(JAVA_LONG, LL + 8L * rank, llArea);
        args.set(JAVA_LONG, PUSH + 8L * rank, pushArea);
    }

    /** Sets the call-wide scalars. */
    public void setCall(long count, long abortFlag, int rank, int nRanks) {
        args.set(JAVA_LONG, COUNT, count);
        args.set(JAVA_LONG, ABORT_FLAG, abortFlag);
        args.set(JAVA_INT, RANK, rank);
        args.set(JAVA_INT, N_RANKS, nRanks);
    }

    /** Sets the ring connection pointers and geometry. */
    public void setRing(long ctlMine, long fifoMine, long ctlNext, long fifoNext, long ctlPrev, long slotBytes,
                        long chunkElems) {
        args.set(JAVA_LONG, CTL_MINE, ctlMine);
        args.set(JAVA_LONG, FIFO_MINE, fifoMine);
        args.set(JAVA_LONG, CTL_NEXT, ctlNext);
        args.set(JAVA_LONG, FIFO_NEXT, fifoNext);
        args.set(JAVA_LONG, CTL_PREV, ctlPrev);
        args.set(JAVA_LONG, SLOT_BYTES, slotBytes);
        args.set(JAVA_LONG, CHUNK_ELEMS, chunkElems);
    }

    /** Sets the slot sizes of the LL areas (8-byte words) and push areas (bytes) per (parity, source rank). */
    public void setSlots(long llWords, long pushBytes) {
        args.set(JAVA_LONG, LL_SLOT_WORDS, llWords);
        args.set(JAVA_LONG, PUSH_SLOT_BYTES, pushBytes);
    }

    /** Reads a long field at {@code offset} (for tests). */
    long getLong(long offset) {
        return args.get(JAVA_LONG, offset);
    }
}
