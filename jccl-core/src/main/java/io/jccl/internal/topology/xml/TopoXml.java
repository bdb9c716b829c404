package io.jccl.internal.topology.xml;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.topology.TopoSystem;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Topology XML operations around the builder: load an NCCL_TOPO_FILE, give the GPUs their ranks, copy a tree, dump it
 * (NCCL_TOPO_DUMP_FILE). The XML tree is the contract between discovery and the graph, as in NCCL.
 *
 * <p>Stateless.
 */
public final class TopoXml {
    private TopoXml() {
    }

    /** Reads and checks an NCCL topology file ({@code <system version="1">}). */
    public static XmlElement load(Path file) {
        XmlElement root = XmlParser.parseFile(file);
        if (!root.name().equals("system")) {
            throw new JcclException(Result.INVALID_ARGUMENT, root.where()
                    + ": not a topology file: the root element is <"
                    + root.name() + ">, expected <system> (is this a graph dump? use NCCL_GRAPH_FILE for those)");
        }
        return root;
    }

    /** Writes the tree as NCCL_TOPO_DUMP_FILE does. */
    public static void dump(XmlElement root, Path file) {
        XmlWriter.writeFile(root, file, "NCCL_TOPO_DUMP_FILE");
    }

    /** A deep copy (the source names are kept). */
    public static XmlElement copy(XmlElement e) {
        XmlElement c = new XmlElement(e.name(), e.line());
        c.setSource(e.source());
        e.attributes().forEach(c::set);
        for (XmlElement child : e.children()) {
            c.add(copy(child));
        }
        return c;
    }

    /** The {@code <gpu>} elements in document order. */
    public static List<XmlElement> gpus(XmlElement root) {
        return root.descendants("gpu");
    }

    /**
     * Gives ranks {@code firstRank, firstRank+1, …} to the first {@code count} GPUs in CUDA device order (then document
     * order) and removes the rank of the others, which leaves them out of the communicator. Mirrors the way each NCCL
     * rank marks its own GPU in the XML before the system is built.
     *
     * @return how many GPUs got a rank
     */
    public static int assignRanks(XmlElement root, int firstRank, int count) {
        List<XmlElement> gpus = new ArrayList<>(gpus(root));
        List<XmlElement> ordered = new ArrayList<>(gpus);
        ordered.sort(Comparator.comparingInt(g -> g.intAttr("dev", Integer.MAX_VALUE)));
        int n = 0;
        for (XmlElement g : ordered) {
            if (n < count) {
                g.set("rank", firstRank + n);
                n++;
            } else {
                g.remove("rank");
            }
        }
        return n;
    }

    /**
     * Marks the GPU at {@code busId} as belonging to {@code rank} (what each rank does for its own GPU before the
     * system is built).
     *
     * @return false when no {@code <gpu>} sits under a {@code <pci>} with that bus id
     */
    public static boolean setGpuRank(XmlElement root, String busId, int rank) {
        long id = PciInfo.busIdToLong(PciInfo.normalize(busId));
        for (XmlElement g : gpus(root)) {
            XmlElement pci = g.parent();
            if (pci != null && pci.has("busid") && PciInfo.busIdToLong(pci.attr("busid")) == id) {
                g.set("rank", rank);
                return true;
            }
        }
        return false;
    }

    /** Builds the system from a tree (see {@link SystemBuilder}). */
    public static TopoSystem toSystem(XmlElement root) {
        return SystemBuilder.build(root);
    }

    /** Structural equality: same names, attributes (in any order) and children (in order). */
    public static boolean sameTree(XmlElement a, XmlElement b) {
        if (!a.name().equals(b.name()) || !a.attributes().equals(b.attributes())
                || a.children().size() != b.children().size()) {
            return false;
        }
        for (int i = 0; i < a.children().size(); i++) {
            if (!sameTree(a.children().get(i), b.children().get(i))) {
                return false;
            }
        }
        return true;
    }
}
