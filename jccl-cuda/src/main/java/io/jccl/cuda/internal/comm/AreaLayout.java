package io.jccl.cuda.internal.comm;

import io.jccl.cuda.GpuOptions;
import io.jccl.cuda.internal.enqueue.CollPlanner;

/**
 * Where each part of a rank's collective memory lives inside its one device allocation (one allocation, so one
 * CUDA IPC handle per rank): the signal area ({@code struct Signals}: barrier counters, LL sequence numbers,
 * published pointers), the LL receive area ([2 parities][nRanks sources][llMaxBytes / 8] lines of 16 bytes), the
 * push receive area ([2][nRanks][pushMaxBytes]) and the connection area ([nRanks-1 peers][ringChannels] ConnCtl
 * lines of 384 bytes, then [nRanks-1][ringChannels][8 slots][ringSlotBytes] FIFOs). Every rank computes the same
 * layout from the same options, so a peer's areas are at the same offsets of its allocation. The signal area, the
 * LL area and the connection control lines must start zeroed ({@link #zeroRanges()}); the data areas need not.
 *
 * <p>A value computed once per communicator. Mirrors the buffer sizing of NCCL's p2p transport and device
 * channel state (sizes from shared/reference/gpu-collectives-techniques.md §2.6).
 *
 * @param nRanks      ranks of the communicator
 * @param llSlotWords 8-byte words per LL slot
 * @param pushSlotBytes bytes per push slot
 * @param channels    channels per connection
 * @param slotBytes   bytes per FIFO slot
 */
public record AreaLayout(int nRanks, long llSlotWords, long pushSlotBytes, int channels, long slotBytes) {
    /**
     * Bytes reserved for {@code struct Signals} (41,232 bytes with 160 block slots; jccl_device.cuh checks the bound).
     */
    public static final long SIGNALS_BYTES = 64L << 10;
    /** sizeof(struct ConnCtl). */
    public static final long CONN_CTL_BYTES = 384;
    /** FIFO slots per channel (kFifoSteps, NCCL_STEPS). */
    public static final int FIFO_STEPS = 8;
    private static final long ALIGN = 4096;

    /**
     * The layout for {@code nRanks} ranks with {@code options}. LL slots hold the largest LL call the planner makes:
     * llMaxBytes (8 bytes a line), llPackedMaxBytes (whole warps of 32 groups of 48 bytes, 4 lines each) or
     * ll128MaxBytes (480 bytes in 32 lines) on 2 ranks, at most
     * {@link CollPlanner#LL_OTHERS_MAX_BYTES} otherwise.
     */
    public static AreaLayout of(int nRanks, GpuOptions options) {
        long llLines = nRanks == 2
                ? Math.max(Math.max(options.llMaxBytes() / 8, (options.llPackedMaxBytes() + 1535) / 1536 * 128),
                        (options.ll128MaxBytes()
                                + CollPlanner.LL128_CHUNK_BYTES - 1) / CollPlanner.LL128_CHUNK_BYTES * 32)
                : Math.min(options.llMaxBytes(), CollPlanner.LL_OTHERS_MAX_BYTES) / 8;
        llLines = (llLines + 7) / 8 * 8;   // slots start on 128-byte boundaries (LL128 lines)
        return new AreaLayout(nRanks, llLines, options.pushMaxBytes(), options.ringChannels(),
                options.ringSlotBytes());
    }

    /**
     * The layout of ranks that span hosts: one connection channel more than the ring's, which only the LL ring uses
     * ({@code kFlagNetLL}), so that no Simple step ever shares its slots (a stale Simple word could otherwise pass
     * for an LL line). Its FIFOs are as large as the others' and cross hosts through the proxy like them.
     */
    public static AreaLayout acrossHosts(int nRanks, GpuOptions options) {
        AreaLayout l = of(nRanks, options);
        return new AreaLayout(nRanks, l.llSlotWords(), l.pushSlotBytes(), l.channels() + 1, l.slotBytes());
    }

    public long signalsOffset() {
        return 0;
    }

    public long llOffset() {
        return SIGNALS_BYTES;
    }

    public long llBytes() {
        return 2L * nRanks * llSlotWords * 16;
    }

    public long pushOffset() {
        return align(llOffset() + llBytes());
    }

    /** The push area; none with one rank (nothing is ever pushed). */
    public long pushBytes() {
        return nRanks > 1 ? 2L * nRanks * pushSlotBytes : 0;
    }

    public long connOffset() {
        return align(pushOffset() + pushBytes());
    }

    public long connCtlBytes() {
        return (long) (nRanks - 1) * channels * CONN_CTL_BYTES;
    }

    public long fifoBytes() {
        return (long) (nRanks - 1) * channels * FIFO_STEPS * slotBytes;
    }

    /** Bytes of the whole allocation. */
    public long totalBytes() {
        return align(connOffset() + connCtlBytes() + fifoBytes());
    }

    /** {offset, length} pairs that must be zero before first use. */
    public long[] zeroRanges() {
        return new long[] {0, llOffset() + llBytes(), connOffset(), connCtlBytes()};
    }

    /** A short text every rank must agree on (the layout's parameters), for the init-time consistency check. */
    public String fingerprint() {
        return nRanks + "/" + llSlotWords + "/" + pushSlotBytes + "/" + channels + "/" + slotBytes;
    }

    private static long align(long v) {
        return (v + ALIGN - 1) / ALIGN * ALIGN;
    }
}
