package io.jccl.cuda;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.cuda.internal.driver.CuIpcGraphs;
import io.jccl.cuda.internal.driver.CuMemory;
import io.jccl.cuda.internal.driver.CuStreams;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Objects;

/**
 * A range of device memory on one {@link CudaDevice}: allocated here ({@link #allocate}), a view of another
 * buffer ({@link #slice}), another process's allocation mapped through a CUDA IPC handle ({@link #openIpcHandle}),
 * or memory another library allocated in this process ({@link #wrap}: a tensor's data pointer, a cudaMalloc'd
 * block). {@link #close()} frees what this object owns (views and wrapped memory own nothing). Allocations are
 * 256-byte aligned, which JCCL's kernels need for their 16-byte vector path (other alignments work, slower).
 *
 * <p>Copies to and from host memory accept any {@link MemorySegment}; heap segments are staged through native
 * memory, and the asynchronous forms need native memory (pinned: {@link PinnedBuffer}, or they run synchronously).
 *
 * <p>Thread: use from one thread at a time; closing while a stream still uses the memory is the caller's bug
 * (as with cudaFree). Mirrors the device buffers NCCL's users pass as sendbuff/recvbuff.
 */
public final class DeviceBuffer implements AutoCloseable {
    private enum Owner { ALLOCATED, IPC_MAPPED, VIEW, BORROWED }

    private final CudaDevice device;
    private final long address;
    private final long sizeBytes;
    private final Owner owner;
    private final DeviceBuffer parent;
    /**
     * Wrapped memory that peer access does not reach (a memory pool's, cuMemCreate's): other GPUs may read and write
     * it only where its owner granted them access.
     */
    private final boolean grantedAccessOnly;
    /** Bit d: GPU d was found to have read-write access to {@link #grantedAccessOnly} memory. */
    private long reachableFrom;
    private boolean closed;

    private DeviceBuffer(CudaDevice device, long address, long sizeBytes, Owner owner, DeviceBuffer parent) {
        this(device, address, sizeBytes, owner, parent, parent != null && parent.grantedAccessOnly);
    }

    private DeviceBuffer(CudaDevice device, long address, long sizeBytes, Owner owner, DeviceBuffer parent,
                         boolean grantedAccessOnly) {
        this.device = device;
        this.address = address;
        this.sizeBytes = sizeBytes;
        this.owner = owner;
        this.parent = parent;
        this.grantedAccessOnly = grantedAccessOnly;
    }

    /**
     * Allocates {@code sizeBytes} of device memory on {@code device} (cuMemAlloc; contents undefined).
     *
     * @throws JcclException {@link Result#INVALID_ARGUMENT} for a negative size, {@link Result#UNHANDLED_CUDA_ERROR}
     *                       when the device is out of memory
     */
    public static DeviceBuffer allocate(CudaDevice device, long sizeBytes) {
        Objects.requireNonNull(device, "device");
        if (sizeBytes < 0) {
            throw new JcclException(Result.INVALID_ARGUMENT, "cannot allocate " + sizeBytes + " bytes on device "
                    + device.ordinal() + ": the size must be >= 0");
        }
        device.makeCurrent();
        long address = CuMemory.alloc(Math.max(sizeBytes, 1));
        return new DeviceBuffer(device, address, sizeBytes, Owner.ALLOCATED, null);
    }

    /**
     * Maps an allocation exported by another process with {@link #exportIpcHandle} into {@code device}'s context.
     * Only works across processes of one node (opening a handle in the exporting process fails).
     */
    public static DeviceBuffer openIpcHandle(CudaDevice device, byte[] handle, long sizeBytes) {
        Objects.requireNonNull(device, "device");
        Objects.requireNonNull(handle, "handle");
        if (handle.length != CuIpcGraphs.IPC_HANDLE_BYTES) {
            throw new JcclException(Result.INVALID_ARGUMENT, "a CUDA IPC handle has " + CuIpcGraphs.IPC_HANDLE_BYTES
                    + " bytes, got " + handle.length);
        }
        device.makeCurrent();
        return new DeviceBuffer(device, CuIpcGraphs.ipcOpenMemHandle(handle), sizeBytes, Owner.IPC_MAPPED, null);
    }

