package io.jccl.internal.tuning;

import io.jccl.Collective;
import io.jccl.internal.topology.CpuArch;
import io.jccl.internal.topology.CpuVendor;
import io.jccl.internal.topology.PathType;
import io.jccl.internal.topology.search.GraphInfo;
import io.jccl.internal.topology.search.GraphPattern;

/**
 * NCCL's cost model for GPU communicators (reference notes §9, §4 of ch18-25), with the default constants of
 * {@link TunerConstants}:
 * <ul>
 *   <li>Ring, all five collectives: bandwidth = per-channel graph bw (intra-node on one node or on two pre-Blackwell
 *   nodes, else inter-node) × channels, LL halved and capped, LL128 × 0.92 and capped per channel, then × nRanks /
 *   nSteps. Latency = base + per-step hop latencies (network steps use the network latency and overhead).</li>
 *   <li>Tree, AllReduce only: bandwidth × 0.92 capped per channel, LL ÷ 3.8, LL128 × 7/9 on one node (120/128 across),
 *   × 0.85 for TREE-pattern trees, and halved (data goes up and down). Latency = base + 2 × (intra-node chain +
 *   log2(nodes) network hops). Small and mid sizes are corrected by NCCL's tree factors.</li>
 *   <li>LL128 needs Volta or newer, equal GPU generations (or Hopper+), NVLink inside the node (≤ NVB) and NICs within
 *   PXB (PXN on Hopper+ with NCCL_LL128_C2C) unless NCCL_PROTO asks for it explicitly.</li>
 *   <li>CollNet, NVLS, NVLS-Tree and PAT are not available in JCCL and are reported so.</li>
 * </ul>
 * The channel count in the bandwidth is the graph's, capped by the communicator's channels (NCCL_MAX_NCHANNELS).
 *
 * <p>Immutable after construction; mirrors NCCL's ring.cc / tree.cc models and isLL128Enabled.
 */
final class GpuCostModel implements CostModel {
    /** Operations batched per work element for non-ring algorithms (latency counted once per batch). */
    static final int MAX_DEV_WORK_BATCH_COLLS = 8;

    private final TuningTopology topo;
    private final TunerConstants k;
    private final ModelTable table = new ModelTable();
    private final ChannelPolicy channelPolicy;
    /** Network overhead per step (µs): NCCL_NET_OVERHEAD, else 2.0 on AMD x86 and 1.0 otherwise. */
    private final double netOverhead;
    private final KernelSupport support;

    public GpuCostModel(TuningTopology topo, TunerConstants constants, AlgoProtoFilter filter, TuningParams params) {
        this(topo, constants, filter, params, KernelSupport.ALL);
    }

    /** As above, with what the communicator's kernels can run ({@code support}: the others are disabled with why). */
    GpuCostModel(TuningTopology topo, TunerConstants constants, AlgoProtoFilter filter, TuningParams params,
                 KernelSupport support) {
        this.support = support;
        this.topo = topo;
        this.k = constants;
        this.channelPolicy = new ChannelPolicy(topo.nRanks(), params);
        this.netOverhead = params.netOverheadUs() >= 0 ? params.netOverheadUs() : amdX86(topo) ? 2.0 : 1.0;
        for (int f = 0; f < AlgoProtoFilter.FUNCS.length; f++) {
            for (Algorithm a : Algorithm.values()) {
                for (Protocol p : Protocol.values()) {
                    init(f, a, p, filter, params);
                }
            }
        }
    }

    @Override
    public String name() {
        return "NCCL GPU cost model";
    }

    @Override
    public ModelTable table() {
        return table;
    }

