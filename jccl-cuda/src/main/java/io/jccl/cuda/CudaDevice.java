package io.jccl.cuda;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.cuda.internal.driver.CuDevices;
import io.jccl.cuda.internal.driver.CuMemory;
import io.jccl.cuda.internal.driver.CuStreams;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * One CUDA device, seen through the driver API (no CUDA runtime): its ordinal, name, PCI bus id, compute
 * capability and multiprocessor count. The first {@link #get} of an ordinal retains the device's <em>primary
 * context</em> (the one the CUDA runtime, PyTorch and NCCL use too) for the life of the process.
 *
 * <p>Driver calls act on the context current on the calling OS thread; every JCCL method that touches a device
 * makes its context current first, so callers never need {@link #makeCurrent} unless they call the driver
 * themselves. Use platform threads for CUDA work (a virtual thread may move between carrier threads).
 *
 * <p>Thread: immutable, safe from any thread. Mirrors the device part of NCCL's comm setup (cudaGetDevice,
 * busId, compute capability).
 */
public final class CudaDevice {
    private static final Object LOCK = new Object();
    private static volatile CudaDevice[] devices;

    private final int ordinal;
    private final int handle;
    private final String name;
    private final String pciBusId;
    private final int ccMajor;
    private final int ccMinor;
    private final int multiprocessorCount;
    private final long totalMemoryBytes;
    private final MemorySegment context;
    private volatile MemorySegment copyStream;

    private CudaDevice(int ordinal) {
        this.ordinal = ordinal;
        this.handle = CuDevices.device(ordinal);
        this.name = CuDevices.name(handle);
        this.pciBusId = CuDevices.pciBusId(handle);
        this.ccMajor = CuDevices.attribute(handle, CuDevices.ATTR_COMPUTE_CAPABILITY_MAJOR);
        this.ccMinor = CuDevices.attribute(handle, CuDevices.ATTR_COMPUTE_CAPABILITY_MINOR);
        this.multiprocessorCount = CuDevices.attribute(handle, CuDevices.ATTR_MULTIPROCESSOR_COUNT);
        this.totalMemoryBytes = CuDevices.totalMemBytes(handle);
        this.context = CuDevices.primaryCtxRetain(handle);
    }

    /**
     * Number of CUDA devices visible to this process (0 when the driver is installed but sees no GPU).
     *
     * @throws JcclException {@link Result#SYSTEM_ERROR} when no NVIDIA driver (libcuda.so.1) is installed
     */
    public static int count() {
        return CuDevices.deviceCount();
    }

    /** True when the NVIDIA driver is installed and sees at least one GPU; never throws. */
    public static boolean isAvailable() {
        try {
            return count() > 0;
        } catch (JcclException e) {
            return false;
        }
    }

    /**
     * Device {@code ordinal} (0-based, in CUDA's order, after CUDA_VISIBLE_DEVICES). Instances are cached: the same
     * ordinal always gives the same object.
     *
     * @throws JcclException {@link Result#INVALID_ARGUMENT} when the ordinal is out of range
     */
    public static CudaDevice get(int ordinal) {
        CudaDevice[] all = devices;
        if (all == null) {
            synchronized (LOCK) {
                all = devices;
                if (all == null) {
                    all = new CudaDevice[count()];
                    devices = all;
                }
            }
        }
        if (ordinal < 0 || ordinal >= all.length) {
            throw new JcclException(Result.INVALID_ARGUMENT, "CUDA device " + ordinal
                    + " does not exist: this process sees "
                    + all.length + " device(s); check CUDA_VISIBLE_DEVICES");
        }
        CudaDevice d = all[ordinal];
        if (d == null) {
            synchronized (LOCK) {
                d = all[ordinal];
                if (d == null) {
                    d = new CudaDevice(ordinal);
                    all[ordinal] = d;
                }
            }
        }
        return d;
    }

    /** The device already in use whose primary context is {@code context}, or null. */
    static CudaDevice withContext(MemorySegment context) {
        CudaDevice[] all = devices;
        if (all != null) {
            for (CudaDevice d : all) {
                if (d != null && d.context.address() == context.address()) {
                    return d;
                }
            }
        }
        return null;
    }

    /** Every visible device, in ordinal order. */
    public static List<CudaDevice> all() {
        int n = count();
        List<CudaDevice> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            list.add(get(i));
        }
        return List.copyOf(list);
    }

    /** The driver's CUDA version as 1000 * major + 10 * minor (13000 for CUDA 13.0). */
    public static int driverVersion() {
        return CuDevices.driverVersion();
    }

    public int ordinal() {
        return ordinal;
    }

    /** The device's name, e.g. "NVIDIA H200". */
    public String name() {
        return name;
    }

    /** PCI bus id in the driver's form, e.g. "0000:19:00.0". */
    public String pciBusId() {
        return pciBusId;
    }

    public int computeCapabilityMajor() {
        return ccMajor;
    }

    public int computeCapabilityMinor() {
        return ccMinor;
    }

    /** Compute capability as NCCL writes it: 10 * major + minor (90 for Hopper). */
    public int computeCapability() {
        return ccMajor * 10 + ccMinor;
    }

    /** Number of streaming multiprocessors (132 on an H200). */
    public int multiprocessorCount() {
        return multiprocessorCount;
    }

    public long totalMemoryBytes() {
        return totalMemoryBytes;
    }

    /** Bytes of device memory free now. */
    public long freeMemoryBytes() {
        makeCurrent();
        return CuMemory.memInfo()[0];
    }

    /** Makes this device's primary context current on the calling OS thread. */
    public void makeCurrent() {
        CuDevices.setCurrent(context);
    }

    /** Whether kernels on this device can access memory of {@code peer} (NVLink or PCIe peer-to-peer). */
    public boolean canAccessPeer(CudaDevice peer) {
        return peer != this && CuDevices.canAccessPeer(handle, peer.handle);
    }

    /**
     * Whether the link to {@code peer} supports native peer atomics, which CUDA reports for NVLink (and not for PCIe
     * peer-to-peer); JCCL takes it as the sign of a link that delivers 16-byte and 128-byte stores whole.
     */
    public boolean nativeAtomicsWith(CudaDevice peer) {
        return peer != this && CuDevices.p2pAttribute(CuDevices.P2P_NATIVE_ATOMIC_SUPPORTED, handle, peer.handle) == 1;
    }

    /**
     * As {@link #nativeAtomicsWith(CudaDevice)} for the visible GPU at PCI bus id {@code peerBusId} (false when this
     * process does not see it). Asks the driver only: no context is created on the peer's GPU.
     */
    public boolean nativeAtomicsWith(String peerBusId) {
        for (int i = 0; i < count(); i++) {
            int h = CuDevices.device(i);
            if (h != handle && CuDevices.pciBusId(h).equalsIgnoreCase(peerBusId)) {
                return CuDevices.p2pAttribute(CuDevices.P2P_NATIVE_ATOMIC_SUPPORTED, handle, h) == 1;
            }
        }
        return false;
    }

    /**
     * Lets this device access {@code peer}'s memory (one direction; call it on both for both ways). Returns false
     * when it was already enabled.
     *
     * @throws JcclException {@link Result#UNHANDLED_CUDA_ERROR} when the pair cannot be peers
     */
    public boolean enablePeerAccess(CudaDevice peer) {
        if (peer == this) {
            return false;
        }
        makeCurrent();
        return CuDevices.enablePeerAccess(peer.context);
    }

    /** Waits for all work on this device's primary context. */
    public void synchronize() {
        makeCurrent();
        CuDevices.synchronizeContext();
    }

    /**
     * A non-blocking stream of this device for JCCL's own blocking copies and memsets ({@link DeviceBuffer#copyFrom},
     * {@link DeviceBuffer#copyTo}, {@link DeviceBuffer#zero}): they are queued here and this stream is synchronised,
     * because the driver's synchronous cuMemcpyHtoD from pageable memory and cuMemset may return before the device
     * memory is written, and work on other non-blocking streams would not wait for them.
     */
    MemorySegment copyStream() {
        MemorySegment s = copyStream;
        if (s == null) {
            synchronized (this) {
                s = copyStream;
                if (s == null) {
                    makeCurrent();
                    s = CuStreams.createStream(CuStreams.STREAM_NON_BLOCKING, 0);
                    copyStream = s;
                }
            }
        }
        return s;
    }

    /** The CUdevice handle (for driver calls outside JCCL). */
    public int handle() {
        return handle;
    }

    /** The retained primary CUcontext (for driver calls outside JCCL). */
    public MemorySegment context() {
        return context;
    }

    @Override
    public String toString() {
        return "CudaDevice[" + ordinal + ": " + name + ", " + pciBusId + ", sm_" + computeCapability() + ", "
                + multiprocessorCount + " SMs]";
    }
}
