package io.jccl.internal.transport.net.socket;

import io.jccl.internal.base.Tls;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;
import io.jccl.internal.param.Params;
import io.jccl.net.NetListen;
import io.jccl.net.NetPlugin;
import io.jccl.net.NetProperties;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The built-in network plugin {@code Socket}: TCP over the interfaces {@link NetInterfaces} picked (one device per
 * address). A connection is one control socket plus {@code NCCL_SOCKET_NTHREADS x NCCL_NSOCKS_PERTHREAD} data
 * sockets when that product is above 1 (at most {@link #MAX_SOCKS}); large messages are cut across the data
 * sockets, moved by helper threads when there are several threads. Connections of GPU ranks take
 * {@link #forDeviceMemory} when neither parameter is set: {@value #GPU_THREADS} helper threads of
 * {@value #GPU_SOCKS_PER_THREAD} sockets, since there the proxy thread also serves the kernels' FIFOs, and a socket
 * moved off that thread keeps the link busy while it polls (on one time-shared H100 with two "hosts", 1.3 to 1.7 times
 * the busbw of one socket on the proxy thread).
 *
 * <p>Owned by: one per communicator; see {@link NetPlugin} for which thread calls what. Mirrors: net_socket.cc
 * (ncclNetSocket).
 */
public final class SocketNetPlugin implements NetPlugin {
    /** Most data sockets per connection, NCCL's MAX_SOCKETS. */
    public static final int MAX_SOCKS = 64;
    /** Helper threads per connection of GPU ranks when NCCL_SOCKET_NTHREADS is not set. */
    static final int GPU_THREADS = 2;
    /** Sockets per helper thread of GPU ranks' connections when NCCL_NSOCKS_PERTHREAD is not set. */
    static final int GPU_SOCKS_PER_THREAD = 2;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final List<NetInterfaces.IfAddress> devices;
    private final Map<String, SocketConnect> connecting = new ConcurrentHashMap<>();
    private final int threads;
    private final int dataSocks;
    private final Tls tls;

    /**
     * A plugin over {@code devices} (the first is device 0), with NCCL_SOCKET_NTHREADS x NCCL_NSOCKS_PERTHREAD
     * sockets per connection, each under TLS when {@code tls} is not null.
     */
    public SocketNetPlugin(List<NetInterfaces.IfAddress> devices, int rank, Tls tls) {
        this(devices, Params.SOCKET_NTHREADS.get(), Params.NSOCKS_PERTHREAD.get(), tls);
        if (devices.isEmpty()) {
            throw new IllegalArgumentException("no network device");
        }
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < devices.size(); i++) {
            b.append(i == 0 ? "" : " ").append('[').append(i).append(']').append(devices.get(i).ifName()).append(':')
                    .append(devices.get(i).address().getHostAddress()).append('<').append(i).append('>');
        }
        Log.info(Subsys.NET, rank, "NET/Socket : Using %s%s", b, tls == null ? "" : "; " + tls.describe());
        logSockets(rank, "");
    }

    private SocketNetPlugin(List<NetInterfaces.IfAddress> devices, int threads, int socksPerThread, Tls tls) {
        this.devices = List.copyOf(devices);
        this.tls = tls;
        this.threads = threads;
        int n = Math.min(MAX_SOCKS, threads * socksPerThread);
        this.dataSocks = n <= 1 ? 0 : n;
    }

    /**
     * The plugin for GPU ranks' connections: the same devices with {@value #GPU_THREADS} helper threads of
     * {@value #GPU_SOCKS_PER_THREAD} sockets each, unless NCCL_SOCKET_NTHREADS or NCCL_NSOCKS_PERTHREAD is set
     * (then this plugin). Both ends of a connection take the listener's socket count from its handle.
     */
    public SocketNetPlugin forDeviceMemory(int rank) {
        if (Params.SOCKET_NTHREADS.isSet() || Params.NSOCKS_PERTHREAD.isSet()) {
            return this;
        }
        SocketNetPlugin p = new SocketNetPlugin(devices, GPU_THREADS, GPU_SOCKS_PER_THREAD, tls);
        p.logSockets(rank, "GPU connections: ");
        return p;
    }

    private void logSockets(int rank, String what) {
        Log.info(Subsys.NET, rank, "NET/Socket : %s%d threads and %d sockets per thread (%d data sockets per "
                + "connection%s)", what, threads, dataSocks == 0 ? 1 : dataSocks / threads, dataSocks,
                dataSocks == 0 ? ": all on the control socket" : "");
    }

    /** True when every connection runs under TLS. */
    public boolean encrypted() {
        return tls != null;
    }

    /** Helper threads per connection. */
    int threads() {
        return threads;
    }

    /** Data sockets per connection: 0 when threads x sockets per thread is 1 (the control socket carries all). */
    int dataSocks() {
        return dataSocks;
    }

    static void configure(SocketChannel ch) throws IOException {
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        ch.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
    }

    @Override
    public String name() {
        return "Socket";
    }

    @Override
    public int devices() {
        return devices.size();
    }

    @Override
    public NetProperties properties(int dev) {
        NetInterfaces.IfAddress a = devices.get(dev);
        return new NetProperties(a.ifName(), NetInterfaces.pciPath(a.ifName()), dev,
                NetInterfaces.speedMbps(a.ifName()),
                0, 0, 65536, 1, NetProperties.PTR_HOST);
    }

    @Override
    public NetListen listen(int dev) throws IOException {
        ServerSocketChannel ss = ServerSocketChannel.open();
        try {
            ss.bind(new InetSocketAddress(devices.get(dev).address(), 0), 64);
            ss.configureBlocking(false);
        } catch (IOException e) {
            ss.close();
            throw new IOException("cannot listen on " + devices.get(dev) + ": " + e.getMessage(), e);
        }
        SocketHandle h = new SocketHandle((InetSocketAddress) ss.getLocalAddress(), RANDOM.nextLong(), dataSocks());
        return new NetListen(h.toBytes(), new SocketListen(ss, h, threads(), tls));
    }

    @Override
    public SendComm connect(int dev, byte[] handle) throws IOException {
        String key = dev + ":" + HexFormat.of().formatHex(handle);
        SocketConnect c = connecting.get(key);
        if (c == null) {
            c = new SocketConnect(SocketHandle.fromBytes(handle), threads(), tls);
            connecting.put(key, c);
        }
        try {
            SocketComm comm = c.advance();
            if (comm != null) {
                connecting.remove(key);
            }
            return comm;
        } catch (IOException e) {
            connecting.remove(key);
            c.abandon();
            throw e;
        }
    }

    @Override
    public RecvComm accept(ListenComm listenComm) throws IOException {
        return ((SocketListen) listenComm).poll();
    }

    @Override
    public MemHandle regMr(Comm comm, MemorySegment segment) throws IOException {
        if (segment.byteSize() > Integer.MAX_VALUE) {
            throw new IOException("cannot register " + segment.byteSize() + " bytes (2 GiB at most)");
        }
        return new SocketMr(segment, segment.asByteBuffer());
    }

    @Override
    public void deregMr(Comm comm, MemHandle handle) {
        // nothing to release
    }

    @Override
    public Request isend(SendComm comm, MemHandle mhandle, long offset, int sizeBytes, int tag) throws IOException {
        return ((SocketComm) comm).post((SocketMr) mhandle, offset, sizeBytes, tag);
    }

    @Override
    public Request irecv(RecvComm comm, MemHandle mhandle, long offset, int maxBytes, int tag) throws IOException {
        return ((SocketComm) comm).post((SocketMr) mhandle, offset, maxBytes, tag);
    }

    @Override
    public boolean test(Request request) throws IOException {
        SocketRequest r = (SocketRequest) request;
        return r.comm.test(r);
    }

    @Override
    public void closeSend(SendComm comm) {
        ((SocketComm) comm).close();
    }

    @Override
    public void closeRecv(RecvComm comm) {
        ((SocketComm) comm).close();
    }

    @Override
    public void closeListen(ListenComm comm) {
        ((SocketListen) comm).close();
    }
}
