package io.jccl.internal.topology.search;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.topology.NodeType;
import io.jccl.internal.topology.PathType;
import io.jccl.internal.topology.TopoFormat;
import io.jccl.internal.topology.TopoNode;
import io.jccl.internal.topology.TopoSystem;
import io.jccl.internal.topology.xml.XmlElement;
import io.jccl.internal.topology.xml.XmlParser;
import io.jccl.internal.topology.xml.XmlWriter;

import java.nio.file.Path;
import java.util.List;

/**
 * Graphs to and from NCCL's NCCL_GRAPH_DUMP_FILE / NCCL_GRAPH_FILE format:
 * {@code <graphs version="1"><graph id pattern crossnic nchannels speedintra speedinter latencyinter typeintra
 * typeinter samechannels><channel><net dev/><gpu dev/>…<net dev/></channel>…</graph></graphs>}. GPUs are written by
 * CUDA device number and NICs by net device number, as NCCL does; NET entries appear only in inter-node graphs.
 *
 * <p>Stateless; mirrors ncclTopoGetXmlFromGraphs / ncclTopoGetGraphFromXml (src/graph/search.cc).
 */
public final class GraphXml {
    private GraphXml() {
    }

    /** The {@code <graphs>} element for these graphs of {@code system}. */
    public static XmlElement toXml(TopoSystem system, List<TopoGraph> graphs) {
        XmlElement root = new XmlElement("graphs");
        root.set("version", 1);
        boolean inter = system.count(NodeType.NET) > 0;
        for (TopoGraph g : graphs) {
            XmlElement xg = root.addChild("graph");
            xg.set("id", g.id()).set("pattern", g.pattern().ncclId()).set("crossnic", g.crossNic())
                    .set("nchannels", g.nChannels()).set("speedintra", TopoFormat.num(g.bwIntra()))
                    .set("speedinter", TopoFormat.num(g.bwInter())).set("latencyinter",
                            TopoFormat.num(g.latencyInter()))
                    .set("typeintra", g.typeIntra().ncclName()).set("typeinter", g.typeInter().ncclName())
                    .set("samechannels", g.sameChannels() ? 1 : 0);
            for (int c = 0; c < g.nChannels(); c++) {
                XmlElement ch = xg.addChild("channel");
                if (inter) {
                    ch.addChild("net").set("dev", netDev(system, g.netIn(c)));
                }
                for (int i = 0; i < g.nGpus(); i++) {
                    int gi = system.gpuIndexOfRank(g.rankAt(c, i));
                    ch.addChild("gpu").set("dev", gi < 0 ? -1 : system.node(NodeType.GPU, gi).gpuDev());
                }
                if (inter) {
                    ch.addChild("net").set("dev", netDev(system, g.netOut(c)));
                }
            }
        }
        return root;
    }

    private static int netDev(TopoSystem system, long id) {
        int n = system.netIndexOfId(id);
        return n < 0 ? -1 : system.node(NodeType.NET, n).netDev();
    }

    /** Writes the graphs to NCCL_GRAPH_DUMP_FILE. */
    public static void dump(TopoSystem system, List<TopoGraph> graphs, Path file) {
        XmlWriter.writeFile(toXml(system, graphs), file, "NCCL_GRAPH_DUMP_FILE");
    }

    /**
     * Reads graph {@code id} from an NCCL_GRAPH_FILE into a new graph for {@code system}; null when the file has no
     * graph with that id. GPU and NET device numbers must exist in the system.
     */
    public static TopoGraph load(Path file, TopoSystem system, int id, int minChannels, int maxChannels) {
        return fromXml(XmlParser.parseFile(file), system, id, minChannels, maxChannels);
    }

    public static TopoGraph fromXml(XmlElement root, TopoSystem system, int id, int minChannels, int maxChannels) {
        if (!root.name().equals("graphs")) {
            throw new JcclException(Result.INVALID_ARGUMENT, root.where() + ": expected <graphs>, found <" + root.name()
                    + ">");
        }
        int nGpus = system.count(NodeType.GPU);
        for (XmlElement xg : root.children("graph")) {
            if (xg.intAttr("id", -1) != id) {
                continue;
            }
            TopoGraph g = new TopoGraph(id, GraphPattern.fromId(xg.intAttr("pattern", 4)), nGpus, minChannels,
                    maxChannels);
            g.crossNic = xg.intAttr("crossnic", 0);
            g.bwIntra = xg.doubleAttr("speedintra", 0);
            g.bwInter = xg.doubleAttr("speedinter", 0);
            g.latencyInter = xg.doubleAttr("latencyinter", 0);
            g.typeIntra = PathType.parseName(xg.required("typeintra"));
            g.typeInter = PathType.parseName(xg.required("typeinter"));
            g.sameChannels = xg.intAttr("samechannels", 0) != 0;
            List<XmlElement> channels = xg.children("channel");
            if (channels.size() > io.jccl.internal.topology.TopoConstants.MAXCHANNELS) {
                throw new JcclException(Result.INVALID_ARGUMENT, xg.where() + ": more than 64 channels");
            }
            for (int c = 0; c < channels.size(); c++) {
                readChannel(channels.get(c), system, g, c);
            }
            g.nChannels = channels.size();
            return g;
        }
        return null;
    }

    private static void readChannel(XmlElement ch, TopoSystem system, TopoGraph g, int c) {
        List<XmlElement> gpus = ch.children("gpu");
        List<XmlElement> nets = ch.children("net");
        if (gpus.size() != g.nGpus()) {
            throw new JcclException(Result.INVALID_ARGUMENT, ch.where() + ": channel has " + gpus.size()
                    + " GPUs, the system has " + g.nGpus());
        }
        for (int i = 0; i < gpus.size(); i++) {
            int dev = gpus.get(i).intAttr("dev", -1);
            TopoNode gpu = null;
            for (TopoNode n : system.nodes(NodeType.GPU)) {
                if (n.gpuDev() == dev) {
                    gpu = n;
                }
            }
            if (gpu == null) {
                throw new JcclException(Result.INVALID_ARGUMENT, gpus.get(i).where() + ": no GPU with dev " + dev);
            }
            g.intra[c * g.nGpus() + i] = gpu.gpuRank();
        }
        for (int k = 0; k < Math.min(2, nets.size()); k++) {
            int dev = nets.get(k).intAttr("dev", -1);
            long id = -1;
            for (TopoNode n : system.nodes(NodeType.NET)) {
                if (n.netDev() == dev) {
                    id = n.id();
                }
            }
            if (id < 0) {
                throw new JcclException(Result.INVALID_ARGUMENT, nets.get(k).where() + ": no NET with dev " + dev);
            }
            g.inter[2 * c + k] = id;
        }
    }
}
