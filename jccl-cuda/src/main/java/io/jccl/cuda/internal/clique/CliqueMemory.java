package io.jccl.cuda.internal.clique;

import io.jccl.cuda.CliqueOptions;
import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.DeviceBuffer;

/**
 * The device memory one GPU of a clique dedicates to collectives, zeroed once at open (counters never reset
 * afterwards): the signal area (barrier counters and LL epoch, {@code struct Signals}), the ring connection
 * state ({@code struct RingCtl} per channel), the ring FIFOs (8 slots per channel, written by the previous GPU)
 * the LL receive area ([2 parities][nRanks sources][llMaxBytes / 8 words] lines of 16 bytes) and the push
 * one-shot's receive area ([2 parities][nRanks sources][pushMaxBytes]).
 *
 * <p>Thread: created and closed by the clique's owner thread. Mirrors NCCL's per-peer connection buffers
 * (p2p.cc) and its device-side channel state.
 */
public final class CliqueMemory implements AutoCloseable {
    /** sizeof(struct Signals): arrive[128][8] + count[128][8] u32, then 32 u32 (LL and push epochs, pad). */
    public static final long SIGNALS_BYTES = 2L * 128 * 8 * 4 + 32 * 4;
    /** Byte offset of Signals.llEpoch. */
    public static final long LL_EPOCH_OFFSET = 2L * 128 * 8 * 4;
    /** sizeof(struct RingCtl): three 128-byte lines. */
    public static final long RING_CTL_BYTES = 384;
    /** Ring FIFO slots per channel (kFifoSteps, NCCL_STEPS). */
    public static final int FIFO_STEPS = 8;

    private final DeviceBuffer signals;
    private final DeviceBuffer ringCtl;
    private final DeviceBuffer fifo;
    private final DeviceBuffer ll;
    private final DeviceBuffer push;
    private final long llSlotWords;

    public CliqueMemory(CudaDevice device, int nRanks, CliqueOptions options) {
        this.llSlotWords = options.llMaxBytes() / 8;
        DeviceBuffer s = null;
        DeviceBuffer c = null;
        DeviceBuffer f = null;
        DeviceBuffer l = null;
        DeviceBuffer p = null;
        try {
            s = DeviceBuffer.allocate(device, SIGNALS_BYTES);
            c = DeviceBuffer.allocate(device, RING_CTL_BYTES * options.ringChannels());
            f = DeviceBuffer.allocate(device, (long) FIFO_STEPS * options.ringSlotBytes() * options.ringChannels());
            l = DeviceBuffer.allocate(device, 2L * nRanks * llSlotWords * 16);
            p = DeviceBuffer.allocate(device, 2L * nRanks * options.pushMaxBytes());
            s.zero();
            c.zero();
            l.zero();
        } catch (RuntimeException e) {
            for (DeviceBuffer b : new DeviceBuffer[] {s, c, f, l, p}) {
                if (b != null) {
                    b.close();
                }
            }
            throw e;
        }
        this.signals = s;
        this.ringCtl = c;
        this.fifo = f;
        this.ll = l;
        this.push = p;
    }

    public DeviceBuffer signals() {
        return signals;
    }

    public long signalsAddress() {
        return signals.address();
    }

    public long ringCtlAddress() {
        return ringCtl.address();
    }

    public long fifoAddress() {
        return fifo.address();
    }

    public long llAddress() {
        return ll.address();
    }

    public long pushAddress() {
        return push.address();
    }

    /** 8-byte words per (parity, source rank) slot of the LL area. */
    public long llSlotWords() {
        return llSlotWords;
    }

    @Override
    public void close() {
        signals.close();
        ringCtl.close();
        fifo.close();
        ll.close();
        push.close();
    }
}