    private void init(int f, Algorithm a, Protocol p, AlgoProtoFilter filter, TuningParams params) {
        Collective func = AlgoProtoFilter.FUNCS[f];
        String unavailable = switch (a) {
            case COLLNET_DIRECT, COLLNET_CHAIN -> "CollNet needs a network SHARP plugin; JCCL has none";
            case NVLS, NVLS_TREE -> "NVLS needs NVSwitch multicast, which JCCL does not use";
            case PAT -> "PAT is not implemented in JCCL";
            case TREE -> func != Collective.ALL_REDUCE ? "Tree runs AllReduce only" : null;
            case RING -> null;
        };
        if (unavailable == null) {
            unavailable = support.unsupported(func, a, p);
        }
        if (unavailable != null) {
            table.disable(f, a, p, unavailable);
            return;
        }
        String excluded = filter.exclusion(f, a, p);
        if (excluded != null) {
            table.disable(f, a, p, excluded);
        }
        if (p == Protocol.LL128 && filter.protoState(f, p) == 2) {
            String why = ll128Unsupported(topo.graph(a), a, func, params);
            if (why != null) {
                table.disable(f, a, p, "LL128 off: " + why);
            }
        }
        if (a == Algorithm.RING) {
            ring(f, func, p);
        } else {
            tree(f, p);
        }
        if (table.bwGBps(f, a, p) <= 0) {
            table.disable(f, a, p, "no bandwidth: the " + (a == Algorithm.TREE ? "tree" : "ring") + " graph has no"
                    + " channels");
        }
    }

    /** Why LL128 cannot be used on this hardware, or null. */
    private String ll128Unsupported(GraphInfo g, Algorithm a, Collective func, TuningParams params) {
        int minCc = topo.minCompCap();
        int maxCc = topo.maxCompCap();
        if (minCc < 70) {
            return "needs compute capability 7.0+ (have " + minCc + ")";
        }
        if (minCc != maxCc && minCc < 90) {
            return "mixed GPU generations (" + minCc + ".." + maxCc + ")";
        }
        if (g.typeIntra().ordinal() > PathType.NVB.ordinal()) {
            return "intra-node path " + g.typeIntra() + " is not NVLink (needs <= NVB)";
        }
        PathType maxInter = params.ll128C2c() && minCc >= 90 ? PathType.PXN : PathType.PXB;
        if (g.typeInter().ordinal() > maxInter.ordinal()) {
            return "GPU-NIC path " + g.typeInter() + " is farther than " + maxInter;
        }
        return null;
    }

    private int modelChannels(GraphInfo g) {
        return Math.min(g.nChannels(), Math.max(1, topo.commChannels()));
    }

    private HwKind intraHw(GraphInfo g) {
        return g.typeIntra() == PathType.NVL ? HwKind.NVLINK : HwKind.PCI;
    }

    private double llMaxBw() {
        int index1 = topo.nNodes() == 1 ? TunerConstants.compCapIndex(topo.minCompCap())
                : topo.cpuVendor() == CpuVendor.AMD || topo.cpuVendor() == CpuVendor.MIXED ? 1 : 0;
        return k.llMaxBws()[index1][TunerConstants.nodesIndex(topo.nNodes())];
    }

    private double perCh(double[][] t) {
        return t[TunerConstants.compCapIndex(topo.minCompCap())][TunerConstants.nodesIndex(topo.nNodes())];
    }


    static int nSteps(Collective f, int nRanks) {
        return switch (f) {
            case ALL_REDUCE -> 2 * (nRanks - 1);
            case BROADCAST, REDUCE -> nRanks;
            default -> nRanks - 1;
        };
    }

    private void ring(int f, Collective func, Protocol p) {
        GraphInfo g = topo.ring();
        int nNodes = topo.nNodes();
        int nRanks = topo.nRanks();
        int nSteps = nSteps(func, nRanks);
        int nCh = modelChannels(g);
        double bw = nNodes == 1 || (nNodes <= 2 && topo.minCompCap() < 100) ? g.bwIntraGBps() : g.bwInterGBps();
        double busBw = bw * nCh;
        if (p == Protocol.LL) {
            busBw = Math.min(llMaxBw(), busBw * 0.5);
        } else if (p == Protocol.LL128) {
            busBw = Math.min(busBw * 0.92, nCh * perCh(k.perChMaxRingLL128()));
        }
        double lat = k.baseLat(Algorithm.RING, p);
        double bandwidth = nSteps > 0 ? busBw * nRanks / nSteps : 0;
        HwKind intraHw = intraHw(g);
        HwKind interHw = nNodes == 1 ? intraHw : HwKind.NET;
        double intraLat = k.hwLat(intraHw, Algorithm.RING, p);
        double interLat;
        if (nNodes == 1) {
            interLat = intraLat;
        } else {
            interLat = topo.maxLocalRanks() == 1 ? k.hwLat(HwKind.NET, Algorithm.TREE, p)
                    : k.hwLat(interHw, Algorithm.RING, p);
            interLat += g.latencyInterUs();
            if (p == Protocol.SIMPLE) {
                interLat += g.latencyInterUs();
            }
        }
        if (func == Collective.BROADCAST || func == Collective.REDUCE) {
            HwKind level = nNodes == 1 ? intraHw : interHw;
            if (g.sameChannels()) {
                lat += k.hwLat(level, Algorithm.RING, p);
            } else {
                lat += nSteps * (p == Protocol.SIMPLE ? k.hwLat(level, Algorithm.TREE, p)
                        : k.hwLat(level, Algorithm.RING, p));
            }
        } else {
            double overhead = nNodes > 1 ? netOverhead * (p == Protocol.SIMPLE ? 3 : 1) : 0;
            intraLat = Math.max(intraLat, overhead);
            int nInterSteps = nNodes == 1 ? 0 : func == Collective.ALL_REDUCE ? 2 * (nNodes - 1) : nNodes - 1;
            lat += (nSteps - nInterSteps) * intraLat + nInterSteps * interLat;
        }
        table.set(f, Algorithm.RING, p, lat, bandwidth);
    }