    /**
     * Device memory that another library allocated in this process (cudaMalloc, cuMemAlloc, a caching allocator's
     * block, a tensor's data pointer), as NCCL takes any {@code void*} of device memory. JCCL asks the driver
     * whether {@code [address, address + sizeBytes)} is device memory of {@code device} inside one allocation, and
     * refuses it otherwise. The owner keeps it alive until the streams using it are done; {@link #close()} frees
     * nothing.
     *
     * @throws JcclException {@link Result#INVALID_ARGUMENT} naming the address and what the driver says it is
     */
    public static DeviceBuffer wrap(CudaDevice device, long address, long sizeBytes) {
        Objects.requireNonNull(device, "device");
        String what = "0x" + Long.toHexString(address) + " (+" + sizeBytes + " bytes) on GPU " + device.ordinal();
        if (address == 0 || sizeBytes < 0) {
            throw cannotWrap(what, address == 0 ? "the address is null" : "the size must be >= 0", null);
        }
        device.makeCurrent();
        int type;
        try {
            type = (int) CuMemory.pointerAttribute(CuMemory.POINTER_MEMORY_TYPE, address);
        } catch (JcclException e) {
            throw cannotWrap(what, "the CUDA driver does not know this address (" + e.getMessage() + "); pass device "
                    + "memory this process allocated (cudaMalloc, cuMemAlloc, a tensor's data pointer)", e);
        }
        if (type != CuMemory.MEMORYTYPE_DEVICE) {
            throw cannotWrap(what, "it is " + (type == CuMemory.MEMORYTYPE_HOST ? "host memory" : "memory of type "
                    + type) + ", not device memory; copy it into a DeviceBuffer", null);
        }
        int ordinal = (int) CuMemory.pointerAttribute(CuMemory.POINTER_DEVICE_ORDINAL, address);
        if (ordinal != device.ordinal()) {
            throw cannotWrap(what, "it is memory of GPU " + ordinal, null);
        }
        long start = CuMemory.pointerAttribute(CuMemory.POINTER_RANGE_START_ADDR, address);
        long size = CuMemory.pointerAttribute(CuMemory.POINTER_RANGE_SIZE, address);
        if (sizeBytes > start + size - address) {
            throw cannotWrap(what, "it runs past the end of its allocation [0x" + Long.toHexString(start) + ", +" + size
                    + " bytes) by " + (sizeBytes - (start + size - address)) + " bytes", null);
        }
        boolean legacy = CuMemory.pointerAttribute(CuMemory.POINTER_IS_LEGACY_CUDA_IPC_CAPABLE, address) != 0;
        return new DeviceBuffer(device, address, sizeBytes, Owner.BORROWED, null, !legacy);
    }

    private static JcclException cannotWrap(String what, String why, Throwable cause) {
        return new JcclException(Result.INVALID_ARGUMENT, "cannot wrap " + what + ": " + why, cause);
    }

    /** True for wrapped memory that peer access does not reach (a memory pool's, cuMemCreate's). */
    boolean grantedAccessOnly() {
        return grantedAccessOnly;
    }

