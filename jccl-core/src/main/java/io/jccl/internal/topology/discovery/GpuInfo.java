package io.jccl.internal.topology.discovery;

import java.util.List;

/**
 * A GPU as the CUDA module reports it to topology discovery.
 *
 * @param busId   PCI address ({@code 0000:17:00.0})
 * @param dev     CUDA device number
 * @param sm      compute capability × 10 ({@code 90} for Hopper)
 * @param gdr     GPU Direct RDMA supported
 * @param nvlinks NVLink connections, grouped by target
 *
 * <p>Immutable; the data NCCL reads through CUDA and NVML in ncclTopoGetXmlFromGpu.
 */
public record GpuInfo(String busId, int dev, int sm, boolean gdr, List<NvLink> nvlinks) {
    public GpuInfo {
        nvlinks = List.copyOf(nvlinks);
    }

    /**
     * NVLinks from this GPU to one target.
     *
     * @param targetBusId the peer's PCI address (a GPU, an NVSwitch or a CPU)
     * @param count       number of links
     * @param targetClass PCI class of the target: {@code 0x030200}/{@code 0x030000} GPU, {@code 0x068000} NVSwitch,
     *                    {@code 0x068001} CPU
     */
    public record NvLink(String targetBusId, int count, String targetClass) {
    }
}
