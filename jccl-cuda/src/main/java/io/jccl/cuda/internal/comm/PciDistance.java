package io.jccl.cuda.internal.comm;

import io.jccl.internal.topology.PathType;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The PCI distance between a GPU and a NIC, as NCCL's topology measures it, read from the PCI tree in sysfs (the
 * tree NCCL's topology is built from): both under the same PCIe bridge is {@link PathType#PIX}, under a common switch
 * below the root port {@link PathType#PXB}, through the host bridge of one CPU {@link PathType#PHB}, across CPUs
 * (another NUMA node) {@link PathType#SYS}. A device the tree does not have (a virtual NIC such as loopback or veth,
 * an emulated GPU) has no distance here ({@code null}): the caller then places it as NCCL places a NIC without a PCI
 * path, on the CPU.
 *
 * <p>Owned by: the communicator's owner thread at init (stateless). Mirrors: the GPU→NIC path types of NCCL's
 * topology (graph/topo.cc, paths.cc) for the one pair GPUDirect RDMA asks about.
 */
final class PciDistance {
    private static final Path PCI_DEVICES = Path.of("/sys/bus/pci/devices");

    private PciDistance() {
    }

    /** The distance between the GPU of {@code gpuBusId} and the NIC at sysfs {@code nicPciPath}, null if unknown. */
    static PathType of(String gpuBusId, String nicPciPath) {
        if (gpuBusId == null || nicPciPath == null) {
            return null;
        }
        try {
            Path gpu = PCI_DEVICES.resolve(gpuBusId.toLowerCase(Locale.ROOT)).toRealPath();
            Path nic = Path.of(nicPciPath).toRealPath();
            return between(parts(gpu), parts(nic), numa(gpu), numa(nic));
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * The distance between two devices from their sysfs paths under {@code /sys/devices} ({@code pci0000:00},
     * then one bridge or function per level) and their NUMA nodes (-1: unknown).
     */
    static PathType between(List<String> gpu, List<String> nic, int gpuNuma, int nicNuma) {
        if (gpu.isEmpty() || nic.isEmpty() || !gpu.get(0).equals(nic.get(0))) {
            return gpuNuma >= 0 && gpuNuma == nicNuma ? PathType.PHB : PathType.SYS;
        }
        int common = 0;
        while (common < gpu.size() - 1 && common < nic.size() - 1 && gpu.get(common).equals(nic.get(common))) {
            common++;
        }
        if (common <= 1) {
            return PathType.PHB;            // only the root complex in common: through the host bridge
        }
        boolean siblings = common == gpu.size() - 1 && common == nic.size() - 1;
        return siblings ? PathType.PIX : PathType.PXB;   // one bridge between them, else a switch
    }

    private static List<String> parts(Path real) {
        String s = real.toString();
        int at = s.indexOf("/devices/");
        if (at < 0) {
            return List.of();
        }
        return List.of(s.substring(at + "/devices/".length()).split("/"));
    }

    private static int numa(Path dev) {
        try {
            return Integer.parseInt(Files.readString(dev.resolve("numa_node")).trim());
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }
}
