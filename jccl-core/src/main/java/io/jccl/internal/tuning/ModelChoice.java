package io.jccl.internal.tuning;

import io.jccl.Collective;

import java.util.List;

/**
 * The cost model's answer for one operation (NCCL's algorithm × protocol, channels, threads) and how it got there:
 * every candidate with its predicted time or the reason it was disabled. Part of a {@link Selection} when the model
 * decides the call.
 *
 * @param collective operation
 * @param nBytes     bytes the model was asked about
 * @param algorithm  chosen algorithm
 * @param protocol   chosen protocol
 * @param nChannels  channels to run on
 * @param nThreads   threads per channel (GPU kernels; 1 for the host model)
 * @param timeUs     predicted time of the choice
 * @param forced     NCCL_ALGO / NCCL_PROTO restricted this collective
 * @param candidates every algorithm × protocol with its time or the reason it was not usable, in NCCL id order
 */
record ModelChoice(Collective collective, long nBytes, Algorithm algorithm, Protocol protocol, int nChannels,
                          int nThreads, double timeUs, boolean forced, List<Candidate> candidates) {
    public ModelChoice {
        candidates = List.copyOf(candidates);
    }
}
