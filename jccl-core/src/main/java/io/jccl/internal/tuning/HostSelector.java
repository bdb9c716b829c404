package io.jccl.internal.tuning;

import io.jccl.Collective;
import io.jccl.RedOp;

/**
 * Decides what a host call runs, once per call: the shared-memory allReduces (one-shot, two-shot, registered) where
 * their limits allow, else the ring or the tree with the protocol and channels the {@link Tuner} picks; a ring for
 * the other collectives; point-to-point work for send/recv and what is lowered to them. The communicator asks
 * {@link #choose} when a call begins and hands the answer to the counters and to the planner, which builds the work
 * it names; {@link #select} gives the same answer with its reasons (explain, {@code jccl topo}).
 *
 * <p>{@link #choose} allocates nothing: the answer is packed in a long (see {@link #kindOf}, {@link #protocolOf},
 * {@link #channelsOf}). Owned by: the communicator's calling thread (the tuner is single-threaded).
 * Mirrors: ncclGetAlgoInfo (enqueue.cc) plus the shared-memory algorithms NCCL has no counterpart for.
 */
public final class HostSelector implements CallSelector {
    /** Bytes per channel before another channel is added when no tuner decides. */
    public static final long BYTES_PER_CHANNEL = 512 << 10;
    /**
     * Registered buffers take the registered algorithm from this size / (ranks - 1) up, even under one-shot's limit
     * (measured at 512 KiB on 2 ranks: 39 µs registered against about 100 µs one-shot).
     */
    public static final long REGISTERED_FIRST_BYTES = 256L << 10;

    private static final AlgoKind[] KINDS = AlgoKind.values();

    private final Tuner tuner;
    private final int nRanks;
    private final int nChannels;
    private final long oneShotMaxBytes;
    private final long twoShotMaxBytes;
    private final boolean trees;
    private final int stepBytes;
    private final int p2pStepBytes;
    private boolean reproducible;
    private boolean sharedArea;

    /**
     * @param tuner           the communicator's tuner, or null (every ring on Simple, channels by size)
     * @param oneShotMaxBytes largest allReduce run one-shot (0: the communicator has no shared area)
     * @param twoShotMaxBytes largest allReduce run two-shot (0: none)
     * @param trees           whether the communicator has trees for allReduce
     * @param stepBytes       ring and tree connector slot size
     * @param p2pStepBytes    point-to-point connector slot size
     */
    public HostSelector(Tuner tuner, int nRanks, int nChannels, long oneShotMaxBytes, long twoShotMaxBytes,
                        boolean trees, int stepBytes, int p2pStepBytes) {
        this.tuner = tuner;
        this.nRanks = nRanks;
        this.nChannels = nChannels;
        this.oneShotMaxBytes = oneShotMaxBytes;
        this.twoShotMaxBytes = Math.max(twoShotMaxBytes, 0);
        this.trees = trees && nRanks > 1;
        this.stepBytes = stepBytes;
        this.p2pStepBytes = p2pStepBytes;
    }

    /**
     * Reproducible mode (JCCL_REPRODUCIBLE): allReduce and reduceScatter reduce every element in rank order. With a
     * shared area ({@code sharedArea}) allReduce runs one-shot, or two-shot above one-shot's limit, whatever its
     * size; otherwise, and for reduceScatter, the rank-order collective. Set once at init; returns this.
     */
    public HostSelector reproducible(boolean on, boolean sharedArea) {
        this.reproducible = on && nRanks > 1;
        this.sharedArea = sharedArea;
        return this;
    }

    public boolean reproducible() {
        return reproducible;
    }

    public long oneShotMaxBytes() {
        return oneShotMaxBytes;
    }

    public long twoShotMaxBytes() {
        return twoShotMaxBytes;
    }

    public static AlgoKind kindOf(long choice) {
        return KINDS[(int) (choice & 0xff)];
    }

    public static Protocol protocolOf(long choice) {
        return Protocol.of((int) ((choice >>> 8) & 0xff));
    }

    public static int channelsOf(long choice) {
        return (int) ((choice >>> 16) & 0xffff);
    }

    private static long pack(AlgoKind k, Protocol p, int channels) {
        return k.ordinal() | ((long) p.ordinal() << 8) | ((long) channels << 16);
    }

    /**
     * The decision for a call of {@code count} elements, {@code bytes} per rank, without allocating.
     *
     * @param registered whether both buffers are registered ({@code allocate}) so that the single-copy allReduce
     *                   applies to them and the op
     */
    public long choose(Collective c, long count, long bytes, boolean registered) {
        if (count == 0 && c != Collective.BARRIER) {
            return pack(AlgoKind.NONE, Protocol.SIMPLE, 0);
        }
        if (reproducible && (c == Collective.ALL_REDUCE || c == Collective.REDUCE_SCATTER)) {
            return c == Collective.ALL_REDUCE && sharedArea
                    ? pack(bytes <= oneShotMaxBytes ? AlgoKind.ONE_SHOT : AlgoKind.TWO_SHOT, Protocol.SIMPLE, 1)
                    : pack(AlgoKind.RANK_ORDER, Protocol.SIMPLE, 1);
        }
        return switch (c) {
            case ALL_REDUCE -> allReduce(bytes, registered);
            case ALL_GATHER, REDUCE_SCATTER, BROADCAST, REDUCE -> ring(c, bytes);
            case BARRIER -> pack(AlgoKind.RING, Protocol.SIMPLE, 1);
            default -> pack(AlgoKind.P2P, Protocol.SIMPLE, nChannels);
        };
    }