    private void tree(int f, Protocol p) {
        GraphInfo g = topo.tree();
        int nNodes = topo.nNodes();
        int nCh = modelChannels(g);
        double bw = topo.minCompCap() < 100 ? (nNodes <= 2 ? g.bwIntraGBps() : g.bwInterGBps())
                : Math.min(g.bwInterGBps(), g.bwIntraGBps());
        double busBw = bw * nCh;
        busBw = Math.min(busBw * 0.92, nCh * perCh(k.perChMaxTree()));
        if (p == Protocol.LL) {
            busBw = Math.min(busBw / 3.8, llMaxBw());
        } else if (p == Protocol.LL128) {
            busBw = Math.min(busBw * (nNodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0), nCh * perCh(k.perChMaxTreeLL128()));
        }
        if (topo.maxTreePattern() == GraphPattern.TREE) {
            busBw *= 0.85;
        }
        HwKind intraHw = intraHw(g);
        HwKind interHw = nNodes == 1 ? intraHw : HwKind.NET;
        double intraLat = k.hwLat(intraHw, Algorithm.TREE, p);
        double interLat = k.hwLat(interHw, Algorithm.TREE, p);
        double lat = k.baseLat(Algorithm.TREE, p)
                + 2 * ((topo.nRanks() / nNodes - 1) * intraLat + TunerConstants.log2i(nNodes) * interLat);
        table.set(f, Algorithm.TREE, p, lat, busBw * 0.5);
    }

    @Override
    public double timeUs(int f, Algorithm a, Protocol p, long nBytes, int numPipeOps) {
        if (!table.enabled(f, a, p)) {
            return -1;
        }
        double bw = table.bwGBps(f, a, p);
        double lat = table.latUs(f, a, p);
        if (bw <= 0) {
            return -1;
        }
        Collective func = AlgoProtoFilter.FUNCS[f];
        if (a == Algorithm.TREE && func == Collective.ALL_REDUCE) {
            bw *= k.treeCorrection(p, nBytes);
        }
        if (a == Algorithm.RING && p == Protocol.SIMPLE) {
            boolean blackwellNvl = topo.minCompCap() >= 100 && topo.ring().typeIntra() == PathType.NVL;
            boolean plateau = (topo.nNodes() > 1 && func == Collective.ALL_REDUCE)
                    || (topo.nNodes() == 1 && blackwellNvl && func != Collective.BROADCAST
                            && func != Collective.REDUCE);
            if (plateau && nBytes / ((long) Math.max(1, topo.commChannels()) * topo.nRanks()) >= 64) {
                lat *= topo.minCompCap() < 80 ? 1.9 : 1.4;
            }
        }
        int latCount = a == Algorithm.RING ? numPipeOps : (numPipeOps + MAX_DEV_WORK_BATCH_COLLS - 1)
                / MAX_DEV_WORK_BATCH_COLLS;
        double t = CostModel.time(lat, latCount, nBytes, bw);
        return t > 0 ? t : -1;
    }

    @Override
    public int channelsAndThreads(Algorithm a, Protocol p, long nBytes, int maxChannels) {
        return channelPolicy.choose(a, p, nBytes, maxChannels);
    }

    static boolean amdX86(TuningTopology t) {
        return t.cpuArch() == CpuArch.X86 && t.cpuVendor() == CpuVendor.AMD;
    }
}
