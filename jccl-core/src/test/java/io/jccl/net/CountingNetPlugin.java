package io.jccl.net;

import io.jccl.internal.transport.net.socket.NetInterfaces;
import io.jccl.internal.transport.net.socket.SocketNetPlugin;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A third-party-style plugin found by ServiceLoader (META-INF/services in the test resources): the socket plugin
 * over loopback, counting the sends it carries so a test can see that the data went through it.
 */
public final class CountingNetPlugin implements NetPlugin {
    /** Sends carried by every instance. */
    public static final AtomicLong SENDS = new AtomicLong();
    private final NetPlugin inner = new SocketNetPlugin(List.of(new NetInterfaces.IfAddress("lo",
            InetAddress.getLoopbackAddress())), -1, null);

    @Override
    public String name() {
        return "Counting";
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
        return inner.connect(dev, handle);
    }

    @Override
    public RecvComm accept(ListenComm listenComm) throws IOException {
        return inner.accept(listenComm);
    }

    @Override
    public MemHandle regMr(Comm comm, MemorySegment segment) throws IOException {
        return inner.regMr(comm, segment);
    }

    @Override
    public void deregMr(Comm comm, MemHandle handle) throws IOException {
        inner.deregMr(comm, handle);
    }

    @Override
    public Request isend(SendComm comm, MemHandle mhandle, long offset, int sizeBytes, int tag) throws IOException {
        Request r = inner.isend(comm, mhandle, offset, sizeBytes, tag);
        if (r != null) {
            SENDS.incrementAndGet();
        }
        return r;
    }

    @Override
    public Request irecv(RecvComm comm, MemHandle mhandle, long offset, int maxBytes, int tag) throws IOException {
        return inner.irecv(comm, mhandle, offset, maxBytes, tag);
    }

    @Override
    public boolean test(Request request) throws IOException {
        return inner.test(request);
    }

    @Override
    public void closeSend(SendComm comm) throws IOException {
        inner.closeSend(comm);
    }

    @Override
    public void closeRecv(RecvComm comm) throws IOException {
        inner.closeRecv(comm);
    }

    @Override
    public void closeListen(ListenComm comm) throws IOException {
        inner.closeListen(comm);
    }
}
