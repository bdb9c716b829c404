package io.jccl.internal.transport.net;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.base.CommHealth;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Java thread standing in for one rank's GPU kernels on the GPU net connectors: per channel it pushes steps through
 * the mirror of the peer's control block and consumes the peer's steps from its own, honouring the tail / head / size
 * protocol of the Simple kernels, with a checkable pattern in every byte.
 */
final class ThreadKernel {
    /** Not a power of two: slots must be exactly this far apart. */
    static final int SLOT = 6152;
    static final int CHANNELS = 2;
    private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();

    /** One ConnCtl block: tail at 0, the 8 step sizes at 8, head at 128, then 8 slots of {@code slot} bytes. */
    record Ctl(MemorySegment seg, int slot) {
        static Ctl allocate(Arena a, int slot) {
            return new Ctl(a.allocate(384 + 8L * slot, 128), slot);
        }

        MemorySegment tail() {
            return seg.asSlice(0, 8);
        }

        MemorySegment head() {
            return seg.asSlice(128, 8);
        }

        long slotAt(long step) {
            return 384 + (step & 7) * slot;
        }

        MemorySegment sizes() {
            return seg.asSlice(8, 64);
        }

        GpuNetConnections.Block block() {
            return new GpuNetConnections.Block(seg.asSlice(384, 8L * slot), tail(), sizes(), head());
        }
    }

    final int rank;
    final int peer;
    final int slot;
    final CommHealth health;
    final Ctl[] own = new Ctl[CHANNELS];
    final Ctl[] mirror = new Ctl[CHANNELS];
    final long[] sent = new long[CHANNELS];
    final long[] got = new long[CHANNELS];
    final AtomicLong received = new AtomicLong();
    int maxInFlight;

    ThreadKernel(Arena arena, int rank, int peer, CommHealth health) {
        this(arena, rank, peer, health, SLOT);
    }

    ThreadKernel(Arena arena, int rank, int peer, CommHealth health, int slot) {
        this.rank = rank;
        this.peer = peer;
        this.slot = slot;
        this.health = health;
        for (int c = 0; c < CHANNELS; c++) {
            own[c] = Ctl.allocate(arena, slot);
            mirror[c] = Ctl.allocate(arena, slot);
        }
    }

    List<GpuNetConnections.Link> links(boolean send, boolean recv) {
        List<GpuNetConnections.Link> l = new ArrayList<>();
        for (int c = 0; c < CHANNELS; c++) {
            if (recv) {
                l.add(new GpuNetConnections.Link(peer, c, false, slot, own[c].block(), mirror[c].block()));
            }
            if (send) {
                l.add(new GpuNetConnections.Link(peer, c, true, slot, own[c].block(), mirror[c].block()));
            }
        }
        return l;
    }

    static long word(MemorySegment w) {
        return (long) WORD.getAcquire(w, 0L);
    }

    static void publish(MemorySegment w, long v) {
        WORD.setRelease(w, 0L, v);
    }

    /** The bytes a kernel puts into step {@code step}'s slot: mostly whole, some partial, some tiny. */
    int sizeOf(long step) {
        return switch ((int) (step % 5)) {
            case 1 -> slot - 24;
            case 3 -> 13;
            default -> slot;
        };
    }

    static long pattern(int from, int channel, long step, int i) {
        long x = ((long) from << 56) ^ ((long) channel << 48) ^ (step << 20) ^ i;
        return x * 0x9E3779B97F4A7C15L;
    }

