package io.jccl.internal.transport.shm;

import io.jccl.internal.base.Backoff;
import io.jccl.internal.base.CommHealth;
import io.jccl.internal.base.IdlePolicy;
import io.jccl.internal.transport.PeerExchange;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.function.BooleanSupplier;

/**
 * A per-rank publication area in shared memory, mapped by every rank of a single-host communicator: rank r writes a
 * payload into its own area and releases a sequence number after it; every rank reads every area directly. Two
 * buffers alternate by sequence parity; no flag is ever reset (monotonic sequence numbers), and a rank can only
 * reuse a buffer after every peer has published the next sequence, which it does only after reading this one.
 * Readers that stop spinning sleep on a futex on the sequence word; each reader has its own waiter flag in the
 * writer's header, which the writer checks after publishing.
 *
 * <p>Owned by: channel 0 of the communicator (the thread running channel-0 work). Mirrors: the one-shot buffers of
 * NCCL's symmetric-memory kernels / DeepSpeed's shm allreduce slots, in host memory.
 */
public final class ShmPeerArea {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final long HEADER = 4096;
    /**
     * The payload starts right after the sequence and fingerprint words, in the same cache line, so a reader of a
     * message of up to 48 bytes takes a single cache miss per peer.
     */
    private static final long DATA_OFF = 16;
    private static final int TAG_NAME = 0x4a43_5101;
    private static final int TAG_MAPPED = 0x4a43_5102;

    private final int rank;
    private final int nRanks;
    private final long maxBytes;
    private final long stride;
    private final String commId;
    private final CommHealth health;
    private final long timeoutNs;
    private final IdlePolicy policy;
    private final java.util.function.Supplier<Arena> arena;
    // the mapping: replaced by remap() after a release(); the channel-0 thread reads it only between the two
    private MemorySegment[] areas;
    private MemorySegment[][] slices;
    private Backoff[][] waits;
    private Pending[][] pending;
    private FutexWakerSet[] wakers;

    private ShmPeerArea(int rank, int nRanks, long maxBytes, String commId, CommHealth health, long timeoutNs,
                        IdlePolicy policy, java.util.function.Supplier<Arena> arena) {
        this.rank = rank;
        this.nRanks = nRanks;
        this.maxBytes = maxBytes;
        this.stride = align(DATA_OFF + maxBytes);
        this.commId = commId;
        this.health = health;
        this.timeoutNs = timeoutNs;
        this.policy = policy;
        this.arena = arena;
    }

    /**
     * Creates this rank's area, exchanges names through the bootstrap, maps every peer's area, and unlinks its file
     * once every rank has mapped it. Every rank of the communicator must call it. {@code arena}: where the areas are
     * mapped, asked again by {@link #remap}.
     */
    public static ShmPeerArea create(PeerExchange bootstrap, String commId, long maxBytes, CommHealth health,
            long timeoutNs, IdlePolicy policy, java.util.function.Supplier<Arena> arena) {
        ShmPeerArea a = new ShmPeerArea(bootstrap.rank(), bootstrap.nRanks(), maxBytes, commId, health, timeoutNs,
                policy, arena);
        a.remap(bootstrap);
        return a;
    }

    /**
     * Maps fresh areas (zeroed: sequence numbers start over, which every wait accepts since it waits for a number at
     * least as large as its own) after {@link #release()}, or at creation. Collective over every rank.
     */
    public void remap(PeerExchange bootstrap) {
        String name = ShmFiles.PREFIX + commId.substring(0, 8) + "-" + ProcessHandle.current().pid() + "-area-r" + rank
                + "-" + HexFormat.of().toHexDigits(new SecureRandom().nextInt());
        long size = HEADER + 2 * stride;
        Arena a = arena.get();
        MemorySegment[] mapped = new MemorySegment[nRanks];
        mapped[rank] = ShmFiles.create(name, size, a);
        try {
            byte[][] names = bootstrap.allGather(name.getBytes(StandardCharsets.UTF_8));
            for (int p = 0; p < nRanks; p++) {
                if (p != rank) {
                    String peerName = new String(names[p], StandardCharsets.UTF_8);
                    if (!peerName.startsWith(ShmFiles.PREFIX) || peerName.contains("/")) {
                        throw new IllegalStateException("bad area name from rank " + p);
                    }
                    mapped[p] = ShmFiles.attach(peerName, size, a);
                }
            }
            bootstrap.allGather(new byte[0]);
        } finally {
            ShmFiles.unlink(name);
        }
        map(mapped, a);
    }

