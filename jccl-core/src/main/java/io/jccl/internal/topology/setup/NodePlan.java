package io.jccl.internal.topology.setup;

import io.jccl.internal.topology.TopoSystem;
import io.jccl.internal.topology.search.TopoGraph;

/**
 * The topology of one node with its searched ring and tree graphs (before the cross-rank agreement).
 *
 * @param system the node's system with paths computed (NET nodes removed when the communicator is on one node)
 * @param ring   ring graph
 * @param tree   tree graph
 *
 * <p>Immutable holder; NCCL keeps the same in comm->topo and the ring/tree ncclTopoGraph of initTransportsRank.
 */
public record NodePlan(TopoSystem system, TopoGraph ring, TopoGraph tree) {
}
