package io.jccl.tools.topo;

import io.jccl.JcclException;
import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.GpuOptions;
import io.jccl.cuda.internal.comm.CudaGpuProbe;
import io.jccl.cuda.internal.enqueue.GpuExplain;
import io.jccl.internal.topology.NodeType;
import io.jccl.internal.topology.TopoEnv;
import io.jccl.internal.topology.TopoParams;
import io.jccl.internal.topology.discovery.GpuProbe;
import io.jccl.internal.topology.discovery.TopoDiscovery;
import io.jccl.internal.topology.search.GraphXml;
import io.jccl.internal.topology.setup.CommPlan;
import io.jccl.internal.topology.setup.TopoSetup;
import io.jccl.internal.topology.xml.TopoXml;
import io.jccl.internal.topology.xml.XmlElement;
import io.jccl.internal.tuning.Explain;
import io.jccl.internal.tuning.HostModelParams;
import io.jccl.internal.tuning.Tuner;
import io.jccl.internal.tuning.TunerPlugins;
import io.jccl.internal.tuning.TuningParams;
import io.jccl.internal.tuning.TuningTopology;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code jccl topo}: shows the topology JCCL sees (or reads from an NCCL topology file), the paths, the ring and tree
 * graphs and channels for a communicator of {@code --nranks} ranks over identical nodes, the cost model's table, and,
 * for each {@code --explain COLL:BYTES}, every algorithm × protocol with its predicted time or the reason it was
 * disabled; on a GPU system also what a GPU communicator launches for each request (the planner
 * {@code GpuCommunicator.algorithmFor} asks, built from the topology's facts). NCCL_* settings (NCCL_ALGO,
 * NCCL_PROTO, NCCL_P2P_LEVEL, NCCL_MIN/MAX_NCHANNELS, …) apply as in a communicator.
 *
 * <p>Runs on the main thread; no GPU or network access (GPUs come from the topology file until the CUDA module
 * provides a probe).
 */
