package io.jccl.internal.tuning;

import io.jccl.Collective;

/**
 * Service-provider interface of tuner plugins (NCCL's {@code ncclTuner_t}), found with {@link java.util.ServiceLoader}
 * ({@code META-INF/services/io.jccl.internal.tuning.TunerPlugin}). Chosen by NCCL_TUNER_PLUGIN (the plugin's
 * {@link #name()} or class name; {@code none} disables plugins; unset = the first found, by class name).
 *
 * <p>Life cycle per communicator: {@link #init} once, {@link #getCollInfo} per operation from the thread that enqueues
 * it (one at a time per communicator), {@link #close} when the communicator is destroyed. Exceptions thrown by a plugin
 * are reported and the plugin's answer is ignored.
 */
public interface TunerPlugin extends AutoCloseable {
    /** The plugin's name (matched case-insensitively against NCCL_TUNER_PLUGIN). */
    String name();

    /**
     * Called once per communicator.
     *
     * @param nRanks communicator size
     * @param nNodes number of nodes
     */
    void init(int nRanks, int nNodes);

    /**
     * May edit the cost table for one operation.
     *
     * @param coll        the collective
     * @param nBytes      bytes the model was asked about
     * @param numPipeOps  operations pipelined together
     * @param table       predicted times, editable
     * @param maxChannels the current channel limit
     * @return the channel limit to use (return {@code maxChannels} to keep it)
     */
    int getCollInfo(Collective coll, long nBytes, int numPipeOps, CostTable table, int maxChannels);

    /** Called when the communicator is destroyed (NCCL's finalize). */
    @Override
    void close();
}
