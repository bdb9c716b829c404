package io.jccl.internal.transport.shm;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.base.Backoff;
import io.jccl.internal.base.CommHealth;
import io.jccl.internal.base.IdlePolicy;
import io.jccl.internal.transport.ConnFifo;
import io.jccl.internal.transport.LineFormat;
import io.jccl.internal.transport.LineRecvLane;
import io.jccl.internal.transport.LineRegion;
import io.jccl.internal.transport.LineSendLane;
import io.jccl.internal.transport.RecvConn;
import io.jccl.internal.transport.SendConn;
import io.jccl.internal.transport.Transport;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The shared-memory transport for ranks on the same host: the receiver creates a file in /dev/shm holding the
 * connector's FIFO, the sender maps it and writes its slots straight into it (one copy per step, no proxy thread).
 * Waiting sides sleep on futexes and the publishing side wakes them, so this works across processes and when
 * ranks outnumber cores. The file is unlinked as soon as the sender has attached.
 *
 * <p>Owned by: created per communicator; setup on the launching thread, data moved by the channel threads.
 * Mirrors: transport/shm.cc (without a proxy: CPU peers write directly).
 */
public final class ShmTransport implements Transport {
    public static final String NAME = "SHM";
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final long DATA_OFF = 4096;
    private static final long LL_CTRL_OFF = 1024;
    private static final long LL128_CTRL_OFF = 2048;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final java.util.function.Supplier<Arena> arena;
    private final CommHealth health;
    private final String commId;
    private final int rank;
    private final long timeoutNs;
    private final IdlePolicy policy;
    private final Set<String> unattached = ConcurrentHashMap.newKeySet();