@Command(name = "topo", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Show the topology, paths, rings/trees and tuning decisions JCCL derives for a communicator.")
public final class TopoMain implements Callable<Integer> {
    @Option(names = "--topo-file", paramLabel = "FILE",
            description = "NCCL topology XML (NCCL_TOPO_FILE schema); default: NCCL_TOPO_FILE or this host's sysfs")
    Path topoFile;

    @Option(names = "--nranks", paramLabel = "N",
            description = "communicator size; default: one rank per GPU of one node (1 without GPUs)")
    int nRanks;

    @Option(names = "--ranks-per-node", paramLabel = "N",
            description = "ranks per node; default: one per GPU (all ranks on one node without GPUs)")
    int ranksPerNode;

    @Option(names = "--dump-graph", paramLabel = "FILE",
            description = "write node 0's graphs (NCCL_GRAPH_DUMP_FILE format)")
    Path dumpGraph;

    @Option(names = "--dump-topo", paramLabel = "FILE",
            description = "write the topology XML (NCCL_TOPO_DUMP_FILE format)")
    Path dumpTopo;

    @Option(names = "--explain", paramLabel = "COLL:BYTES", arity = "1..*",
            description = "explain the choice for these operations, e.g. allreduce:1M broadcast:4096")
    List<String> explain = new ArrayList<>();

    @Option(names = "--host", description = "use the host (CPU) cost model even when the topology has GPUs")
    boolean hostModel;

    @Option(names = "--one-process", description = "GPU systems: one process drives every GPU (GpuCommunicator"
            + ".initAll), so every buffer is addressable from every GPU; default: one process per GPU")
    boolean oneProcess;

    @Option(names = "--gpu-sms", paramLabel = "N", description = "GPU systems: multiprocessors per GPU; default: the"
            + " data-centre part of the GPUs' compute capability (132 for SM90)")
    int gpuSms;

    @Option(names = "--host-channels", paramLabel = "N",
            description = "channels per node for CPU-only ranks (default 2)")
    int hostChannels = 2;

    @Option(names = "--max-ranks-shown", paramLabel = "N",
            description = "ranks printed per ring/tree line (default 64)")
    int maxRanksShown = 64;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private final TopoEnv env;

    public TopoMain() {
        this(TopoEnv.system());
    }

    TopoMain(TopoEnv env) {
        this.env = env;
    }

    public static void main(String[] args) {
        System.exit(run(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true), TopoEnv.system()));
    }

    /** Runs the command with the given streams and environment; returns the exit code. */
    public static int run(String[] args, PrintWriter out, PrintWriter err, TopoEnv env) {
        CommandLine cl = new CommandLine(new TopoMain(env));
        cl.setOut(out);
        cl.setErr(err);
        cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            commandLine.getErr().println("topo: " + (ex instanceof JcclException je ? je.result() + ": " : "")
                    + ex.getMessage());
            commandLine.getErr().flush();
            return 1;
        });
        return cl.execute(args);
    }

    /** This host's GPUs through the CUDA driver and NVML, or none when there is no driver or GPU. */
    private static GpuProbe gpuProbe() {
        return CudaDevice.isAvailable() ? new CudaGpuProbe() : GpuProbe.none();
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        TopoParams params = TopoParams.from(env);
        if (topoFile != null) {
            params = new TopoParams(params.p2pLevel(), params.gdrLevel(), params.pxnDisable(), params.nvbDisable(),
                    params.crossNic(), params.c2cEnable(), params.graphFile(), null, topoFile.toString(), null);
        }
        XmlElement xml = TopoDiscovery.discover(params, params.topoFile() == null ? gpuProbe() : GpuProbe.none());
        int nGpus = TopoXml.gpus(xml).size();
        int n = nRanks > 0 ? nRanks : Math.max(1, nGpus);
        TuningParams tp = TuningParams.from(env);
        CommPlan plan = TopoSetup.simulate(xml, n, ranksPerNode, params, tp.minChannels(), tp.maxChannels(),
                hostChannels, HostModelParams.from(env).shmBwGBps()[2]);
        TuningTopology tt = TuningTopology.from(plan);
        boolean gpu = nGpus > 0 && !hostModel;
        try (Tuner tuner = gpu ? Tuner.forGpu(tt, tp, TunerPlugins.select(tp.tunerPlugin(),
                TunerPlugins.available(null)))
                : Tuner.forHost(tt, tp, HostModelParams.from(env),
                TunerPlugins.select(tp.tunerPlugin(), TunerPlugins.available(null)))) {
            List<Explain.Request> requests = new ArrayList<>();
            for (String e : explain) {
                requests.add(Explain.Request.parse(e));
            }
            out.print(Explain.text(plan, tuner, requests, maxRanksShown));
            if (gpu && !requests.isEmpty()) {
                out.print(GpuExplain.text(GpuOptions.fromSystemProperties(),
                        GpuExplain.GpuSystem.of(plan.nodes().get(0).system(), n, gpuSms, oneProcess), requests));
            }
        }
        var node0 = plan.nodes().get(0);
        if (dumpGraph != null) {
            if (node0.system().count(NodeType.GPU) == 0) {
                out.println("(no GPU graphs to dump: the topology has no GPUs)");
            } else {
                GraphXml.dump(node0.system(), List.of(node0.ring(), node0.tree()), dumpGraph);
                out.println("graphs written to " + dumpGraph);
            }
        }
        if (dumpTopo != null) {
            XmlElement node0Xml = TopoXml.copy(xml);
            if (nGpus > 0) {
                TopoXml.assignRanks(node0Xml, 0, ranksPerNode > 0 ? ranksPerNode : Math.min(nGpus, n));
            }
            TopoXml.dump(node0Xml, dumpTopo);
            out.println("topology written to " + dumpTopo);
        }
        out.flush();
        return 0;
    }
}