    /**
     * For {@link #grantedAccessOnly()} memory that kernels on {@code gpus} will read and write: each of them must
     * have been granted read-write access (cudaMemPoolSetAccess, cuMemSetAccess). Asks the driver once per GPU.
     *
     * @throws JcclException {@link Result#INVALID_ARGUMENT} naming the GPU that has no access
     */
    void requireReachableFrom(List<CudaDevice> gpus, String where, String what) {
        if (!grantedAccessOnly) {
            return;
        }
        for (CudaDevice gpu : gpus) {
            long bit = 1L << gpu.ordinal();
            if (gpu == device || (reachableFrom & bit) != 0) {
                continue;
            }
            gpu.makeCurrent();
            long flags = CuMemory.pointerAttribute(CuMemory.POINTER_ACCESS_FLAGS, address);
            device.makeCurrent();
            if (flags != CuMemory.ACCESS_FLAG_READWRITE) {
                throw new JcclException(Result.INVALID_ARGUMENT, where + ": the " + what + " buffer (0x"
                        + Long.toHexString(address) + ", a memory pool's or cuMemCreate's memory) is not readable and "
                        + "writable from GPU " + gpu.ordinal() + " (access flags " + flags + "), and at this size the "
                        + "kernel reads and writes every rank's buffers from every GPU; grant the communicator's GPUs "
                        + "read-write access (cudaMemPoolSetAccess, cuMemSetAccess) or use memory from cudaMalloc or "
                        + "DeviceBuffer.allocate");
            }
            reachableFrom |= bit;
        }
    }

    public CudaDevice device() {
        return device;
    }

    /** The device address (CUdeviceptr), usable by any device with peer access and by kernels. */
    public long address() {
        checkOpen();
        return address;
    }

    public long sizeBytes() {
        return sizeBytes;
    }

    /** A view of {@code [offset, offset + length)} of this buffer; closing the view frees nothing. */
    public DeviceBuffer slice(long offset, long length) {
        checkOpen();
        if (offset < 0 || length < 0 || offset > sizeBytes - length) {
            throw new JcclException(Result.INVALID_ARGUMENT, "slice [" + offset + ", " + offset + "+" + length
                    + ") is outside a buffer of " + sizeBytes + " bytes");
        }
        return new DeviceBuffer(device, address + offset, length, Owner.VIEW, this);
    }

    /**
     * Copies all of {@code host} to the start of this buffer and waits until the device memory holds it (the copy
     * runs on the device's internal stream; it is not ordered with work on other streams: synchronise those first).
     */
    public void copyFrom(MemorySegment host) {
        checkCopy(host.byteSize(), "copyFrom");
        device.makeCurrent();
        MemorySegment stream = device.copyStream();
        if (host.isNative()) {
            CuMemory.copyHtoDAsync(address, host, host.byteSize(), stream);
            CuStreams.synchronizeStream(stream);
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment staged = arena.allocate(host.byteSize(), 16);
            staged.copyFrom(host);
            CuMemory.copyHtoDAsync(address, staged, host.byteSize(), stream);
            CuStreams.synchronizeStream(stream);
        }
    }

    /**
     * Copies the first {@code host.byteSize()} bytes of this buffer into {@code host} and waits for the copy (not
     * ordered with work on other streams: synchronise those first).
     */
    public void copyTo(MemorySegment host) {
        checkCopy(host.byteSize(), "copyTo");
        requireWritable(host, "copyTo");
        device.makeCurrent();
        MemorySegment stream = device.copyStream();
        if (host.isNative()) {
            CuMemory.copyDtoHAsync(host, address, host.byteSize(), stream);
            CuStreams.synchronizeStream(stream);
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment staged = arena.allocate(host.byteSize(), 16);
            CuMemory.copyDtoHAsync(staged, address, host.byteSize(), stream);
            CuStreams.synchronizeStream(stream);
            host.copyFrom(staged);
        }
    }

    /** Stream-ordered copy of native {@code host} memory into this buffer (asynchronous if it is pinned). */
    public void copyFromAsync(MemorySegment host, CudaStream stream) {
        checkCopy(host.byteSize(), "copyFromAsync");
        requireNative(host);
        device.makeCurrent();
        CuMemory.copyHtoDAsync(address, host, host.byteSize(), stream.handle());
    }

    /** Stream-ordered copy of this buffer's first bytes into native {@code host} memory. */
    public void copyToAsync(MemorySegment host, CudaStream stream) {
        checkCopy(host.byteSize(), "copyToAsync");
        requireNative(host);
        requireWritable(host, "copyToAsync");
        device.makeCurrent();
        CuMemory.copyDtoHAsync(host, address, host.byteSize(), stream.handle());
    }