    private long allReduce(long bytes, boolean registered) {
        boolean oneShot = bytes <= oneShotMaxBytes;
        if (oneShot && !(registered && registeredFirst(bytes))) {
            return pack(AlgoKind.ONE_SHOT, Protocol.SIMPLE, 1);
        }
        if (registered) {
            return pack(AlgoKind.REGISTERED, Protocol.SIMPLE, 1);
        }
        if (bytes > oneShotMaxBytes && bytes <= twoShotMaxBytes) {
            return pack(AlgoKind.TWO_SHOT, Protocol.SIMPLE, 1);
        }
        if (tuner == null || nRanks == 1) {
            return untuned(bytes);
        }
        long t = tuner.choose(Collective.ALL_REDUCE, bytes, 1);
        int ch = Math.max(1, Math.min(nChannels, Tuner.channelsOf(t)));
        if (trees && Tuner.algorithmOf(t) == Algorithm.TREE) {
            return pack(AlgoKind.TREE, Protocol.SIMPLE, ch);
        }
        return pack(AlgoKind.RING, Tuner.protocolOf(t), ch);
    }

    private long ring(Collective c, long bytes) {
        long traffic = traffic(c, bytes);
        if (tuner == null || nRanks == 1) {
            return untuned(traffic);
        }
        long t = tuner.choose(c, traffic, 1);
        return pack(AlgoKind.RING, Tuner.protocolOf(t), Math.max(1, Math.min(nChannels, Tuner.channelsOf(t))));
    }

    private long untuned(long traffic) {
        return pack(AlgoKind.RING, Protocol.SIMPLE, (int) Math.max(1, Math.min(nChannels,
                traffic / BYTES_PER_CHANNEL)));
    }

    /** Bytes the model prices: for allGather and reduceScatter NCCL prices the whole gathered buffer. */
    private long traffic(Collective c, long bytes) {
        return bytes * (c == Collective.ALL_GATHER || c == Collective.REDUCE_SCATTER ? nRanks : 1);
    }

    private boolean registeredFirst(long bytes) {
        return bytes > REGISTERED_FIRST_BYTES / Math.max(1, nRanks - 1);
    }

    @Override
    public Selection select(Collective c, long bytes, RedOp.Kind op, boolean registered) {
        long choice = choose(c, c == Collective.BARRIER ? 1 : bytes, bytes, registered);
        AlgoKind k = kindOf(choice);
        boolean ordered = reproducible && (c == Collective.ALL_REDUCE || c == Collective.REDUCE_SCATTER);
        ModelChoice model = Tuner.tuned(c) && tuner != null && !ordered ? tuner.select(c, traffic(c, bytes), 1)
                : null;
        long chunk = switch (k) {
            case RING, TREE -> stepBytes;
            case P2P -> p2pStepBytes;
            default -> 0;
        };
        return new Selection(c, bytes, k.name(), protocolOf(choice), channelsOf(choice), chunk, why(c, bytes, k,
                registered), model);
    }

    private String why(Collective c, long bytes, AlgoKind k, boolean registered) {
        return switch (k) {
            case NONE -> "nothing to move";
            case RANK_ORDER -> "JCCL_REPRODUCIBLE: every rank's input gathered on one channel, then each element "
                    + "reduced in rank order";
            case ONE_SHOT -> reproducible ? "JCCL_REPRODUCIBLE: one-shot reduces in rank order"
                    : "one-shot through shared memory: " + bytes + " <= " + oneShotMaxBytes
                    + " bytes (JCCL_ONESHOT_MAX_BYTES)" + (registered ? "" : "; registered buffers (allocate) take the"
                    + " single-copy path above " + REGISTERED_FIRST_BYTES / Math.max(1, nRanks - 1) + " bytes");
            case TWO_SHOT -> reproducible ? "JCCL_REPRODUCIBLE: two-shot reduces in rank order, at any size"
                    : "two-shot through shared memory: " + bytes + " <= " + twoShotMaxBytes
                    + " bytes (JCCL_TWOSHOT_MAX_BYTES); registered buffers (allocate) take the single-copy path";
            case REGISTERED -> "single-copy allReduce: both buffers come from allocate";
            case P2P -> c.ncclName() + " is point-to-point work: each message is split over up to " + nChannels
                    + " channel(s) by size, Simple protocol";
            case RING, TREE -> c == Collective.BARRIER ? "a barrier is a one-element allReduce on one channel"
                    : tuner == null || nRanks == 1 ? "no tuner: one channel per " + BYTES_PER_CHANNEL + " bytes"
                    : k == AlgoKind.RING && c == Collective.ALL_REDUCE && !trees ? "the cost model's choice (no trees)"
                    : "the cost model's choice";
        };
    }
}
