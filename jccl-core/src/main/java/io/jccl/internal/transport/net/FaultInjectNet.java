package io.jccl.internal.transport.net;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;
import io.jccl.net.NetListen;
import io.jccl.net.NetPlugin;
import io.jccl.net.NetProperties;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * A network plugin that wraps another and injects faults, for tests ({@code NCCL_NET=FaultInject} or
 * {@code JCCL_NET_FAULT=spec}): {@code delay=5ms} holds every request that long before it may complete;
 * {@code drop=after:N} closes the connection carrying the N-th send (the peer sees it vanish mid-run);
 * {@code corrupt=p:X} flips one received byte with probability X per message, {@code corrupt=after:N} flips one in
 * the N-th received message; {@code rank=R} limits the faults to one rank; {@code seed=S} fixes the randomness.
 * Requests are allocated per call: this plugin is for testing, not speed.
 *
 * <p>Owned by: as {@link NetPlugin} (setup thread, then the proxy thread). Mirrors: nothing in NCCL.
 */
public final class FaultInjectNet implements NetPlugin {
    /** The plugin's name for {@code NCCL_NET}. */
    public static final String NAME = "FaultInject";

    /**
     * A parsed fault spec.
     *
     * @param delayNs       delay before any request may complete
     * @param dropAfter     sends before a connection is dropped (0: never)
     * @param corruptP      probability of corrupting a received message
     * @param corruptAfter  received messages before one is corrupted (0: never)
     * @param rank          the rank the faults apply to (-1: all)
     * @param seed          random seed
     */
    public record Spec(long delayNs, long dropAfter, double corruptP, long corruptAfter, int rank, long seed) {
        /** Parses {@code delay=5ms,drop=after:100,corrupt=p:0.001,rank=1,seed=1}; empty: no faults. */
        public static Spec parse(String spec) {
            long delay = 0;
            long drop = 0;
            double p = 0;
            long corruptAfter = 0;
            int rank = -1;
            long seed = 1;
            for (String part : spec.split(",")) {
                String t = part.trim().toLowerCase(Locale.ROOT);
                if (t.isEmpty()) {
                    continue;
                }
                int eq = t.indexOf('=');
                String k = eq < 0 ? t : t.substring(0, eq);
                String v = eq < 0 ? "" : t.substring(eq + 1);
                try {
                    switch (k) {
                        case "delay" -> delay = durationNs(v);
                        case "drop" -> drop = Long.parseLong(after(v, "after:"));
                        case "corrupt" -> {
                            if (v.startsWith("p:")) {
                                p = Double.parseDouble(v.substring(2));
                            } else {
                                corruptAfter = Long.parseLong(after(v, "after:"));
                            }
                        }
                        case "rank" -> rank = Integer.parseInt(v);
                        case "seed" -> seed = Long.parseLong(v);
                        default -> throw new IllegalArgumentException("unknown fault '" + k + "'");
                    }
                } catch (RuntimeException e) {
                    throw new JcclException(Result.INVALID_ARGUMENT, "JCCL_NET_FAULT=" + spec + ": " + e.getMessage()
                            + " (expected e.g. delay=5ms,drop=after:100,corrupt=p:0.001,rank=1,seed=1)", e);
                }
            }
            return new Spec(delay, drop, p, corruptAfter, rank, seed);
        }

        private static String after(String v, String prefix) {
            if (!v.startsWith(prefix)) {
                throw new IllegalArgumentException("'" + v + "' should start with " + prefix);
            }
            return v.substring(prefix.length());
        }

        private static long durationNs(String v) {
            String[][] units = {{"ns", "1"}, {"us", "1000"}, {"ms", "1000000"}, {"s", "1000000000"}};
            for (String[] u : units) {
                if (v.endsWith(u[0])) {
                    return (long) (Double.parseDouble(v.substring(0, v.length() - u[0].length()))
                            * Long.parseLong(u[1]));
                }
            }
            return (long) (Double.parseDouble(v) * 1_000_000L);
        }
    }

    private final NetPlugin inner;
    private final Spec spec;
    private final boolean active;
    private final SplittableRandom random;
    private long sends;
    private long recvs;

    /** Wraps {@code inner}; faults apply when {@code spec.rank()} is -1 or {@code rank}. */
    public FaultInjectNet(NetPlugin inner, Spec spec, int rank) {
        this.inner = inner;
        this.spec = spec;
        this.active = spec.rank() < 0 || spec.rank() == rank;
        this.random = new SplittableRandom(spec.seed() * 31 + rank);
        if (active) {
            Log.info(Subsys.NET, rank, "NET/%s : injecting faults into %s: %s", NAME, inner.name(), spec);
        }
    }

    private record Send(SendComm inner) implements SendComm {
    }

