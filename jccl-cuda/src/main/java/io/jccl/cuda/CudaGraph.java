package io.jccl.cuda;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.cuda.internal.driver.CuIpcGraphs;

import java.lang.foreign.MemorySegment;

/**
 * A CUDA graph captured from a stream ({@link CudaStream#beginCapture} ... {@link CudaStream#endCapture}) and
 * instantiated: replaying it launches all captured work with one call, which removes the host launch cost of
 * small collectives. JCCL's kernels keep their barrier counters, epochs and FIFO steps in device memory, so a
 * graph may be replayed any number of times, as long as every GPU of a clique replays its graphs in the same
 * order.
 *
 * <p>Thread: launch from one thread at a time. Mirrors what NCCL supports under CUDA graph capture.
 */
public final class CudaGraph implements AutoCloseable {
    private final CudaDevice device;
    private final MemorySegment graph;
    private final MemorySegment exec;
    private boolean closed;

    private CudaGraph(CudaDevice device, MemorySegment graph, MemorySegment exec) {
        this.device = device;
        this.graph = graph;
        this.exec = exec;
    }

    static CudaGraph instantiate(CudaDevice device, MemorySegment graph) {
        device.makeCurrent();
        MemorySegment exec;
        try {
            exec = CuIpcGraphs.instantiate(graph);
        } catch (RuntimeException e) {
            CuIpcGraphs.destroyGraph(graph);
            throw e;
        }
        return new CudaGraph(device, graph, exec);
    }

    public CudaDevice device() {
        return device;
    }

    /** Queues one replay of the whole graph on {@code stream}. */
    public void launch(CudaStream stream) {
        checkOpen();
        device.makeCurrent();
        CuIpcGraphs.launch(exec, stream.handle());
    }

    /** Uploads the graph's work to the device ahead of the first launch (optional; makes the first launch faster). */
    public void upload(CudaStream stream) {
        checkOpen();
        device.makeCurrent();
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
        CuIpcGraphs.destroyExec(exec);
        CuIpcGraphs.destroyGraph(graph);
    }

    private void checkOpen() {
        if (closed) {
            throw new JcclException(Result.INVALID_USAGE, "CUDA graph on device " + device.ordinal() + " is closed");
        }
    }
}
