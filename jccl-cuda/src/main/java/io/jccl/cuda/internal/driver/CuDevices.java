package io.jccl.cuda.internal.driver;

import io.jccl.cuda.internal.ffm.NativeLibrary;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static io.jccl.cuda.internal.driver.CuCheck.error;
import static io.jccl.cuda.internal.driver.CuCheck.hex;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Driver calls for initialisation, devices, primary contexts and peer access. Every method checks its CUresult.
 * Contexts are current per OS thread: callers set the device's context on the thread that issues the calls.
 *
 * <p>Thread: stateless apart from the once-only {@code cuInit}; any platform thread. Mirrors the device part of
 * NCCL's cudawrap.h.
 */
public final class CuDevices {
    /** CUdevice_attribute values used by JCCL. */
    public static final int ATTR_MULTIPROCESSOR_COUNT = 16;
    public static final int ATTR_CAN_MAP_HOST_MEMORY = 19;
    public static final int ATTR_PCI_BUS_ID = 33;
    public static final int ATTR_PCI_DEVICE_ID = 34;
    public static final int ATTR_UNIFIED_ADDRESSING = 41;
    public static final int ATTR_COMPUTE_CAPABILITY_MAJOR = 75;
    public static final int ATTR_COMPUTE_CAPABILITY_MINOR = 76;
    /** CUdevice_P2PAttribute: native atomics supported over the link. */
    public static final int P2P_NATIVE_ATOMIC_SUPPORTED = 3;

    private static volatile boolean initialized;

    private CuDevices() {
    }

    private static final class H {
        static final MethodHandle INIT = CudaLibrary.bind("cuInit", JAVA_INT);
        static final MethodHandle DRIVER_VERSION = CudaLibrary.bind("cuDriverGetVersion", ADDRESS);
        static final MethodHandle DEVICE_GET = CudaLibrary.bind("cuDeviceGet", ADDRESS, JAVA_INT);
        static final MethodHandle DEVICE_COUNT = CudaLibrary.bind("cuDeviceGetCount", ADDRESS);
        static final MethodHandle DEVICE_NAME = CudaLibrary.bind("cuDeviceGetName", ADDRESS, JAVA_INT, JAVA_INT);
        static final MethodHandle DEVICE_ATTRIBUTE = CudaLibrary.bind("cuDeviceGetAttribute", ADDRESS, JAVA_INT,
                JAVA_INT);
        static final MethodHandle DEVICE_PCI_BUS_ID = CudaLibrary.bind("cuDeviceGetPCIBusId", ADDRESS, JAVA_INT,
                JAVA_INT);
        static final MethodHandle DEVICE_TOTAL_MEM = CudaLibrary.bind("cuDeviceTotalMem_v2", ADDRESS, JAVA_INT);
        static final MethodHandle CAN_ACCESS_PEER = CudaLibrary.bind("cuDeviceCanAccessPeer", ADDRESS, JAVA_INT,
                JAVA_INT);
        static final MethodHandle P2P_ATTRIBUTE = CudaLibrary.bind("cuDeviceGetP2PAttribute", ADDRESS, JAVA_INT,
                JAVA_INT, JAVA_INT);
        static final MethodHandle PRIMARY_RETAIN = CudaLibrary.bind("cuDevicePrimaryCtxRetain", ADDRESS, JAVA_INT);
        static final MethodHandle PRIMARY_RELEASE = CudaLibrary.bind("cuDevicePrimaryCtxRelease_v2", JAVA_INT);
        static final MethodHandle CTX_SET_CURRENT = CudaLibrary.bindHot("cuCtxSetCurrent", ADDRESS);
        static final MethodHandle CTX_GET_CURRENT = CudaLibrary.bind("cuCtxGetCurrent", ADDRESS);
        static final MethodHandle CTX_ENABLE_PEER = CudaLibrary.bind("cuCtxEnablePeerAccess", ADDRESS, JAVA_INT);
        static final MethodHandle CTX_SYNCHRONIZE = CudaLibrary.bind("cuCtxSynchronize");
    }

    /** Calls {@code cuInit(0)} once per process (again after a failure). */
    public static void ensureInitialized() {
        if (!initialized) {
            initSlow();
        }
    }

