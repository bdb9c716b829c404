package io.jccl.cuda;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.cuda.internal.driver.CuIpcGraphs;

import java.lang.foreign.MemorySegment;

/**
 * A CUDA graph captured from a stream ({@link CudaStream#beginCapture} ... {@link CudaStream#endCapture}):
 * replaying it launches all captured work with one call, which removes the host launch cost of small
 * collectives. The executable graph is instantiated on the first {@link #launch} (or {@link #instantiate()}),
 * not when the capture ends, because instantiation is not allowed while another stream of the thread still
 * captures: end the captures of all GPUs first, then launch. JCCL's kernels keep their barrier counters, epochs and
 * FIFO steps in device memory, so a graph may be replayed any number of times, as long as every GPU of a clique
 * replays its graphs in the same order. A graph that captured calls of a communicator that was suspended since
 * ({@link GpuCommunicator#suspend()}) is refused: capture it again after the resume.
 *
 * <p>Thread: launch from one thread at a time. Mirrors what NCCL supports under CUDA graph capture.
 */
public final class CudaGraph implements AutoCloseable {
    private final CudaDevice device;
    private final MemorySegment graph;
    /** The communicators whose kernels were captured, and their memory epochs at capture. */
    private final CaptureGuard[] guards;
    private final int[] epochs;
    private MemorySegment exec;
    private boolean closed;

    CudaGraph(CudaDevice device, MemorySegment graph, java.util.Map<CaptureGuard, Integer> captured) {
        this.device = device;
        this.graph = graph;
        this.guards = captured.keySet().toArray(new CaptureGuard[0]);
        this.epochs = new int[guards.length];
        for (int i = 0; i < guards.length; i++) {
            epochs[i] = captured.get(guards[i]);
        }
    }

    public CudaDevice device() {
        return device;
    }

    /** Instantiates the executable graph now (idempotent); {@link #launch} does it when needed. */
    public void instantiate() {
        checkOpen();
        if (exec == null) {
            device.makeCurrent();
            exec = CuIpcGraphs.instantiate(graph);
        }
    }

    /**
     * Queues one replay of the whole graph on {@code stream}.
     *
     * @throws JcclException {@link Result#INVALID_USAGE} when a communicator whose calls it captured was suspended
     *                       since (its memory moved on resume): capture the graph again
     */
    public void launch(CudaStream stream) {
        instantiate();
        for (int i = 0; i < guards.length; i++) {
            if (guards[i].epoch() != epochs[i]) {
                throw new JcclException(Result.INVALID_USAGE, "this CUDA graph holds calls of " + guards[i].owner()
                        + " captured before it was suspended; its memory was released and taken back elsewhere on "
                        + "resume, so the graph cannot be replayed: capture it again");
            }
        }
        CuIpcGraphs.launch(exec, stream.handle());
    }

    /** Uploads the graph's work to the device ahead of the first launch (optional; makes the first launch faster). */
    public void upload(CudaStream stream) {
        instantiate();
        CuIpcGraphs.upload(exec, stream.handle());
    }

    /** Destroys the executable graph and the graph. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        device.makeCurrent();
        if (exec != null) {
            CuIpcGraphs.destroyExec(exec);
        }
        CuIpcGraphs.destroyGraph(graph);
    }

    private void checkOpen() {
        if (closed) {
            throw new JcclException(Result.INVALID_USAGE, "CUDA graph on device " + device.ordinal() + " is closed");
        }
    }
}
