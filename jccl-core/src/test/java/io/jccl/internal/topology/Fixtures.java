package io.jccl.internal.topology;

import io.jccl.internal.topology.paths.PathFinder;
import io.jccl.internal.topology.xml.TopoXml;
import io.jccl.internal.topology.xml.XmlElement;

import java.net.URISyntaxException;
import java.nio.file.Path;

/** Loads the topology fixtures of src/test/resources/topology. */
public final class Fixtures {
    public static final String DGX_H100 = "dgx-h100.xml";
    public static final String PCIE_2SOCKET = "pcie-2socket.xml";
    public static final String NVLINK_PAIR = "nvlink-pair-h200.xml";
    public static final String TWO_GPU_NIC_NODE = "two-gpu-one-nic-node.xml";
    public static final String NCCL_2XH200 = "nccl-2.28.9-2xH200/topo.xml";

    private Fixtures() {
    }

    public static Path path(String name) {
        try {
            return Path.of(Fixtures.class.getResource("/topology/" + name).toURI());
        } catch (URISyntaxException | NullPointerException e) {
            throw new IllegalStateException("missing test resource /topology/" + name, e);
        }
    }

    public static XmlElement xml(String name) {
        return TopoXml.load(path(name));
    }

    /** The system of a fixture with paths computed; NET nodes removed unless {@code keepNets}. */
    public static TopoSystem system(String name, boolean keepNets, TopoParams params) {
        TopoSystem s = TopoXml.toSystem(xml(name));
        if (!keepNets) {
            while (s.count(NodeType.NET) > 0) {
                s.removeNode(NodeType.NET, 0);
            }
        }
        PathFinder.computePaths(s, params);
        return s;
    }
}
