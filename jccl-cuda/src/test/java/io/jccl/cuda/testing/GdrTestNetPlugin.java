package io.jccl.cuda.testing;

import io.jccl.internal.transport.net.NetPlugins;
import io.jccl.net.NetListen;
import io.jccl.net.NetPlugin;
import io.jccl.net.NetProperties;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A network plugin for tests that registers device memory ({@code ptrSupport} HOST|CUDA), so that GPU connectors
 * across hosts take the GPUDirect RDMA path; selected with {@code NCCL_NET=GdrTest}. It carries the bytes over the
 * built-in Socket plugin (with its GPU socket layout), which reads and writes memory through the CPU: it works only
 * where device memory has a CPU address, as on the CPU emulator of the CUDA driver, and refuses to register device
 * memory that has none. {@link #iflush} completes on the next {@link #test} after a full fence and is counted; the
 * count is printed when a receive comm closes ({@code NET/GdrTest : ... flushes}), so a test can see the proxy flushed.
 *
 * <p>Threads: as {@link NetPlugin} says (setup on the communicator's creating thread, data calls on its proxy thread).
 * Mirrors: a GDR-capable ncclNet_t (regMr with NCCL_PTR_CUDA, iflush) for the emulator.
 */
public final class GdrTestNetPlugin implements NetPlugin {
    private static final AtomicLong FLUSHES = new AtomicLong();
    private static final AtomicLong CUDA_REGISTRATIONS = new AtomicLong();
    private NetPlugin inner;

    /** A plugin over the loopback and other interfaces the Socket plugin would use; found by ServiceLoader. */
    public GdrTestNetPlugin() {
    }

    private synchronized NetPlugin inner() {
        if (inner == null) {
            inner = NetPlugins.forDeviceMemory(NetPlugins.builtinSocket(0, false), 0);
        }
        return inner;
    }

    @Override
    public String name() {
        return "GdrTest";
    }

    @Override
    public int devices() throws IOException {
        return inner().devices();
    }

    @Override
    public NetProperties properties(int dev) throws IOException {
        return inner().properties(dev).withPtrSupport(NetProperties.PTR_HOST | NetProperties.PTR_CUDA);
    }

    @Override
    public NetListen listen(int dev) throws IOException {
        return inner().listen(dev);
    }

    @Override
    public SendComm connect(int dev, byte[] handle) throws IOException {
        return inner().connect(dev, handle);
    }

    @Override
    public RecvComm accept(ListenComm listenComm) throws IOException {
        return inner().accept(listenComm);
    }

    @Override
    public MemHandle regMr(Comm comm, MemorySegment segment) throws IOException {
        return inner().regMr(comm, segment);
    }

    @Override
    public MemHandle regMr(Comm comm, MemorySegment segment, int ptrType) throws IOException {
        if (ptrType == NetProperties.PTR_CUDA) {
            if (!segment.isNative() || segment.address() == 0) {
                throw new IOException("GdrTest registers device memory only where the CPU addresses it (the emulator)");
            }
            CUDA_REGISTRATIONS.incrementAndGet();
        } else if (ptrType != NetProperties.PTR_HOST) {
            throw new IOException("GdrTest registers host and CUDA memory, not type " + ptrType);
        }
        return inner().regMr(comm, segment);
    }

    @Override
    public Request iflush(RecvComm comm, MemHandle mhandle, long offset, int sizeBytes) {
        return new Flush(sizeBytes);
    }

    @Override
    public void deregMr(Comm comm, MemHandle handle) throws IOException {
        inner().deregMr(comm, handle);
    }

    @Override
    public Request isend(SendComm comm, MemHandle mhandle, long offset, int sizeBytes, int tag) throws IOException {
        return inner().isend(comm, mhandle, offset, sizeBytes, tag);
    }

    @Override
    public Request irecv(RecvComm comm, MemHandle mhandle, long offset, int maxBytes, int tag) throws IOException {
        return inner().irecv(comm, mhandle, offset, maxBytes, tag);
    }

    @Override
    public boolean test(Request request) throws IOException {
        if (request instanceof Flush) {
            VarHandle.fullFence();
            FLUSHES.incrementAndGet();
            return true;
        }
        return inner().test(request);
    }

    @Override
    public void closeSend(SendComm comm) throws IOException {
        inner().closeSend(comm);
    }

    @Override
    public void closeRecv(RecvComm comm) throws IOException {
        inner().closeRecv(comm);
        System.out.println("NET/GdrTest : receive comm closed, " + FLUSHES.get() + " flushes, "
                + CUDA_REGISTRATIONS.get() + " CUDA registrations so far");
    }

    @Override
    public void closeListen(ListenComm comm) throws IOException {
        inner().closeListen(comm);
    }

    /** A flush: nothing in flight on the emulator, so it is done at the first test. */
    private record Flush(int sizeBytes) implements Request {
    }
}
