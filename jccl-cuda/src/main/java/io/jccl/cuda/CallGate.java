package io.jccl.cuda;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.cuda.internal.comm.GpuStops;
import io.jccl.cuda.internal.comm.GpuSuspension;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The check every call of a GPU rank passes first: refused on a closed, aborted, stopped or suspended communicator,
 * with a message naming the rank, its GPU and the call; else the call's name for its errors ("rank 1 of 2 (GPU 0):
 * allReduce"), made once per call kind so a call allocates nothing.
 *
 * <p>Thread: the thread issuing the communicator's calls. Mirrors the state checks at the top of NCCL's
 * collective entry points ({@code ncclCommEnsureReady}).
 */
final class CallGate {
    private final String name;
    private final Map<String, String> wheres = new ConcurrentHashMap<>();

    CallGate(String name) {
        this.name = name;
    }

    /** The error-message prefix of {@code call}, or the refusal the communicator's state calls for. */
    String open(String call, boolean closed, boolean aborted, GpuStops stops, GpuSuspension suspension) {
        if (closed) {
            throw new JcclException(Result.INVALID_USAGE, name + ": " + call + " on a closed communicator");
        }
        if (aborted) {
            throw new JcclException(Result.ABORTED, name + ": " + call
                    + " after abort(); close it and create a new one");
        }
        JcclException stop = stops.current();   // reads the control memory: only while not closed
        if (stop != null) {
            throw stop.result() == Result.TIMEOUT ? stop : new JcclException(stop.result(), name + ": " + call
                    + " refused: the communicator was stopped: " + stop.getMessage(), stop);
        }
        if (suspension.suspended() && !call.equals("suspend") && !call.equals("resume")) {
            throw new JcclException(Result.INVALID_USAGE, name + ": " + call + " called while the communicator is "
                    + "suspended; resume() it first");
        }
        String w = wheres.get(call);
        if (w == null) {
            w = name + ": " + call;
            wheres.put(call, w);
        }
        return w;
    }
}
