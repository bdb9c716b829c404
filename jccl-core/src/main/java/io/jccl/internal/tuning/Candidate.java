package io.jccl.internal.tuning;

/**
 * One algorithm × protocol considered for an operation: its predicted time, the model's latency and bandwidth, and
 * why it was not usable (null when usable).
 *
 * @param algorithm  algorithm
 * @param protocol   protocol
 * @param timeUs     predicted time (after any tuner plugin), -1 when not usable (0 for a one-rank copy)
 * @param latUs      model latency
 * @param bwGBps     model algorithm bandwidth
 * @param disabledBy reason, or null
 *
 * <p>Immutable; one entry of NCCL's tuning result list, plus the reason NCCL only logs.
 */
record Candidate(Algorithm algorithm, Protocol protocol, double timeUs, double latUs, double bwGBps,
                        String disabledBy) {
    public boolean usable() {
        return disabledBy == null && timeUs >= 0;
    }
}