    /**
     * Stream-ordered copy of {@code bytes} from {@code src} (any device; over NVLink/PCIe for a peer) into this
     * buffer, queued on {@code stream}.
     */
    public void copyFromAsync(DeviceBuffer src, long bytes, CudaStream stream) {
        checkCopy(bytes, "copyFromAsync");
        if (bytes > src.sizeBytes()) {
            throw new JcclException(Result.INVALID_ARGUMENT, "cannot copy " + bytes + " bytes from a buffer of "
                    + src.sizeBytes() + " bytes");
        }
        stream.device().makeCurrent();
        if (src.device == device) {
            CuMemory.copyDtoDAsync(address, src.address(), bytes, stream.handle());
        } else {
            CuMemory.copyPeerAsync(address, device.context(), src.address(), src.device.context(), bytes,
                    stream.handle());
        }
    }

    /** Sets every byte to {@code value}, stream-ordered. */
    public void fillAsync(byte value, CudaStream stream) {
        checkOpen();
        device.makeCurrent();
        CuMemory.memsetD8Async(address, value, sizeBytes, stream.handle());
    }

    /** Sets every byte to zero and waits until the device memory is written (on the device's internal stream). */
    public void zero() {
        checkOpen();
        device.makeCurrent();
        MemorySegment stream = device.copyStream();
        CuMemory.memsetD8Async(address, (byte) 0, sizeBytes, stream);
        CuStreams.synchronizeStream(stream);
    }

    /**
     * The 64-byte CUDA IPC handle of this allocation, for {@link #openIpcHandle} in another process on this node.
     * Only whole allocations (not slices or mapped buffers) can be exported.
     */
    public byte[] exportIpcHandle() {
        checkOpen();
        if (owner != Owner.ALLOCATED) {
            throw new JcclException(Result.INVALID_USAGE, "only a buffer allocated with DeviceBuffer.allocate can be "
                    + "exported; this one is a " + owner.name().toLowerCase(java.util.Locale.ROOT));
        }
        device.makeCurrent();
        return CuIpcGraphs.ipcGetMemHandle(address);
    }

    /** Frees the memory (or unmaps an IPC mapping); views and wrapped memory free nothing. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        switch (owner) {
            case ALLOCATED -> {
                device.makeCurrent();
                CuMemory.free(address);
            }
            case IPC_MAPPED -> {
                device.makeCurrent();
                CuIpcGraphs.ipcCloseMemHandle(address);
            }
            case VIEW, BORROWED -> { }
        }
    }

    private void checkOpen() {
        if (closed || (parent != null && parent.closed)) {
            throw new JcclException(Result.INVALID_USAGE, "device buffer of " + sizeBytes + " bytes on device "
                    + device.ordinal() + " is closed");
        }
    }

    private void checkCopy(long bytes, String what) {
        checkOpen();
        if (bytes > sizeBytes) {
            throw new JcclException(Result.INVALID_ARGUMENT, what + " of " + bytes + " bytes does not fit a device "
                    + "buffer of " + sizeBytes + " bytes");
        }
    }

    private static void requireWritable(MemorySegment host, String what) {
        if (host.isReadOnly()) {
            throw new JcclException(Result.INVALID_ARGUMENT, what + " into a read-only segment of " + host.byteSize()
                    + " bytes: the copy writes it");
        }
    }

    private static void requireNative(MemorySegment host) {
        if (!host.isNative()) {
            throw new JcclException(Result.INVALID_ARGUMENT, "asynchronous copies need native host memory "
                    + "(a PinnedBuffer's segment, or Arena-allocated memory); got a heap segment");
        }
    }

    @Override
    public String toString() {
        return "DeviceBuffer[device " + device.ordinal() + ", 0x" + Long.toHexString(address) + ", " + sizeBytes
                + " bytes, " + owner.name().toLowerCase(java.util.Locale.ROOT) + "]";
    }
}
