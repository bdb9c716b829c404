package io.jccl.internal.tuning;

import io.jccl.Collective;

import java.util.Locale;

/**
 * What one call runs, decided once: the algorithm as the communicator names it, the protocol, the channels (GPU:
 * blocks), the chunk each step moves, and why. The planner builds the call's work from it, the counters, JFR events
 * and profilers report it, and {@code explain} and {@code jccl topo --explain} print it. Owned by: immutable.
 * Mirrors: the ncclTaskColl fields ncclGetAlgoInfo fills (algorithm, protocol, nMaxChannels, chunk size).
 *
 * @param collective the call's collective
 * @param nBytes     bytes per rank (the whole buffer for allReduce, broadcast and reduce; one rank's block for
 *                   allGather, reduceScatter and allToAll)
 * @param algorithm  the algorithm that runs, e.g. {@code RING}, {@code ONE_SHOT}, {@code ll128}
 * @param protocol   the protocol its data moves with
 * @param nChannels  channels (host) or blocks (GPU) the work spans; 0 when nothing runs
 * @param chunkBytes bytes one step of the work moves (a connector slot, a kernel chunk); 0 when it has none
 * @param why        the rule that decided, in words
 * @param model      the cost model's answer for a collective it prices (it decides when the algorithm is a ring
 *                   or a tree; the shared-memory algorithms take precedence within their limits), else null
 */
public record Selection(Collective collective, long nBytes, String algorithm, Protocol protocol, int nChannels,
                        long chunkBytes, String why, ModelChoice model) {
    /** The cost model's predicted time of the call in µs, or -1 when no model priced it. */
    public double predictedUs() {
        return model != null ? model.timeUs() : -1;
    }

    /** E.g. {@code AllReduce 4096 bytes -> ONE_SHOT/Simple, 1 channel: one-shot through shared memory ...}. */
    public String line() {
        return String.format(Locale.ROOT, "%s %d bytes -> %s/%s, %d channel%s%s: %s", collective.ncclName(), nBytes,
                algorithm, protocol.ncclName(), nChannels, nChannels == 1 ? "" : "s",
                chunkBytes > 0 ? ", chunks of " + chunkBytes + " B" : "", why);
    }
}
