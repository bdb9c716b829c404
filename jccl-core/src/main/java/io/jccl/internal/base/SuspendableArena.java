package io.jccl.internal.base;

import io.jccl.JcclException;
import io.jccl.Result;

import java.lang.foreign.Arena;

/**
 * The memory a communicator gives back when it is suspended (connector FIFOs, shared areas, scratch): one
 * {@link CountedArena} per period between suspends, opened when something first allocates in it and closed, all at
 * once, by {@link #release()}. Whoever holds segments of it must have dropped them before the release.
 *
 * <p>Allocation on the threads that set up connections (the launching thread, which suspend and resume run on too);
 * {@link #release} once every user of the memory stopped. Mirrors: the scratch and persistent entries NCCL's
 * ncclMemManager releases on ncclCommSuspend.
 */
public final class SuspendableArena {
    private final MemoryLedger ledger;
    private CountedArena current;
    private boolean closed;

    public SuspendableArena(MemoryLedger ledger) {
        this.ledger = ledger;
    }

    /**
     * The arena of the current period, opened on first use.
     *
     * @throws JcclException {@link Result#INVALID_USAGE} after {@link #close()}
     */
    public synchronized Arena arena() {
        if (closed) {
            throw new JcclException(Result.INVALID_USAGE, "the communicator's memory was released for good (it was "
                    + "closed or aborted)");
        }
        if (current == null) {
            current = new CountedArena(ledger);
        }
        return current;
    }

    /** Frees everything allocated since the last release; returns the bytes of this rank's own memory freed. */
    public synchronized long release() {
        if (current == null) {
            return 0;
        }
        long bytes = current.ownBytes();
        current.close();
        current = null;
        return bytes;
    }

    /** {@link #release()} for good (teardown): a later {@link #arena()} fails. */
    public synchronized void close() {
        release();
        closed = true;
    }
}