    private void map(MemorySegment[] mapped, Arena a) {
        MemorySegment[][] sl = new MemorySegment[nRanks][2];
        Backoff[][] w = new Backoff[nRanks][2];
        Pending[][] pe = new Pending[nRanks][2];
        for (int p = 0; p < nRanks; p++) {
            for (int b = 0; b < 2; b++) {
                sl[p][b] = mapped[p].asSlice(flagOff(b) + DATA_OFF, maxBytes);
                FutexSleeper sleeper = new FutexSleeper(mapped[p], 4L * rank, flagOff(b), a);
                w[p][b] = new Backoff(health, timeoutNs, policy, p, sleeper);
                pe[p][b] = new Pending(mapped[p], flagOff(b), p);
            }
        }
        FutexWakerSet[] wk = new FutexWakerSet[2];
        for (int b = 0; b < 2; b++) {
            wk[b] = new FutexWakerSet(mapped[rank], nRanks, flagOff(b));
        }
        this.areas = mapped;
        this.slices = sl;
        this.waits = w;
        this.pending = pe;
        this.wakers = wk;
    }

    /**
     * Drops this rank's mappings of the areas (suspend); their memory goes with the arena they were mapped in. Until
     * {@link #remap} nothing may use the area.
     */
    public void release() {
        this.areas = null;
        this.slices = null;
        this.waits = null;
        this.pending = null;
        this.wakers = null;
    }

    public long maxBytes() {
        return maxBytes;
    }

    /** Where this rank writes the payload of sequence {@code seq}. */
    public MemorySegment mine(long seq) {
        return data(rank, seq);
    }

    /** Peer {@code p}'s payload of sequence {@code seq} (valid after {@link #await}). */
    public MemorySegment data(int p, long seq) {
        return slices[p][(int) (seq & 1)];
    }

    /**
     * Publishes this rank's payload of {@code seq} with a fingerprint of the call (peers compare it with theirs) and
     * wakes sleeping readers.
     */
    public void publish(long seq, long fingerprint) {
        int b = (int) (seq & 1);
        areas[rank].set(ValueLayout.JAVA_LONG, flagOff(b) + 8, fingerprint);
        LONG.setRelease(areas[rank], flagOff(b), seq);
        VarHandle.fullFence();
        wakers[b].wake();
    }

    /** Waits until peer {@code p} published {@code seq} (or later). */
    public void await(int p, long seq, Object what) {
        int b = (int) (seq & 1);
        Pending w = pending[p][b];
        if ((long) LONG.getAcquire(areas[p], w.off) >= seq) {
            return;
        }
        w.expected = seq;
        w.what = what;
        Backoff bo = waits[p][b];
        bo.reset();
        while ((long) LONG.getAcquire(areas[p], w.off) < seq) {
            bo.idle(w, w);
        }
    }

    /**
     * Publishes {@code seq} with this call's {@code fingerprint} and waits for every rank to publish it; returns the
     * first rank whose fingerprint differs, or -1 (the caller turns that into a mismatch error).
     */
    public int publishAndAwaitAll(long seq, long fingerprint, Object what) {
        publish(seq, fingerprint);
        int mismatch = -1;
        for (int p = 0; p < nRanks; p++) {
            await(p, seq, what);
            if (mismatch < 0 && fingerprint(p, seq) != fingerprint) {
                mismatch = p;
            }
        }
        return mismatch;
    }

    /** The fingerprint peer {@code p} published with {@code seq} (valid after {@link #await}). */
    public long fingerprint(int p, long seq) {
        return areas[p].get(ValueLayout.JAVA_LONG, flagOff((int) (seq & 1)) + 8);
    }

    public int nRanks() {
        return nRanks;
    }

    public int rank() {
        return rank;
    }

    private long flagOff(int b) {
        return HEADER + b * stride;
    }

    private static long align(long v) {
        return (v + 127) & ~127L;
    }

    /**
     * "Still waiting" for one (peer, buffer), reused to keep waits allocation-free; it is also the wait's description
     * (errors, the RAS status), built only when asked: the operation, then the peer and the sequence awaited.
     */
    private static final class Pending implements BooleanSupplier {
        private final MemorySegment area;
        private final long off;
        private final int peer;
        private long expected;
        private Object what;

        Pending(MemorySegment area, long off, int peer) {
            this.area = area;
            this.off = off;
            this.peer = peer;
        }

        @Override
        public boolean getAsBoolean() {
            return (long) LONG.getVolatile(area, off) < expected;
        }

        @Override
        public String toString() {
            return what + ", waiting for rank " + peer + " to publish step " + expected + " of the shared area";
        }
    }

    /** Wakes readers sleeping on one of this rank's sequence words if any raised its flag. */
    private static final class FutexWakerSet {
        private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
        private static final long LOW = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? 0 : 4;
        private final MemorySegment header;
        private final int n;
        private final MemorySegment word;

        FutexWakerSet(MemorySegment area, int n, long flagOff) {
            this.header = area;
            this.n = n;
            this.word = area.asSlice(flagOff + LOW, 4);
        }

        void wake() {
            for (int r = 0; r < n; r++) {
                if ((int) INT.getVolatile(header, 4L * r) != 0) {
                    if (Futex.available()) {
                        Futex.wakeAll(word);
                    }
                    return;
                }
            }
        }
    }
}
