package io.jccl.cuda;

import java.util.function.IntSupplier;

/**
 * What a {@link CudaGraph} checks before each replay for one communicator whose kernels it captured: the
 * communicator's memory epoch, which every suspend bumps. A graph holds the addresses of the communicator's
 * memory in its kernels' arguments; after a suspend that memory is freed and a resume allocates it elsewhere, so a
 * graph captured before is refused instead of replayed into freed memory.
 *
 * <p>Immutable; the thread that captures and launches. Mirrors nothing in NCCL, which maps resumed memory at the
 * same virtual addresses (CUDA VMM) so that captured graphs stay valid.
 */
final class CaptureGuard {
    private final String owner;
    private final IntSupplier epoch;

    CaptureGuard(String owner, IntSupplier epoch) {
        this.owner = owner;
        this.epoch = epoch;
    }

    int epoch() {
        return epoch.getAsInt();
    }

    String owner() {
        return owner;
    }
}
