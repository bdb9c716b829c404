package io.jccl.cuda.internal.comm;

import io.jccl.internal.param.ExternalParams;
import io.jccl.internal.param.Params;
import io.jccl.internal.topology.PathType;
import io.jccl.net.NetProperties;

import java.util.function.BooleanSupplier;

/**
 * Whether this rank's GPU connectors across hosts use GPUDirect RDMA: the NIC reads and writes the FIFOs in device
 * memory instead of pinned host memory. Used only when, in this order:
 * <ol>
 *   <li>the network plugin registers device memory ({@code ptrSupport} has {@link NetProperties#PTR_CUDA});</li>
 *   <li>{@code JCCL_NET_CHECKSUM} is not {@code on} (the CRC32C check reads every slot on the CPU, which needs host
 *   memory; with {@code auto} the receive links that use GDR go without it);</li>
 *   <li>the GPU–NIC PCI distance is at most {@code NCCL_NET_GDR_LEVEL} (PIX, PXB, PHB, SYS or NCCL's old numbers;
 *   default PXB as NCCL), the distance taken from the PCI tree ({@link PciDistance}), or PHB, NCCL's place for a NIC
 *   without a PCI path, when the tree does not have both devices;</li>
 *   <li>the CPU can address device memory: the proxy thread writes the tails the kernel polls and the plugin's CPU
 *   side reaches the slots. A GPU's cuMemAlloc memory has no CPU address (NCCL maps it with GDRCopy, which JCCL does
 *   not have), so on a real GPU GPUDirect RDMA stays off and the reason is logged.</li>
 * </ol>
 * The receive side (the NIC writes into the FIFO the kernel reads) follows the decision; the send side (the NIC reads
 * the FIFO the kernel wrote) also needs {@code NCCL_NET_GDR_READ}: 1 on, 0 off, unset on for compute capability 8.0
 * and later, as NCCL.
 *
 * <p>Owned by: the communicator's owner thread at init (stateless). Mirrors: ncclTopoCheckGdr (graph/paths.cc) and
 * net.cc's useGdr, plus the checksum rule, which NCCL does not have.
 *
 * @param recv   receive FIFOs in device memory
 * @param send   send FIFOs in device memory (GDR reads)
 * @param detail why it is off, or the distance that allowed it
 */
record NetGdr(boolean recv, boolean send, String detail) {
    /** The decision for {@code device}'s GPU and the plugin's device {@code props} (null: properties unknown). */
    static NetGdr decide(String transport, NetProperties props, String gpuBusId, int computeCapability,
                         BooleanSupplier hostAddressable) {
        PathType distance = props == null ? null : PciDistance.of(gpuBusId, props.pciPath());
        String level = ExternalParams.NET_GDR_LEVEL.get().trim();
        return decide(transport, props == null ? NetProperties.PTR_HOST : props.ptrSupport(), distance,
                level.isEmpty() ? PathType.PXB : PathType.parseLevel("NCCL_NET_GDR_LEVEL", level),
                Params.NET_CHECKSUM.get(), ExternalParams.NET_GDR_READ.get(), computeCapability, hostAddressable);
    }

    /**
     * The decision from its inputs: {@code distance} null when the PCI tree does not have both devices (PHB
     * assumed); {@code checksum} JCCL_NET_CHECKSUM's value; {@code gdrRead} NCCL_NET_GDR_READ (-2: default);
     * {@code computeCapability} as 80 for 8.0; {@code hostAddressable} asked last (it may allocate).
     */
    static NetGdr decide(String transport, int ptrSupport, PathType distance, PathType level, String checksum,
                         int gdrRead, int computeCapability, BooleanSupplier hostAddressable) {
        if ((ptrSupport & NetProperties.PTR_CUDA) == 0) {
            return off(transport + " registers host memory only (ptrSupport " + ptrNames(ptrSupport) + ")");
        }
        if ("on".equals(checksum)) {
            return off("JCCL_NET_CHECKSUM=on: the CRC32C check reads every slot on the CPU, which needs host memory");
        }
        PathType d = distance != null ? distance : PathType.PHB;
        String where = distance != null ? "distance " + d : "distance " + d + " assumed, no PCI path for both";
        if (!d.atMost(level)) {
            return off(where + " > " + level + " (NCCL_NET_GDR_LEVEL)");
        }
        if (!hostAddressable.getAsBoolean()) {
            return off("device memory has no CPU address here (cuMemAlloc memory without GDRCopy): the proxy could "
                    + "not write the tails the kernel polls");
        }
        boolean read = gdrRead == 1 || (gdrRead < 0 && computeCapability >= 80);
        return new NetGdr(true, read, where + " <= " + level);
    }

    private static NetGdr off(String why) {
        return new NetGdr(false, false, why);
    }

    /** The init log's line: NCCL's "GPU Direct RDMA Enabled for ..." or "... Disabled for ... (reason)". */
    String line(String gpuBusId, String transport, int dev) {
        String pair = " for GPU " + gpuBusId + " / " + transport + "/" + dev + " (" + detail + ")";
        return recv ? "GPU Direct RDMA Enabled" + pair + ", read " + (send ? 1 : 0) : "GPU Direct RDMA Disabled" + pair;
    }

    private static String ptrNames(int bits) {
        StringBuilder b = new StringBuilder();
        String[] names = {"HOST", "CUDA", "DMABUF"};
        for (int i = 0; i < names.length; i++) {
            if ((bits >>> i & 1) != 0) {
                b.append(b.isEmpty() ? "" : "|").append(names[i]);
            }
        }
        return b.isEmpty() ? "none" : b.toString();
    }
}
