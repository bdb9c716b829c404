package io.jccl.internal.tuning;

import io.jccl.Collective;

/**
 * What a communicator's kernels can run, for the cost model: the reason an algorithm × protocol of a collective does
 * not run there, or null when it does. The model disables the others with that reason, so the tuner chooses among
 * what runs and {@code explain} says why the rest did not.
 *
 * <p>Owned by: immutable. Mirrors the checks in NCCL's tuning that drop what the kernels were not compiled for.
 */
@FunctionalInterface
interface KernelSupport {
    /** Everything the model knows runs. */
    KernelSupport ALL = (func, a, p) -> null;

    String unsupported(Collective func, Algorithm a, Protocol p);
}
