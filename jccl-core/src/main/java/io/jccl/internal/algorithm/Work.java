package io.jccl.internal.algorithm;

import io.jccl.internal.transport.Connections;

import java.util.List;

/**
 * One planned operation, split over channels; every rank builds the same works in the same order with the same
 * channel count, so channel c of every rank runs matching steps. Owned by: built by the launching thread, then
 * read by the channel runners. Mirrors: ncclDevWorkColl / ncclDevWorkP2p plus the algorithm that runs it.
 */
public abstract class Work {
    /** E.g. {@code AllReduce #12 (count 1024 float sum)}, for errors and logs; built only when needed. */
    public abstract String description();

    @Override
    public String toString() {
        return description();
    }

    /** How many channels this work uses (channels 0 .. n-1). */
    public abstract int nChannels();

    /** The connectors this work will use, so missing ones are connected before it runs. */
    public abstract void needs(List<Connections.Need> out);

    /** Runs channel {@code ctx.channel()}'s part. */
    public abstract void run(ChannelContext ctx);

    /** Payload bytes this rank contributes (for the inline-run decision). */
    public abstract long bytes();
}