    /**
     * Sends {@code sendSteps} and receives {@code recvSteps} steps on every channel; on channel 0 the consumer
     * stops at step {@code pauseAt} (if {@code >= 0}) until the window is full, and checks it holds exactly 8.
     * A wait that sees no progress ends with the communicator's failure, or after {@code idleLimitMs}.
     */
    void run(long sendSteps, long recvSteps, long pauseAt, long idleLimitMs) {
        long lastMove = System.nanoTime();
        int idle = 0;
        boolean paused = pauseAt < 0;
        while (true) {
            boolean moved = false;
            boolean left = false;
            for (int c = 0; c < CHANNELS; c++) {
                if (sent[c] < sendSteps) {
                    left = true;
                    long credit = word(own[c].head());
                    if (credit > sent[c]) {
                        throw new AssertionError("rank " + rank + " channel " + c + ": credit " + credit
                                + " for " + sent[c] + " steps published");
                    }
                    if (sent[c] < credit + 8) {
                        long at = mirror[c].slotAt(sent[c]);
                        for (int i = 0; i < slot / 8; i++) {
                            mirror[c].seg().set(ValueLayout.JAVA_LONG, at + 8L * i, pattern(rank, c, sent[c], i));
                        }
                        mirror[c].sizes().set(ValueLayout.JAVA_LONG, 8 * (sent[c] & 7), sizeOf(sent[c]));
                        publish(mirror[c].tail(), ++sent[c]);
                        moved = true;
                    }
                }
                if (got[c] < recvSteps) {
                    left = true;
                    long tail = word(own[c].tail());
                    if (tail - got[c] > 8) {
                        throw new AssertionError("rank " + rank + " channel " + c + ": " + (tail - got[c])
                                + " steps in flight (tail " + tail + ", consumed " + got[c] + ")");
                    }
                    maxInFlight = (int) Math.max(maxInFlight, tail - got[c]);
                    if (c == 0 && !paused && got[c] == pauseAt) {
                        paused = true;
                        checkFullWindow(c, pauseAt);
                        tail = word(own[c].tail());
                    }
                    if (tail > got[c]) {
                        long at = own[c].slotAt(got[c]);
                        int size = sizeOf(got[c]);
                        if (size + 8 <= slot) {
                            long past = own[c].seg().get(ValueLayout.JAVA_LONG, at + (size + 7) / 8 * 8);
                            if (past == pattern(peer, c, got[c], (size + 7) / 8)) {
                                throw new AssertionError("rank " + rank + " channel " + c + " step " + got[c]
                                        + ": bytes past the " + size + " the kernel published came too");
                            }
                        }
                        for (int i = 0; i < size / 8; i++) {
                            long v = own[c].seg().get(ValueLayout.JAVA_LONG, at + 8L * i);
                            if (v != pattern(peer, c, got[c], i)) {
                                throw new AssertionError("rank " + rank + " channel " + c + " step " + got[c]
                                        + " byte " + 8 * i + ": got " + Long.toHexString(v));
                            }
                        }
                        for (int b = size / 8 * 8; b < size; b++) {     // the bytes of a partial last word
                            byte v = own[c].seg().get(ValueLayout.JAVA_BYTE, at + b);
                            if (v != (byte) (pattern(peer, c, got[c], b / 8) >>> (8 * (b % 8)))) {
                                throw new AssertionError("rank " + rank + " channel " + c + " step " + got[c]
                                        + " byte " + b + ": got " + Integer.toHexString(v & 0xff));
                            }
                        }
                        publish(mirror[c].head(), ++got[c]);
                        received.incrementAndGet();
                        moved = true;
                    }
                }
            }
            if (!left) {
                return;
            }
            if (moved) {
                lastMove = System.nanoTime();
                idle = 0;
                continue;
            }
            if (health.isBroken()) {
                throw health.brokenError(where(sendSteps, recvSteps));
            }
            if (System.nanoTime() - lastMove > TimeUnit.MILLISECONDS.toNanos(idleLimitMs)) {
                throw new JcclException(Result.TIMEOUT, where(sendSteps, recvSteps) + ": no progress for "
                        + idleLimitMs + " ms");
            }
            if (++idle > 200) {
                LockSupport.parkNanos(20_000);
            } else {
                Thread.onSpinWait();
            }
        }
    }

    /** The consumer stopped at {@code at}: the proxy fills the 8 free slots, and not one more. */
    private void checkFullWindow(int c, long at) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (word(own[c].tail()) < at + 8 && System.nanoTime() < deadline && !health.isBroken()) {
            LockSupport.parkNanos(100_000);
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(150));
        assertThat(word(own[c].tail())).as("rank %d channel %d: slots filled while the consumer stops at %d",
                rank, c, at).isEqualTo(at + 8);
    }

    private String where(long sendSteps, long recvSteps) {
        for (int c = 0; c < CHANNELS; c++) {
            if (got[c] < recvSteps) {
                return "rank " + rank + " kernel: GPU channel " + c + " waiting for step " + got[c]
                        + " from rank " + peer;
            }
            if (sent[c] < sendSteps) {
                return "rank " + rank + " kernel: GPU channel " + c + " waiting for credit " + (sent[c] - 7)
                        + " from rank " + peer;
            }
        }
        return "rank " + rank + " kernel";
    }

    /** Waits until the proxy credited every step sent (each left through the plugin). */
    void awaitCredits(long steps) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        for (int c = 0; c < CHANNELS; c++) {
            while (word(own[c].head()) < steps && System.nanoTime() < deadline) {
                LockSupport.parkNanos(100_000);
            }
            assertThat(word(own[c].head())).as("rank %d channel %d credits", rank, c).isEqualTo(steps);
        }
    }
}
