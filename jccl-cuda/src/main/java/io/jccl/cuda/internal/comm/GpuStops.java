package io.jccl.cuda.internal.comm;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.debug.Log;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What stopped a GPU communicator, as one rank reports it, and this rank's ways of stopping it for every rank: its
 * {@code abort()}, and its host communicator's failure. The order of causes: a GPU wait past the limit (nothing can
 * raise the area after it), else the note of the rank that stopped the communicator (a refused call, an abort, a host
 * failure), else the area raised with no note. The first time a rank sees a cause it logs it as a WARN (NCCL_DEBUG);
 * {@link GpuWatch} looks every 200 ms, so the WARN comes when the communicator stops.
 *
 * <p>Thread: any (the issuing thread, a thread calling abort, the host communicator's failure listener). Mirrors what
 * NCCL's {@code ncclCommGetAsyncError} reports for a device communicator, shared by every rank here.
 */
public final class GpuStops {
    private final SharedControl control;
    private final int rank;
    private final String name;
    /** Set by whichever thread logs the cause first (the issuing thread, asyncError's caller, or GpuWatch). */
    private final AtomicBoolean logged = new AtomicBoolean();

    /** {@code name}: the communicator, to begin the messages with. */
    public GpuStops(SharedControl control, int rank, String name) {
        this.control = control;
        this.rank = rank;
        this.name = name;
    }

    /**
     * What stopped the GPU side, or {@code null} while nothing did. Runs before every call: while the area is not
     * raised it costs one volatile read (every cause raises it; a note is posted before, so it is there once raised).
     */
    public JcclException current() {
        AbortArea area = control.abortArea();
        if (!area.stopped()) {
            return null;
        }
        JcclException stop = area.timeoutError(rank, name);
        if (stop == null) {
            stop = control.failure();
        }
        if (stop == null) {   // raised with no note: not done by JCCL itself
            stop = new JcclException(Result.ABORTED, name + ": the communicator's kernels were stopped (abort area"
                    + " raised); close it and create a new one");
        }
        if (!logged.get() && logged.compareAndSet(false, true)) {
            Log.warn(rank, "%s", stop.getMessage());
        }
        return stop;
    }

    /** Logs the cause once it exists, if nothing logged it yet ({@link GpuWatch}'s poll: one volatile read). */
    void warnIfStopped() {
        if (!logged.get() && stopped()) {
            current();
        }
    }

    /** How errors and logs name rank {@code rank} of {@code nRanks} on {@code device}. */
    public static String nameOf(int rank, int nRanks, io.jccl.cuda.CudaDevice device) {
        return "GpuCommunicator rank " + rank + "/" + nRanks + " (GPU " + device.ordinal() + ", " + device.pciBusId()
                + ")";
    }

    /** Whether the kernels were stopped (by anything). */
    public boolean stopped() {
        return control.abortArea().stopped();
    }

    /** The limit of one GPU wait, in ms (Config.timeout, JCCL_TIMEOUT_MS; 0: none). */
    public long timeoutMs() {
        return control.abortArea().timeoutMs();
    }

    /**
     * A wait this rank keeps the limit of from the host ({@link StreamWaits}) passed it: every rank's kernels stop,
     * and every rank reports {@code cause}.
     */
    public void hostWaitTimedOut(JcclException cause) {
        control.fail(cause);
    }

    /** This rank's {@code abort()}: every rank's kernels stop, and every rank reports it. */
    public void aborted() {
        control.fail(new JcclException(Result.ABORTED, name + " called abort(); every rank's kernels have stopped"
                + " and results since are undefined: close the communicator and create a new one"));
    }

    /**
     * This rank's host communicator failed with {@code cause} (a peer process died or left, its heartbeats stopped,
     * an abort): every rank's kernels stop at once, rather than wait until the limit for a peer that will not come.
     */
    public void hostFailed(JcclException cause) {
        control.fail(new JcclException(cause != null ? cause.result() : Result.REMOTE_ERROR, name + ": its host"
                + " communicator failed, so every rank's GPU kernels were stopped: "
                + (cause != null ? cause.getMessage() : "(no cause)")
                        + "; close the communicator and create a new one"));
    }
}
