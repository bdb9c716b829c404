/**
 * Tuning: which algorithm, protocol and channel count each operation uses, following NCCL's src/tuning.
 * {@link io.jccl.internal.tuning.TuningTopology} summarises the agreed topology; a
 * {@link io.jccl.internal.tuning.CostModel} ({@link io.jccl.internal.tuning.GpuCostModel}, NCCL's model and constants,
 * or {@link io.jccl.internal.tuning.HostCostModel} for host memory over shared memory and sockets) predicts
 * {@code time = lat * latCount + bytes / (1000 * bw)} for every algorithm × protocol; NCCL_ALGO / NCCL_PROTO
 * ({@link io.jccl.internal.tuning.AlgoProtoFilter}) and a {@link io.jccl.internal.tuning.TunerPlugin} narrow or edit
 * the choice; {@link io.jccl.internal.tuning.Tuner} decides.
 *
 * <p>How a communicator uses it:
 * <pre>{@code
 * Tuner tuner = Tuner.forGpu(TuningTopology.from(plan), TuningParams.from(env),
 *         TunerPlugins.select(params.tunerPlugin(), TunerPlugins.available(null)));   // once, at init
 * long c = tuner.choose(Collective.ALL_REDUCE, nBytes, 1);                            // per operation, no allocation
 * Tuner.algorithmOf(c); Tuner.protocolOf(c); Tuner.channelsOf(c); Tuner.threadsOf(c);
 * String why = TuningReport.explain(tuner, op, nBytes);                                // comm.explain(op, bytes)
 * }</pre>
 */
package io.jccl.internal.tuning;