    private static synchronized void initSlow() {
        if (initialized) {
            return;
        }
        int rc;
        try {
            rc = (int) H.INIT.invokeExact(0);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        if (rc != 0) {
            throw error(rc, "cuInit", 0);
        }
        initialized = true;
    }

    /** The driver's CUDA version as 1000 * major + 10 * minor (13000 for CUDA 13.0). */
    public static int driverVersion() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(JAVA_INT);
            int rc = (int) H.DRIVER_VERSION.invokeExact(v);
            if (rc != 0) {
                throw error(rc, "cuDriverGetVersion", "&version");
            }
            return v.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** Number of CUDA devices (0 when the driver reports CUDA_ERROR_NO_DEVICE). */
    public static int deviceCount() {
        ensureInitialized();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment n = a.allocate(JAVA_INT);
            int rc = (int) H.DEVICE_COUNT.invokeExact(n);
            if (rc == CuCheck.NO_DEVICE) {
                return 0;
            }
            if (rc != 0) {
                throw error(rc, "cuDeviceGetCount", "&count");
            }
            return n.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** The CUdevice handle of device {@code ordinal}. */
    public static int device(int ordinal) {
        ensureInitialized();
        return outInt(H.DEVICE_GET, "cuDeviceGet", ordinal);
    }

    /** The device's marketing name ("NVIDIA H200"). */
    public static String name(int dev) {
        return outString(H.DEVICE_NAME, "cuDeviceGetName", dev);
    }

    /** The device's PCI bus id, "0000:19:00.0" style. */
    public static String pciBusId(int dev) {
        return outString(H.DEVICE_PCI_BUS_ID, "cuDeviceGetPCIBusId", dev);
    }

    /** A CUdevice_attribute value. */
    public static int attribute(int dev, int attribute) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(JAVA_INT);
            int rc = (int) H.DEVICE_ATTRIBUTE.invokeExact(v, attribute, dev);
            if (rc != 0) {
                throw error(rc, "cuDeviceGetAttribute", "&value", attribute, dev);
            }
            return v.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** Total device memory in bytes. */
    public static long totalMemBytes(int dev) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(JAVA_LONG);
            int rc = (int) H.DEVICE_TOTAL_MEM.invokeExact(v, dev);
            if (rc != 0) {
                throw error(rc, "cuDeviceTotalMem_v2", "&bytes", dev);
            }
            return v.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** Whether {@code dev} can map memory of {@code peer} (cuDeviceCanAccessPeer). */
    public static boolean canAccessPeer(int dev, int peer) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(JAVA_INT);
            int rc = (int) H.CAN_ACCESS_PEER.invokeExact(v, dev, peer);
            if (rc != 0) {
                throw error(rc, "cuDeviceCanAccessPeer", "&can", dev, peer);
            }
            return v.get(JAVA_INT, 0) != 0;
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** A CUdevice_P2PAttribute of the link from {@code src} to {@code dst}. */
    public static int p2pAttribute(int attribute, int src, int dst) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(JAVA_INT);
            int rc = (int) H.P2P_ATTRIBUTE.invokeExact(v, attribute, src, dst);
            if (rc != 0) {
                throw error(rc, "cuDeviceGetP2PAttribute", "&value", attribute, src, dst);
            }
            return v.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** Retains the device's primary context (the one the CUDA runtime and NCCL use too). */
    public static MemorySegment primaryCtxRetain(int dev) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(ADDRESS);
            int rc = (int) H.PRIMARY_RETAIN.invokeExact(p, dev);
            if (rc != 0) {
                throw error(rc, "cuDevicePrimaryCtxRetain", "&ctx", dev);
            }
            return p.get(ADDRESS, 0);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** Releases one retain of the device's primary context. */
    public static void primaryCtxRelease(int dev) {
        call1(H.PRIMARY_RELEASE, "cuDevicePrimaryCtxRelease_v2", dev);
    }

    /** Makes {@code ctx} current on the calling OS thread. Allocation-free. */
    public static void setCurrent(MemorySegment ctx) {
        int rc;
        try {
            rc = (int) H.CTX_SET_CURRENT.invokeExact(ctx);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        if (rc != 0) {
            throw error(rc, "cuCtxSetCurrent", hex(ctx));
        }
    }

    /** The context current on the calling thread (NULL when none). */
    public static MemorySegment current() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(ADDRESS);
            int rc = (int) H.CTX_GET_CURRENT.invokeExact(p);
            if (rc != 0) {
                throw error(rc, "cuCtxGetCurrent", "&ctx");
            }
            return p.get(ADDRESS, 0);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /**
     * Lets the current context access memory of {@code peerCtx} (one direction). Returns false when it was
     * already enabled (CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED is not an error here).
     */
    public static boolean enablePeerAccess(MemorySegment peerCtx) {
        int rc;
        try {
            rc = (int) H.CTX_ENABLE_PEER.invokeExact(peerCtx, 0);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        if (rc == CuCheck.PEER_ACCESS_ALREADY_ENABLED) {
            return false;
        }
        if (rc != 0) {
            throw error(rc, "cuCtxEnablePeerAccess", hex(peerCtx), 0);
        }
        return true;
    }

    /** Waits for all work of the current context. */
    public static void synchronizeContext() {
        int rc;
        try {
            rc = (int) H.CTX_SYNCHRONIZE.invokeExact();
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        if (rc != 0) {
            throw error(rc, "cuCtxSynchronize");
        }
    }

    private static int outInt(MethodHandle h, String call, int arg) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(JAVA_INT);
            int rc = (int) h.invokeExact(v, arg);
            if (rc != 0) {
                throw error(rc, call, "&out", arg);
            }
            return v.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    private static String outString(MethodHandle h, String call, int dev) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(256);
            int rc = (int) h.invokeExact(s, 256, dev);
            if (rc != 0) {
                throw error(rc, call, "&buf", 256, dev);
            }
            return s.getString(0);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    private static void call1(MethodHandle h, String call, int arg) {
        int rc;
        try {
            rc = (int) h.invokeExact(arg);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
        if (rc != 0) {
            throw error(rc, call, arg);
        }
    }
}
