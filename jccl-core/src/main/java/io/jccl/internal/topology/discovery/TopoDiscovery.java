package io.jccl.internal.topology.discovery;

import io.jccl.internal.topology.TopoParams;
import io.jccl.internal.topology.xml.TopoXml;
import io.jccl.internal.topology.xml.XmlElement;

import java.nio.file.Path;

/**
 * Where a node's topology XML comes from: NCCL_TOPO_FILE when set, else sysfs plus the GPU probe; the result is
 * written to NCCL_TOPO_DUMP_FILE when set.
 *
 * <p>Stateless; mirrors the front of ncclTopoGetSystem (src/graph/topo.cc).
 */
public final class TopoDiscovery {
    private TopoDiscovery() {
    }

    /** The topology of this host under {@code params}, with GPUs from {@code probe}. */
    public static XmlElement discover(TopoParams params, GpuProbe probe) {
        return discover(params, probe, Path.of("/"), System.getProperty("os.arch"));
    }

    /** As {@link #discover(TopoParams, GpuProbe)}, reading sysfs under {@code root}. */
    public static XmlElement discover(TopoParams params, GpuProbe probe, Path root, String osArch) {
        XmlElement xml = params.topoFile() != null ? TopoXml.load(Path.of(params.topoFile()))
                : new SysfsDiscovery(root, osArch).discover(probe);
        if (params.topoDumpFile() != null) {
            TopoXml.dump(xml, Path.of(params.topoDumpFile()));
        }
        return xml;
    }
}