    /**
     * {@code arena}: where connectors are mapped, asked at each setup (a communicator that can be suspended hands
     * out a new arena after each suspend).
     */
    public ShmTransport(java.util.function.Supplier<Arena> arena, CommHealth health, String commId, int rank,
                        long timeoutNs, IdlePolicy policy) {
        this.arena = arena;
        this.health = health;
        this.commId = commId;
        this.rank = rank;
        this.timeoutNs = timeoutNs;
        this.policy = policy;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public PendingRecv setupRecv(int peer, int channel, int stepBytes) {
        String name = ShmFiles.PREFIX + commId.substring(0, 8) + "-" + ProcessHandle.current().pid() + "-r" + rank
                + "-from" + peer + "-c" + channel + "-" + HexFormat.of().toHexDigits(RANDOM.nextInt());
        Arena a = arena.get();
        MemorySegment m = ShmFiles.create(name, fileBytes(stepBytes), a);
        unattached.add(name);
        ConnFifo fifo = new ConnFifo(m.asSlice(0, ConnFifo.CTRL_BYTES), m.asSlice(DATA_OFF, simpleBytes(stepBytes)),
                stepBytes);
        byte[] info = encode(name, stepBytes);
        return new PendingRecv() {
            @Override
            public byte[] info() {
                return info;
            }

            @Override
            public RecvConn complete() {
                waitAttached(fifo.ctrl(), peer, channel);
                ShmFiles.unlink(name);
                unattached.remove(name);
                RecvConn conn = new RecvConn(fifo, new FutexWaker(fifo.ctrl(), ConnFifo.HEAD_WAITER_OFF,
                        ConnFifo.HEAD_OFF), health, timeoutNs, policy, new FutexSleeper(fifo.ctrl(),
                        ConnFifo.TAIL_WAITER_OFF, ConnFifo.TAIL_OFF, a), rank, peer, channel, NAME);
                conn.attachLines(recvLane(m, a, LineFormat.LL, stepBytes, peer, channel),
                        recvLane(m, a, LineFormat.LL128, stepBytes, peer, channel));
                return conn;
            }
        };
    }

    @Override
    public SendConn connectSend(int peer, int channel, byte[] recvInfo) {
        Info info = Info.decode(recvInfo, peer);
        String name = info.name();
        int stepBytes = info.stepBytes();
        Arena a = arena.get();
        MemorySegment m = ShmFiles.attach(name, fileBytes(stepBytes), a);
        ConnFifo fifo = new ConnFifo(m.asSlice(0, ConnFifo.CTRL_BYTES), m.asSlice(DATA_OFF, simpleBytes(stepBytes)),
                stepBytes);
        LONG.setRelease(fifo.ctrl(), ConnFifo.ATTACHED_OFF, 1L);
        SendConn conn = new SendConn(fifo, new FutexWaker(fifo.ctrl(), ConnFifo.TAIL_WAITER_OFF, ConnFifo.TAIL_OFF),
                health, timeoutNs, policy, new FutexSleeper(fifo.ctrl(), ConnFifo.HEAD_WAITER_OFF, ConnFifo.HEAD_OFF,
                a), rank, peer, channel, NAME);
        conn.attachLines(sendLane(m, a, LineFormat.LL, stepBytes, peer, channel),
                sendLane(m, a, LineFormat.LL128, stepBytes, peer, channel));
        return conn;
    }

    private static long simpleBytes(int stepBytes) {
        return (long) ConnFifo.NSTEPS * stepBytes;
    }

    private static long fileBytes(int stepBytes) {
        return DATA_OFF + simpleBytes(stepBytes) + LineFormat.LL.regionBytes() + LineFormat.LL128.regionBytes();
    }

    private static LineRegion region(MemorySegment m, LineFormat f, int stepBytes) {
        long ctrl = f == LineFormat.LL ? LL_CTRL_OFF : LL128_CTRL_OFF;
        long data = DATA_OFF + simpleBytes(stepBytes) + (f == LineFormat.LL ? 0 : LineFormat.LL.regionBytes());
        return new LineRegion(f, m.asSlice(ctrl, LineRegion.CTRL_BYTES), m.asSlice(data, f.regionBytes()));
    }

    private LineRecvLane recvLane(MemorySegment m, Arena arena, LineFormat f, int stepBytes, int peer, int channel) {
        LineRegion r = region(m, f, stepBytes);
        return new LineRecvLane(r, arena, health, timeoutNs, policy,
                new FutexSleeper(r.ctrl(), LineRegion.TAIL_WAITER_OFF, LineRegion.TAIL_OFF, arena),
                new FutexWaker(r.ctrl(), LineRegion.HEAD_WAITER_OFF, LineRegion.HEAD_OFF), rank, peer, channel);
    }

    private LineSendLane sendLane(MemorySegment m, Arena arena, LineFormat f, int stepBytes, int peer, int channel) {
        LineRegion r = region(m, f, stepBytes);
        return new LineSendLane(r, arena, health, timeoutNs, policy,
                new FutexSleeper(r.ctrl(), LineRegion.HEAD_WAITER_OFF, LineRegion.HEAD_OFF, arena),
                new FutexWaker(r.ctrl(), LineRegion.TAIL_WAITER_OFF, LineRegion.TAIL_OFF), rank, peer, channel);
    }

    private void waitAttached(MemorySegment ctrl, int peer, int channel) {
        Backoff b = new Backoff(health, timeoutNs, policy, peer);
        Object what = "rank " + rank + " waiting for rank " + peer + " to map its shared memory connector (channel "
                + channel + ")";
        while ((long) LONG.getAcquire(ctrl, ConnFifo.ATTACHED_OFF) == 0) {
            b.idle(() -> (long) LONG.getAcquire(ctrl, ConnFifo.ATTACHED_OFF) == 0, what);
        }
    }

    /** Removes files whose sender never attached (suspend: the connectors are dropped; their memory goes next). */
    @Override
    public void release() {
        cleanup();
    }

    /** Removes files whose sender never attached (called at teardown). */
    public void cleanup() {
        for (String n : unattached) {
            ShmFiles.unlink(n);
        }
        unattached.clear();
    }

    /** What a receiver offers: its FIFO file's name and slot size. */
    public record Info(String name, int stepBytes) {
        /** Parses and checks an offer from {@code peer}: a file under our prefix, a sane slot size, nothing more. */
        public static Info decode(byte[] b, int peer) {
            String name;
            int stepBytes;
            try {
                DataInputStream d = new DataInputStream(new ByteArrayInputStream(b));
                name = d.readUTF();
                stepBytes = d.readInt();
                if (d.available() != 0) {
                    throw new IOException(d.available() + " trailing bytes");
                }
            } catch (IOException e) {
                throw new JcclException(Result.INTERNAL_ERROR, "corrupt shm connection info from rank " + peer, e);
            }
            if (!name.startsWith(ShmFiles.PREFIX) || name.contains("/") || name.contains("\0") || name.length() > 200) {
                throw new JcclException(Result.REMOTE_ERROR, "rank " + peer + " offered a bad shm file name");
            }
            if (stepBytes <= 0 || stepBytes > (1 << 30)) {
                throw new JcclException(Result.REMOTE_ERROR, "rank " + peer + " offered a bad shm slot size "
                        + stepBytes);
            }
            return new Info(name, stepBytes);
        }
    }

    private static byte[] encode(String name, int stepBytes) {
        try {
            ByteArrayOutputStream bos = new ByteArrayOutputStream();
            DataOutputStream d = new DataOutputStream(bos);
            d.writeUTF(name);
            d.writeInt(stepBytes);
            return bos.toByteArray();
        } catch (IOException e) {
            throw new JcclException(Result.INTERNAL_ERROR, "cannot encode shm info", e);
        }
    }
}
