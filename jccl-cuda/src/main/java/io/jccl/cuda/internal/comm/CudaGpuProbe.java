package io.jccl.cuda.internal.comm;

import io.jccl.cuda.internal.driver.CuDevices;
import io.jccl.cuda.internal.driver.Nvml;
import io.jccl.internal.topology.discovery.GpuInfo;
import io.jccl.internal.topology.discovery.GpuProbe;
import io.jccl.internal.topology.xml.PciInfo;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Topology discovery's view of this host's GPUs through the CUDA driver (bus id, compute capability) and NVML (each
 * GPU's NVLinks, counted per remote GPU, NVSwitch or CPU). Without NVML, a pair of GPUs with native peer atomics
 * counts as linked by one NVLink. Creates no CUDA context.
 *
 * <p>Thread: the discovering thread. Mirrors NCCL's ncclTopoGetXmlFromGpu (CUDA and NVML queries of src/graph/xml.cc).
 */
public final class CudaGpuProbe implements GpuProbe {
    @Override
    public List<GpuInfo> gpus() {
        int n = CuDevices.deviceCount();
        int[] handles = new int[n];
        String[] busIds = new String[n];
        for (int d = 0; d < n; d++) {
            handles[d] = CuDevices.device(d);
            busIds[d] = CuDevices.pciBusId(handles[d]);
        }
        List<GpuInfo> gpus = new ArrayList<>(n);
        for (int d = 0; d < n; d++) {
            int sm = 10 * CuDevices.attribute(handles[d], CuDevices.ATTR_COMPUTE_CAPABILITY_MAJOR)
                    + CuDevices.attribute(handles[d], CuDevices.ATTR_COMPUTE_CAPABILITY_MINOR);
            List<GpuInfo.NvLink> links = new ArrayList<>();
            Optional<Map<String, Nvml.Target>> nvml = Nvml.nvlinks(busIds[d]);
            if (nvml.isPresent()) {
                nvml.get().forEach((remote, t) -> links.add(new GpuInfo.NvLink(PciInfo.normalize(remote), t.count(),
                        t.pciClass())));
            } else {
                for (int q = 0; q < n; q++) {
                    if (q != d && CuDevices.p2pAttribute(CuDevices.P2P_NATIVE_ATOMIC_SUPPORTED, handles[d],
                            handles[q]) == 1) {
                        links.add(new GpuInfo.NvLink(PciInfo.normalize(busIds[q]), 1, "0x030200"));
                    }
                }
            }
            gpus.add(new GpuInfo(PciInfo.normalize(busIds[d]), d, sm, false, links));
        }
        return gpus;
    }

    /**
     * NVLinks from the GPU at {@code busId} to each of {@code peers} (by PCI bus id): NVML's count of links to that
     * GPU, else 1 when {@code nativeAtomics} says the pair is NVLink-linked (no NVML, or GPUs that reach each other
     * through NVSwitches), else 0.
     */
    public static int[] linkCounts(String busId, List<String> peers, java.util.function.IntPredicate nativeAtomics) {
        int[] counts = new int[peers.size()];
        Optional<Map<String, Nvml.Target>> nvml = Nvml.nvlinks(busId);
        for (int q = 0; q < peers.size(); q++) {
            String peer = PciInfo.normalize(peers.get(q));
            if (peer.equals(PciInfo.normalize(busId))) {
                continue;
            }
            if (nvml.isPresent()) {
                for (Map.Entry<String, Nvml.Target> e : nvml.get().entrySet()) {
                    if (PciInfo.normalize(e.getKey()).equals(peer)) {
                        counts[q] = e.getValue().count();
                    }
                }
            }
            if (counts[q] == 0 && nativeAtomics.test(q)) {
                counts[q] = 1;
            }
        }
        return counts;
    }
}
