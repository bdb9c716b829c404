/**
 * Topology: what the hardware of a node looks like and which channels (rings, trees) the communicator runs on,
 * following NCCL's src/graph. The flow, in NCCL's order:
 * <ol>
 *   <li>{@code discovery}: the node's topology as XML in NCCL's schema, from NCCL_TOPO_FILE or sysfs plus a
 *   {@link io.jccl.internal.topology.discovery.GpuProbe} (the CUDA module's), dumped to NCCL_TOPO_DUMP_FILE;</li>
 *   <li>{@code xml}: the parser/writer and {@link io.jccl.internal.topology.xml.SystemBuilder}, XML →
 *   {@link io.jccl.internal.topology.TopoSystem} (nodes, links, bandwidths);</li>
 *   <li>{@code paths}: BFS paths between every GPU/NIC/CPU/NVSwitch with NCCL's P2P, GDR, PXN and P2C rules;</li>
 *   <li>{@code search}: ring and tree graphs under a step budget (NCCL_GRAPH_DUMP_FILE / NCCL_GRAPH_FILE), and the
 *   {@link io.jccl.internal.topology.search.GraphInfo} all ranks merge;</li>
 *   <li>{@code channels}: preset (per rank) and postset (all ranks) joining node graphs into the communicator's rings
 *   and double binary trees;</li>
 *   <li>{@code setup}: {@link io.jccl.internal.topology.setup.TopoSetup} runs the steps above; reports as text.</li>
 * </ol>
 *
 * <p>How a communicator uses it during init (rank r on node n):
 * <pre>{@code
 * TopoParams params = TopoParams.from(TopoEnv.system());
 * XmlElement xml = TopoDiscovery.discover(params, gpuProbe);      // or the XML the local ranks merged
 * TopoXml.setGpuRank(xml, myGpuBusId, rank);                        // each local rank marks its GPU
 * NodePlan node = TopoSetup.planNode(xml, params, nNodes > 1);
 * // allgather node.ring().info(), node.tree().info() -> GraphInfo.merge(...) (all ranks agree)
 * // ChannelPreset.preset(rank, min(ring, tree channels), agreed ring, agreed tree) -> allgather TopoRanks
 * CommChannels ch = ChannelPostset.postset(nodeOfRank, allTopoRanks, nChannels, ring.crossNic(), min, max);
 * }</pre>
 * For one process simulating many ranks (tools, tests) {@link io.jccl.internal.topology.setup.TopoSetup#simulate}
 * does all of it. Everything here runs once per communicator on the initialising thread.
 */
package io.jccl.internal.topology;
