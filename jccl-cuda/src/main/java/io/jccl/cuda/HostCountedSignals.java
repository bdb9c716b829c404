package io.jccl.cuda;

import io.jccl.cuda.internal.comm.StreamWaits;
import io.jccl.cuda.internal.driver.CuStreams;

import java.util.function.Supplier;

/**
 * The one-sided signals of a {@link GpuWindow} whose counts this rank keeps on the host, so that an eager
 * {@link GpuCommunicator#putSignal} and {@link GpuCommunicator#waitSignal} occupy no multiprocessor: a put's signal is
 * a stream memory write ({@code cuStreamWriteValue32}) of the pair's next count into the peer's word, queued behind
 * the copy; a wait is a stream memory wait ({@code cuStreamWaitValue32}, cyclic compare) for the count this rank's
 * waits have reached, kept under the communicator's limit and stop by {@link StreamWaits}, followed by a write of that
 * count into the counter word the wait kernels advance.
 *
 * <p>Counts written from the host are right only while the host knows every signal of a pair (peer, signal). A CUDA
 * graph replays the same writes, so a captured put or wait counts on the GPU (the one-warp kernels, an atomic add and
 * a counter the kernel advances), and from its capture on so does every later call of that pair on this rank: the
 * words then go on from the value the eager calls left. A put on another stream than the pair's previous one waits
 * for that put first (an event), so the counts land in order.
 *
 * <p>Thread: the thread that issues the communicator's calls. Mirrors the copy-engine path of NCCL's host-side
 * one-sided operations (2.29/2.30: host-tracked sequence numbers written and awaited with stream memory operations,
 * per sender), our own code.
 */
final class HostCountedSignals implements AutoCloseable {
    private final CudaDevice device;
    /** False with {@code -Djccl.cuda.copyEngineWaits=kernel}: every pair counts on the GPU. */
    private final boolean enabled;
    /** The window's stream memory waits (made at the first wait). */
    private final Supplier<StreamWaits> waits;
    private final int[][] sent;
    private final int[][] awaited;
    private final boolean[][] putOnGpu;
    private final boolean[][] waitOnGpu;
    private final CudaStream[][] putStream;
    private final CudaEvent[][] putDone;
    /** What a timed-out wait names, per signal (made once: a wait allocates nothing). */
    private final String[] waitWhat;
    private final int[] onePeer = new int[1];
    private final long[] oneWord = new long[1];
    private final int[] oneValue = new int[1];
    private long calls;

    HostCountedSignals(CudaDevice device, int ranks, int signals, boolean enabled, Supplier<StreamWaits> waits) {
        this.device = device;
        this.enabled = enabled;
        this.waits = waits;
        this.sent = new int[ranks][signals];
        this.awaited = new int[ranks][signals];
        this.putOnGpu = new boolean[ranks][signals];
        this.waitOnGpu = new boolean[ranks][signals];
        this.putStream = new CudaStream[ranks][signals];
        this.putDone = new CudaEvent[ranks][signals];
        this.waitWhat = new String[signals];
        for (int s = 0; s < signals; s++) {
            waitWhat[s] = "waitSignal (signal " + s + ": its putSignal into a window)";
        }
    }

    /**
     * Queues the signal of this rank's put to {@code peer} as a stream write of the pair's next count into
     * {@code word}, after the copy queued before it; false (nothing queued) when the pair counts on the GPU, where the
     * caller launches the signal kernel.
     */
    boolean signal(int peer, int signal, long word, CudaStream stream, boolean capturing) {
        if (capturing) {
            putOnGpu[peer][signal] = true;
        }
        if (!enabled || putOnGpu[peer][signal]) {
            return false;
        }
        CudaStream last = putStream[peer][signal];
        CudaEvent done = putDone[peer][signal];
        if (done == null) {
            done = CudaEvent.create(device, false);
            putDone[peer][signal] = done;
        } else if (!stream.equals(last)) {
            stream.waitFor(done);   // the previous count lands first
        }
        CuStreams.writeValue32(stream.handle(), word, ++sent[peer][signal]);
        done.record(stream);
        putStream[peer][signal] = stream;
        calls++;
        return true;
    }

    /**
     * Queues the wait until {@code count} more signals of {@code peer} reached {@code word}, a stream memory wait
     * registered with the window's {@link StreamWaits}, then the write of the count reached into {@code counter};
     * false (nothing queued) when the pair counts on the GPU, where the caller launches the wait kernel.
     */
    boolean await(int peer, int signal, int count, long word, long counter, CudaStream stream, boolean capturing) {
        if (capturing) {
            waitOnGpu[peer][signal] = true;
        }
        if (!enabled || waitOnGpu[peer][signal]) {
            return false;
        }
        int value = awaited[peer][signal] + count;
        onePeer[0] = peer;
        oneWord[0] = word;
        oneValue[0] = value;
        waits.get().await(1, onePeer, oneWord, oneValue, stream, waitWhat[signal]);
        awaited[peer][signal] = value;
        CuStreams.writeValue32(stream.handle(), counter, value);   // where a later captured wait goes on from
        calls++;
        return true;
    }

    /** Signals and waits queued as stream memory operations so far. */
    long calls() {
        return calls;
    }

    /** Frees the events (the window is going). */
    @Override
    public void close() {
        for (CudaEvent[] row : putDone) {
            for (CudaEvent e : row) {
                if (e != null) {
                    e.close();
                }
            }
        }
    }
}
