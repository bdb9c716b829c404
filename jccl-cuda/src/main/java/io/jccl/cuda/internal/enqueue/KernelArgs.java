package io.jccl.cuda.internal.enqueue;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The by-value argument block of every kernel, {@code struct KernelArgs} in src/main/cuda/jccl_device.cuh (1032
 * bytes; a test checks every kernel's PTX parameter size against {@link #LAYOUT}). Each communicator owns one
 * native segment of this layout and a one-entry kernelParams array pointing at it; a launch rewrites the per-call
 * fields in place (the driver copies the block at launch, also when a stream is being captured into a graph), so
 * launching allocates nothing.
 *
 * <p>Thread: owned by the thread that issues the communicator's calls. Mirrors NCCL's ncclDevKernelArgs.
 */
public final class KernelArgs {
    /** Ranks per pointer table (kMaxRanks). */
    public static final int MAX_RANKS = 8;
    /** Operations of one fused p2p kernel (kMaxP2pOps). */
    public static final int MAX_P2P_OPS = 16;
    /** Distinct ring orders (kMaxRings); ring channel b follows ring b % nRings. */
    public static final int MAX_RINGS = 16;

    /** struct P2pOp. */
    public static final StructLayout P2P_OP = MemoryLayout.structLayout(
            JAVA_LONG.withName("ptr"), JAVA_LONG.withName("src"), JAVA_LONG.withName("bytes"),
            JAVA_INT.withName("peer"), JAVA_SHORT.withName("kind"), JAVA_SHORT.withName("nBlocks"));

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            MemoryLayout.sequenceLayout(MAX_RANKS, JAVA_LONG).withName("sig"),
            MemoryLayout.sequenceLayout(MAX_RANKS, JAVA_LONG).withName("ll"),
            MemoryLayout.sequenceLayout(MAX_RANKS, JAVA_LONG).withName("push"),
            MemoryLayout.sequenceLayout(MAX_RANKS, JAVA_LONG).withName("conn"),
            JAVA_LONG.withName("in"),
            JAVA_LONG.withName("out"),
            JAVA_LONG.withName("count"),
            JAVA_LONG.withName("abortArea"),
            JAVA_INT.withName("rank"),
            JAVA_INT.withName("nRanks"),
            JAVA_INT.withName("coll"),
            JAVA_INT.withName("root"),
            JAVA_INT.withName("op"),
            JAVA_INT.withName("flags"),
            JAVA_DOUBLE.withName("scaleF"),
            JAVA_LONG.withName("scaleI"),
            JAVA_LONG.withName("slotBytes"),
            JAVA_LONG.withName("chunkBytes"),
            JAVA_LONG.withName("llSlotWords"),
            JAVA_LONG.withName("pushSlotBytes"),
            JAVA_INT.withName("connChannels"),
            JAVA_INT.withName("nP2p"),
            MemoryLayout.sequenceLayout(MAX_P2P_OPS, P2P_OP).withName("p2p"),
            MemoryLayout.sequenceLayout(MAX_RINGS, JAVA_INT).withName("ring"),
            JAVA_INT.withName("nRings"),
            JAVA_INT.withName("remoteMask"),
            JAVA_LONG.withName("netConnOwn"),
            MemoryLayout.sequenceLayout(MAX_RANKS, JAVA_LONG).withName("win"),
            MemoryLayout.sequenceLayout(2, JAVA_INT).withName("tree"));

    /** P2pOp.kind values. */
    public static final short P2P_SEND = 0;
    public static final short P2P_RECV = 1;
    public static final short P2P_COPY = 2;
    /** Waits until the 32-bit word at ptr reaches src (wrapping compare): waitSignal. */
    public static final short P2P_WAIT = 3;
    /** Adds src to the peer's 32-bit signal word at ptr (release, system scope): putSignal's signal. */
    public static final short P2P_SIGNAL = 4;
    /** flags bits. */
    public static final int FLAG_PRE_SCALE = 1;
    public static final int FLAG_POST_DIV = 2;
    public static final int FLAG_TWO_SHOT = 4;
    public static final int FLAG_DEEP4 = 8;
    public static final int FLAG_DEEP8 = 16;
    public static final int FLAG_PULL_GATHER = 32;
    public static final int FLAG_FENCED_PUBLISH = 64;
    /**
     * Pull kernels on a window (NCCL's symmetric kernels): the ranks publish their buffers as offsets in their
     * windows and read a peer's at its window's base as mapped here ({@link #setWindow}) plus its offset.
     */
    public static final int FLAG_WINDOW = 128;
    /** Ring kernels across hosts: the LL protocol over the connections' last channel (one block). */
    public static final int FLAG_NET_LL = 256;
    /**
     * allReduce on NCCL's tree ({@link #setTrees}): the ring reduction kernel with two blocks per channel, one
     * reducing up the tree and one sending the result down.
     */
    public static final int FLAG_TREE = 512;

    static final long SIG = offset("sig");
    static final long LL = offset("ll");
    static final long PUSH = offset("push");
    static final long CONN = offset("conn");
    static final long IN = offset("in");
    static final long OUT = offset("out");
    static final long COUNT = offset("count");
    static final long ABORT_AREA = offset("abortArea");
    static final long RANK = offset("rank");
    static final long N_RANKS = offset("nRanks");
    static final long COLL = offset("coll");
    static final long ROOT = offset("root");
    static final long OP = offset("op");
    static final long FLAGS = offset("flags");
    static final long SCALE_F = offset("scaleF");
    static final long SCALE_I = offset("scaleI");
    static final long SLOT_BYTES = offset("slotBytes");
    static final long CHUNK_BYTES = offset("chunkBytes");
    static final long LL_SLOT_WORDS = offset("llSlotWords");
    static final long PUSH_SLOT_BYTES = offset("pushSlotBytes");
    static final long CONN_CHANNELS = offset("connChannels");
    static final long N_P2P = offset("nP2p");
    static final long P2P = offset("p2p");
    static final long RING = offset("ring");
    static final long N_RINGS = offset("nRings");
    static final long REMOTE_MASK = offset("remoteMask");
    static final long NET_CONN_OWN = offset("netConnOwn");
    static final long WIN = offset("win");
    static final long TREE = offset("tree");

    private final MemorySegment args;
    private final MemorySegment params;

    /** Wraps {@code args} (LAYOUT-sized, 8-aligned native memory) and {@code params} (one native pointer slot). */
    public KernelArgs(MemorySegment args, MemorySegment params) {
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

    /** Rank {@code rank}'s areas as this GPU addresses them (fixed for the life of a communicator). */
    public void setAreas(int rank, long signals, long llArea, long pushArea, long connArea) {
        args.set(JAVA_LONG, SIG + 8L * rank, signals);
        args.set(JAVA_LONG, LL + 8L * rank, llArea);
        args.set(JAVA_LONG, PUSH + 8L * rank, pushArea);
        args.set(JAVA_LONG, CONN + 8L * rank, connArea);
    }

    /**
     * The peers on other hosts (fixed for the life of a communicator): bit r of {@code remoteMask} set for each, whose
     * connections use this rank's pinned connection area at {@code netConnOwn} (and {@link #setAreas}' conn entry of
     * r is the mirror of r's area); 0 and 0 when every rank is on this host.
     */
    public void setNet(int remoteMask, long netConnOwn) {
        args.set(JAVA_INT, REMOTE_MASK, remoteMask);
        args.set(JAVA_LONG, NET_CONN_OWN, netConnOwn);
    }

    /**
     * The window of the next {@link #FLAG_WINDOW} call: {@code bases[r]} is rank r's window as this GPU addresses it
     * (this rank's own memory, a peer's by peer access or its CUDA IPC mapping).
     */
    public void setWindow(long[] bases) {
        for (int r = 0; r < bases.length; r++) {
            args.set(JAVA_LONG, WIN + 8L * r, bases[r]);
        }
    }

    /** The fixed per-communicator fields. */
    public void setCommunicator(int rank, int nRanks, long abortArea, long slotBytes, long llSlotWords,
                                long pushSlotBytes, int connChannels) {
        args.set(JAVA_INT, RANK, rank);
        args.set(JAVA_INT, N_RANKS, nRanks);
        args.set(JAVA_LONG, ABORT_AREA, abortArea);
        args.set(JAVA_LONG, SLOT_BYTES, slotBytes);
        args.set(JAVA_LONG, LL_SLOT_WORDS, llSlotWords);
        args.set(JAVA_LONG, PUSH_SLOT_BYTES, pushSlotBytes);
        args.set(JAVA_INT, CONN_CHANNELS, connChannels);
    }

    /**
     * The ring orders the ring kernels follow (fixed for the life of a communicator): {@code rings[i][p]} is the rank
     * at position p of ring i, every ring a permutation of the ranks; ring channel b follows ring b % rings.length.
     * Each ring is written as one int, 4 bits per position.
     */
    public void setRings(int[][] rings) {
        if (rings.length < 1 || rings.length > MAX_RINGS) {
            throw new IllegalArgumentException("1 to " + MAX_RINGS + " rings, got " + rings.length);
        }
        int n = args.get(JAVA_INT, N_RANKS);
        for (int i = 0; i < rings.length; i++) {
            boolean[] seen = new boolean[n];
            int packed = 0;
            if (rings[i].length != n) {
                throw new IllegalArgumentException("ring " + i + " has " + rings[i].length + " ranks, not " + n);
            }
            for (int p = 0; p < n; p++) {
                int r = rings[i][p];
                if (r < 0 || r >= n || seen[r]) {
                    throw new IllegalArgumentException("ring " + i + " is not a permutation of 0.." + (n - 1) + ": "
                            + java.util.Arrays.toString(rings[i]));
                }
                seen[r] = true;
                packed |= r << (4 * p);
            }
            args.set(JAVA_INT, RING + 4L * i, packed);
        }
        args.set(JAVA_INT, N_RINGS, rings.length);
    }

    /**
     * This rank's links in the two trees of the tree allReduce (fixed for the life of a communicator):
     * {@code links[which]} is {parent, child, child, child}, -1 for none (ChainTrees' answer), each tree written as
     * one int of four bytes, 0xFF for none.
     */
    public void setTrees(int[][] links) {
        int n = args.get(JAVA_INT, N_RANKS);
        for (int which = 0; which < 2; which++) {
            int packed = 0;
            for (int i = 0; i < 4; i++) {
                int r = links[which][i];
                if (r < -1 || r >= n || r == args.get(JAVA_INT, RANK)) {
                    throw new IllegalArgumentException("tree " + which + " link " + i + " is rank " + r
                            + ", outside the " + n + " ranks or this rank");
                }
                packed |= (r < 0 ? 0xFF : r) << (8 * i);
            }
            args.set(JAVA_INT, TREE + 4L * which, packed);
        }
    }

    /** The per-call fields of a collective. */
    public void setCall(int coll, long in, long out, long count, int root, int op, int flags, double scaleF,
                        long scaleI, long chunkBytes) {
        args.set(JAVA_INT, COLL, coll);
        args.set(JAVA_LONG, IN, in);
        args.set(JAVA_LONG, OUT, out);
        args.set(JAVA_LONG, COUNT, count);
        args.set(JAVA_INT, ROOT, root);
        args.set(JAVA_INT, OP, op);
        args.set(JAVA_INT, FLAGS, flags);
        args.set(JAVA_DOUBLE, SCALE_F, scaleF);
        args.set(JAVA_LONG, SCALE_I, scaleI);
        args.set(JAVA_LONG, CHUNK_BYTES, chunkBytes);
        args.set(JAVA_INT, N_P2P, 0);
    }

    /** Sets p2p operation {@code i} and the operation count to {@code i + 1}. */
    public void setP2p(int i, short kind, int peer, long ptr, long src, long bytes, int nBlocks) {
        if (i < 0 || i >= MAX_P2P_OPS) {
            throw new IllegalArgumentException("p2p operation index " + i + " outside 0.." + (MAX_P2P_OPS - 1));
        }
        long base = P2P + i * P2P_OP.byteSize();
        args.set(JAVA_LONG, base, ptr);
        args.set(JAVA_LONG, base + 8, src);
        args.set(JAVA_LONG, base + 16, bytes);
        args.set(JAVA_INT, base + 24, peer);
        args.set(JAVA_SHORT, base + 28, kind);
        args.set(JAVA_SHORT, base + 30, (short) nBlocks);
        args.set(JAVA_INT, N_P2P, i + 1);
    }

    /** Reads a long field at {@code offset} (for tests). */
    long getLong(long offset) {
        return args.get(JAVA_LONG, offset);
    }

    /** Reads an int field at {@code offset} (for tests). */
    int getInt(long offset) {
        return args.get(JAVA_INT, offset);
    }
}