    private record Recv(RecvComm inner) implements RecvComm {
    }

    private record Mr(MemHandle inner, MemorySegment segment) implements MemHandle {
    }

    private static final class Req implements Request {
        final Request inner;
        final Comm comm;
        final Mr mr;
        final long offset;
        final long readyNs;
        final boolean data;
        boolean done;

        Req(Request inner, Comm comm, Mr mr, long offset, long readyNs, boolean data) {
            this.data = data;
            this.inner = inner;
            this.comm = comm;
            this.mr = mr;
            this.offset = offset;
            this.readyNs = readyNs;
        }

        @Override
        public int sizeBytes() {
            return inner.sizeBytes();
        }
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int devices() throws IOException {
        return inner.devices();
    }

    @Override
    public NetProperties properties(int dev) throws IOException {
        return inner.properties(dev);
    }

    @Override
    public NetListen listen(int dev) throws IOException {
        return inner.listen(dev);
    }

    @Override
    public SendComm connect(int dev, byte[] handle) throws IOException {
        SendComm c = inner.connect(dev, handle);
        return c == null ? null : new Send(c);
    }

    @Override
    public RecvComm accept(ListenComm listenComm) throws IOException {
        RecvComm c = inner.accept(listenComm);
        return c == null ? null : new Recv(c);
    }

    private static Comm unwrap(Comm c) {
        return c instanceof Send s ? s.inner() : ((Recv) c).inner();
    }

    @Override
    public MemHandle regMr(Comm comm, MemorySegment segment) throws IOException {
        return new Mr(inner.regMr(unwrap(comm), segment), segment);
    }

    @Override
    public MemHandle regMr(Comm comm, MemorySegment segment, int ptrType) throws IOException {
        return new Mr(inner.regMr(unwrap(comm), segment, ptrType), segment);
    }

    @Override
    public Request iflush(RecvComm comm, MemHandle mhandle, long offset, int sizeBytes) throws IOException {
        Mr m = (Mr) mhandle;
        Request r = inner.iflush(((Recv) comm).inner(), m.inner(), offset, sizeBytes);
        return r == null ? null : new Req(r, comm, m, offset, System.nanoTime(), false);
    }

    @Override
    public void deregMr(Comm comm, MemHandle handle) throws IOException {
        inner.deregMr(unwrap(comm), ((Mr) handle).inner());
    }

    @Override
    public Request isend(SendComm comm, MemHandle mhandle, long offset, int sizeBytes, int tag) throws IOException {
        Send s = (Send) comm;
        Mr m = (Mr) mhandle;
        if (active && tag >= 0 && spec.dropAfter() > 0 && sends >= spec.dropAfter()) {
            inner.closeSend(s.inner());
            throw new IOException("fault injection: connection dropped after " + sends + " sends");
        }
        Request r = inner.isend(s.inner(), m.inner(), offset, sizeBytes, tag);
        if (r == null) {
            return null;
        }
        if (tag >= 0) {
            sends++;
        }
        return new Req(r, s, m, offset, System.nanoTime() + (active ? spec.delayNs() : 0), tag >= 0);
    }

    @Override
    public Request irecv(RecvComm comm, MemHandle mhandle, long offset, int maxBytes, int tag) throws IOException {
        Recv c = (Recv) comm;
        Mr m = (Mr) mhandle;
        Request r = inner.irecv(c.inner(), m.inner(), offset, maxBytes, tag);
        return r == null ? null : new Req(r, c, m, offset, System.nanoTime() + (active ? spec.delayNs() : 0),
                tag >= 0);
    }

    @Override
    public boolean test(Request request) throws IOException {
        Req r = (Req) request;
        if (!r.done) {
            r.done = inner.test(r.inner);
            if (r.done && active && r.data && r.comm instanceof Recv) {
                recvs++;
                boolean hit = (spec.corruptAfter() > 0 && recvs == spec.corruptAfter())
                        || (spec.corruptP() > 0 && random.nextDouble() < spec.corruptP());
                int size = r.inner.sizeBytes();
                if (hit && size > 0) {
                    long at = r.offset + random.nextInt(size);
                    byte b = r.mr.segment().get(ValueLayout.JAVA_BYTE, at);
                    r.mr.segment().set(ValueLayout.JAVA_BYTE, at, (byte) (b ^ (1 + random.nextInt(255))));
                }
            }
        }
        return r.done && System.nanoTime() >= r.readyNs;
    }

    @Override
    public void closeSend(SendComm comm) throws IOException {
        inner.closeSend(((Send) comm).inner());
    }

    @Override
    public void closeRecv(RecvComm comm) throws IOException {
        inner.closeRecv(((Recv) comm).inner());
    }

    @Override
    public void closeListen(ListenComm comm) throws IOException {
        inner.closeListen(comm);
    }
}
