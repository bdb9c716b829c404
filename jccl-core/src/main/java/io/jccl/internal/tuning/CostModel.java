package io.jccl.internal.tuning;

/**
 * A cost model: per-combination latency and bandwidth computed once ({@link #table()}), the predicted time of one
 * operation, and the channel/thread count for it. Two implementations: {@link GpuCostModel} (NCCL's model for GPU
 * communicators) and {@link HostCostModel} (host memory over shared memory and sockets).
 *
 * <p>Implementations are immutable after construction and safe to call from any thread.
 */
interface CostModel {
    /** Short name for explanations ("NCCL GPU model", "host model"). */
    String name();

    ModelTable table();

    /**
     * Predicted time in µs of collective index f (see {@link AlgoProtoFilter#FUNCS}) with algorithm a and protocol p on
     * {@code nBytes}, for {@code numPipeOps} operations pipelined together; -1 when the combination is unusable.
     */
    double timeUs(int f, Algorithm a, Protocol p, long nBytes, int numPipeOps);

    /**
     * Channels (low 16 bits) and threads per channel (high 16 bits; for GPU kernels, 1 for the host) to use, at most
     * {@code maxChannels} channels. Packed so that the enqueue path allocates nothing.
     */
    int channelsAndThreads(Algorithm a, Protocol p, long nBytes, int maxChannels);

    /** The same as a value, for reports. */
    default ChannelChoice channels(Algorithm a, Protocol p, long nBytes, int maxChannels) {
        int packed = channelsAndThreads(a, p, nBytes, maxChannels);
        return new ChannelChoice(packed & 0xffff, packed >>> 16);
    }

    /** How many channels and threads per channel an operation gets. */
    record ChannelChoice(int nChannels, int nThreads) {
    }

    /** NCCL's {@code time = lat * latCount + bytes / (1000 * bw)} (bw in GB/s, so bytes/1000/bw is µs). */
    static double time(double latUs, int latCount, long nBytes, double bwGBps) {
        return latUs * latCount + nBytes / (1000.0 * bwGBps);
    }
}
