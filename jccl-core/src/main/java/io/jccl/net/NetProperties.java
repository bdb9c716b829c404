package io.jccl.net;

/**
 * What a network device offers, as a plugin reports it (NCCL's {@code ncclNetProperties_t}, the fields a host
 * library uses).
 *
 * @param name       device name, such as {@code eth0} or {@code mlx5_0}
 * @param pciPath    sysfs path of the device's PCI function, or {@code null} when it has none (a virtual NIC)
 * @param guid       a unique identifier of the device (NICs with the same guid are the same device)
 * @param speedMbps  link speed in megabits per second
 * @param port       port number on the device
 * @param latencyUs  expected latency in microseconds, 0 when unknown
 * @param maxComms   most comms the device can hold open at once
 * @param maxRecvs   most receives one {@code irecv} may group (1 for plugins without grouped receives)
 * @param ptrSupport the memory {@link NetPlugin#regMr(NetPlugin.Comm, java.lang.foreign.MemorySegment, int)} can
 *                   register, a bit set of {@link #PTR_HOST}, {@link #PTR_CUDA} and {@link #PTR_DMABUF} (NCCL's
 *                   {@code NCCL_PTR_*}); {@link #PTR_CUDA} lets GPU connectors use GPUDirect RDMA
 */
public record NetProperties(String name, String pciPath, long guid, int speedMbps, int port, double latencyUs,
                            int maxComms, int maxRecvs, int ptrSupport) {
    /** Host memory (NCCL_PTR_HOST). */
    public static final int PTR_HOST = 0x1;
    /** CUDA device memory: GPUDirect RDMA (NCCL_PTR_CUDA). */
    public static final int PTR_CUDA = 0x2;
    /** Device memory registered through a DMA-BUF file descriptor (NCCL_PTR_DMABUF). */
    public static final int PTR_DMABUF = 0x4;

    /**
     * The properties of a device that registers host memory only ({@link #PTR_HOST}).
     *
     * @param name      device name
     * @param pciPath   sysfs path of the device's PCI function, or {@code null}
     * @param guid      unique identifier of the device
     * @param speedMbps link speed in megabits per second
     * @param port      port number on the device
     * @param latencyUs expected latency in microseconds, 0 when unknown
     * @param maxComms  most comms the device can hold open at once
     * @param maxRecvs  most receives one {@code irecv} may group
     */
    public NetProperties(String name, String pciPath, long guid, int speedMbps, int port, double latencyUs,
                         int maxComms, int maxRecvs) {
        this(name, pciPath, guid, speedMbps, port, latencyUs, maxComms, maxRecvs, PTR_HOST);
    }

    /**
     * The same device with another {@code ptrSupport}.
     *
     * @param bits the new bit set of {@code PTR_*} values
     * @return a copy of these properties with {@code ptrSupport} replaced
     */
    public NetProperties withPtrSupport(int bits) {
        return new NetProperties(name, pciPath, guid, speedMbps, port, latencyUs, maxComms, maxRecvs, bits);
    }

    /**
     * Whether the plugin registers CUDA device memory.
     *
     * @return true when {@link #PTR_CUDA} is set
     */
    public boolean supportsCuda() {
        return (ptrSupport & PTR_CUDA) != 0;
    }
}
