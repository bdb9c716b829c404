package io.jccl.cuda.internal.driver;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static io.jccl.cuda.internal.driver.DriverCall.Arg.INT;
import static io.jccl.cuda.internal.driver.DriverCall.Arg.PTR;
import static io.jccl.cuda.internal.driver.DriverCall.Arg.fixed;
import static io.jccl.cuda.internal.driver.DriverCall.Arg.label;
import static io.jccl.cuda.internal.driver.DriverCall.Arg.out;
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
        static final DriverCall INIT = DriverCall.of("cuInit", fixed(0));
        static final DriverCall DRIVER_VERSION = DriverCall.of("cuDriverGetVersion", out("&version", JAVA_INT));
        static final DriverCall DEVICE_GET = DriverCall.of("cuDeviceGet", out("&out", JAVA_INT), INT);
        static final DriverCall DEVICE_COUNT = DriverCall.of("cuDeviceGetCount", out("&count", JAVA_INT))
                .accepting(CuCheck.NO_DEVICE);
        static final DriverCall DEVICE_NAME = DriverCall.of("cuDeviceGetName", label("&buf"), INT, INT);
        static final DriverCall DEVICE_ATTRIBUTE = DriverCall.of("cuDeviceGetAttribute", out("&value", JAVA_INT),
                INT, INT);
        static final DriverCall DEVICE_PCI_BUS_ID = DriverCall.of("cuDeviceGetPCIBusId", label("&buf"), INT, INT);
        static final DriverCall DEVICE_TOTAL_MEM = DriverCall.of("cuDeviceTotalMem_v2", out("&bytes", JAVA_LONG), INT);
        static final DriverCall CAN_ACCESS_PEER = DriverCall.of("cuDeviceCanAccessPeer", out("&can", JAVA_INT), INT,
                INT);
        static final DriverCall P2P_ATTRIBUTE = DriverCall.of("cuDeviceGetP2PAttribute", out("&value", JAVA_INT),
                INT, INT, INT);
        static final DriverCall PRIMARY_RETAIN = DriverCall.of("cuDevicePrimaryCtxRetain", out("&ctx", ADDRESS),
                INT);
        static final DriverCall PRIMARY_RELEASE = DriverCall.of("cuDevicePrimaryCtxRelease_v2", INT);
        static final DriverCall CTX_SET_CURRENT = DriverCall.hot("cuCtxSetCurrent", PTR);
        static final DriverCall CTX_GET_CURRENT = DriverCall.of("cuCtxGetCurrent", out("&ctx", ADDRESS));
        static final DriverCall CTX_ENABLE_PEER = DriverCall.of("cuCtxEnablePeerAccess", PTR, fixed(0))
                .accepting(CuCheck.PEER_ACCESS_ALREADY_ENABLED);
        static final DriverCall CTX_SYNCHRONIZE = DriverCall.of("cuCtxSynchronize");
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
        H.INIT.call();
        initialized = true;
    }

    /** The driver's CUDA version as 1000 * major + 10 * minor (13000 for CUDA 13.0). */
    public static int driverVersion() {
        return (int) H.DRIVER_VERSION.call();
    }

    /** Number of CUDA devices (0 when the driver reports CUDA_ERROR_NO_DEVICE). */
    public static int deviceCount() {
        ensureInitialized();
        return (int) H.DEVICE_COUNT.call();
    }

    /** The CUdevice handle of device {@code ordinal}. */
    public static int device(int ordinal) {
        ensureInitialized();
        return (int) H.DEVICE_GET.call(ordinal);
    }

    /** The device's marketing name ("NVIDIA H200"). */
    public static String name(int dev) {
        return outString(H.DEVICE_NAME, dev);
    }

    /** The device's PCI bus id, "0000:19:00.0" style. */
    public static String pciBusId(int dev) {
        return outString(H.DEVICE_PCI_BUS_ID, dev);
    }

    /** A CUdevice_attribute value. */
    public static int attribute(int dev, int attribute) {
        return (int) H.DEVICE_ATTRIBUTE.call(attribute, dev);
    }

    /** Total device memory in bytes. */
    public static long totalMemBytes(int dev) {
        return H.DEVICE_TOTAL_MEM.call(dev);
    }

    /** Whether {@code dev} can map memory of {@code peer} (cuDeviceCanAccessPeer). */
    public static boolean canAccessPeer(int dev, int peer) {
        return H.CAN_ACCESS_PEER.call(dev, peer) != 0;
    }

    /** A CUdevice_P2PAttribute of the link from {@code src} to {@code dst}. */
    public static int p2pAttribute(int attribute, int src, int dst) {
        return (int) H.P2P_ATTRIBUTE.call(attribute, src, dst);
    }

    /** Retains the device's primary context (the one the CUDA runtime and NCCL use too). */
    public static MemorySegment primaryCtxRetain(int dev) {
        return MemorySegment.ofAddress(H.PRIMARY_RETAIN.call(dev));
    }

    /** Releases one retain of the device's primary context. */
    public static void primaryCtxRelease(int dev) {
        H.PRIMARY_RELEASE.call(dev);
    }

    /** Makes {@code ctx} current on the calling OS thread. Allocation-free. */
    public static void setCurrent(MemorySegment ctx) {
        H.CTX_SET_CURRENT.call(ctx);
    }

    /** The context current on the calling thread (NULL when none). */
    public static MemorySegment current() {
        return MemorySegment.ofAddress(H.CTX_GET_CURRENT.call());
    }

    /**
     * Lets the current context access memory of {@code peerCtx} (one direction). Returns false when it was
     * already enabled (CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED is not an error here).
     */
    public static boolean enablePeerAccess(MemorySegment peerCtx) {
        return H.CTX_ENABLE_PEER.call(peerCtx) == 0;
    }

    /** Waits for all work of the current context. */
    public static void synchronizeContext() {
        H.CTX_SYNCHRONIZE.call();
    }

    /** A string the driver writes into a 256-byte buffer ({@code call(buf, 256, dev)}). */
    private static String outString(DriverCall call, int dev) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(256);
            call.call(s, 256, dev);
            return s.getString(0);
        }
    }
}
