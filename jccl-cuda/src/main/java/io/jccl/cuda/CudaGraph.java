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
 * replays its graphs in the same order.
 *
 * <p>Thread: launch from one thread at a time. Mirrors what NCCL supports under CUDA graph capture.
 */
public final class CudaGraph implements AutoCloseable {
    private final CudaDevice device;
    private final MemorySegment graph;
    private MemorySegment exec;
    private boolean closed;

    CudaGraph(CudaDevice device, MemorySegment graph) {
        this.device = device;
        this.graph = graph;
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

    /** Queues one replay of the whole graph on {@code stream}. */
    public void launch(CudaStream stream) {
        instantiate();
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
