package io.jccl.cuda.testing;

import io.jccl.cuda.CudaGraph;
import io.jccl.cuda.CudaStream;
import io.jccl.cuda.DeviceBuffer;
import io.jccl.cuda.GpuCommunicator;
import io.jccl.cuda.GpuWindow;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * One rank's side of the one-sided ring the window tests run: each round every rank puts a fresh block into the
 * next rank's window (block r of it) with signal {@link #DATA}, waits for the previous rank's block, copies it out on
 * the same stream and checks every element (stale or partial data would show: each round's values differ), then
 * acknowledges with a 0-byte putSignal ({@link #ACK}) and waits for the next rank's acknowledgement before
 * overwriting its block again. Ends with 3 signal-only puts waited for as one count of 3.
 */
public final class WindowRing {
    public static final int DATA = 3;
    public static final int ACK = 4;
    public static final int BURST = 5;
    public static final int STREAMS = 6;

    private WindowRing() {
    }

    /**
     * The ring as one CUDA graph: the put to the next rank, the wait for the previous one, the copy of its block out of
     * the window, the acknowledgement and the wait for the next rank's, captured once and replayed {@code replays}
     * times with fresh data in the source between replays. Returns null, or what came back wrong.
     */
    public static String runGraph(GpuCommunicator g, GpuWindow w, long blockBytes, int replays) {
        int r = g.rank();
        int next = (r + 1) % g.size();
        int prev = (r + g.size() - 1) % g.size();
        try (Arena arena = Arena.ofConfined();
             CudaStream s = CudaStream.create(g.device());
             DeviceBuffer src = DeviceBuffer.allocate(g.device(), blockBytes);
             DeviceBuffer out = DeviceBuffer.allocate(g.device(), blockBytes)) {
            MemorySegment h = arena.allocate(blockBytes, 16);
            s.beginCapture();
            g.putSignal(w, r * blockBytes, src, blockBytes, next, DATA, s);
            g.waitSignal(w, prev, DATA, 1, s);
            out.copyFromAsync(w.buffer().slice(prev * blockBytes, blockBytes), blockBytes, s);
            g.putSignal(w, 0, src, 0, prev, ACK, s);
            g.waitSignal(w, next, ACK, 1, s);
            try (CudaGraph graph = s.endCapture()) {
                for (int k = 0; k < replays; k++) {
                    fill(h, r, 100 + k);
                    src.copyFrom(h);
                    graph.launch(s);
                    s.synchronize();
                    if (g.asyncError() != null) {
                        return "rank " + r + " replay " + k + ": " + g.asyncError().getMessage();
                    }
                    out.copyTo(h);
                    String bad = mismatch(h, r, prev, 100 + k);
                    if (bad != null) {
                        return bad;
                    }
                }
            }
            return null;
        }
    }

    /** The element i of rank r's block in round k. */
    static int value(int r, int k, long i) {
        return (int) (r * 1_000_003L + k * 7_919L + i);
    }

    private static void fill(MemorySegment h, int r, int k) {
        for (long i = 0; i < h.byteSize() / 4; i++) {
            h.setAtIndex(JAVA_INT, i, value(r, k, i));
        }
    }

    /** Rank {@code r}'s view of rank {@code from}'s block of round {@code k} in {@code h}: null when right. */
    private static String mismatch(MemorySegment h, int r, int from, int k) {
        for (long i = 0; i < h.byteSize() / 4; i++) {
            int want = value(from, k, i);
            if (h.getAtIndex(JAVA_INT, i) != want) {
                return "rank " + r + " round " + k + " element " + i + " of rank " + from + "'s block: "
                        + h.getAtIndex(JAVA_INT, i) + " instead of " + want;
            }
        }
        return null;
    }

    /**
     * Runs {@code rounds} rounds of blocks of {@code blockBytes} (the window holds n of them) and returns null, or
     * what came back wrong.
     */
    public static String run(GpuCommunicator g, GpuWindow w, long blockBytes, int rounds) {
        int r = g.rank();
        int next = (r + 1) % g.size();
        int prev = (r + g.size() - 1) % g.size();
        try (Arena arena = Arena.ofConfined();
             CudaStream s = CudaStream.create(g.device());
             DeviceBuffer src = DeviceBuffer.allocate(g.device(), blockBytes)) {
            MemorySegment h = arena.allocate(blockBytes, 16);
            for (int k = 0; k < rounds; k++) {
                fill(h, r, k);
                src.copyFrom(h);
                g.putSignal(w, r * blockBytes, src, blockBytes, next, DATA, s);
                g.waitSignal(w, prev, DATA, 1, s);
                w.buffer().slice(prev * blockBytes, blockBytes).copyToAsync(h, s);
                s.synchronize();
                String bad = mismatch(h, r, prev, k);
                if (bad != null) {
                    return bad;
                }
                g.putSignal(w, 0, src, 0, prev, ACK, s);
                g.waitSignal(w, next, ACK, 1, s);
            }
            for (int i = 0; i < 3; i++) {
                g.putSignal(w, 0, src, 0, next, BURST, s);
            }
            g.waitSignal(w, prev, BURST, 3, s);
            s.synchronize();
            return g.asyncError() != null ? "rank " + r + ": " + g.asyncError().getMessage() : null;
        }
    }

    /**
     * Puts {@code chunks} chunks of {@code chunkBytes} into the next rank's block, alternating between two streams
     * with signal {@link #STREAMS}, waits for all of the previous rank's as one count on a third stream and checks
     * every element: the counts of one peer and signal must land in order whatever stream each put is on.
     */
    public static String runOnTwoStreams(GpuCommunicator g, GpuWindow w, long blockBytes, long chunkBytes,
                                         int chunks) {
        int r = g.rank();
        int next = (r + 1) % g.size();
        int prev = (r + g.size() - 1) % g.size();
        try (Arena arena = Arena.ofConfined();
             CudaStream a = CudaStream.create(g.device());
             CudaStream b = CudaStream.create(g.device());
             CudaStream c = CudaStream.create(g.device());
             DeviceBuffer src = DeviceBuffer.allocate(g.device(), chunkBytes * chunks)) {
            MemorySegment h = arena.allocate(chunkBytes, 16);
            for (int k = 0; k < chunks; k++) {
                fill(h, r, 200 + k);
                src.slice(k * chunkBytes, chunkBytes).copyFrom(h);
            }
            for (int k = 0; k < chunks; k++) {
                g.putSignal(w, r * blockBytes + k * chunkBytes, src.slice(k * chunkBytes, chunkBytes), chunkBytes,
                        next, STREAMS, k % 2 == 0 ? a : b);
            }
            g.waitSignal(w, prev, STREAMS, chunks, c);
            c.synchronize();
            a.synchronize();
            b.synchronize();
            if (g.asyncError() != null) {
                return "rank " + r + ": " + g.asyncError().getMessage();
            }
            for (int k = 0; k < chunks; k++) {
                w.buffer().slice(prev * blockBytes + k * chunkBytes, chunkBytes).copyTo(h);
                String bad = mismatch(h, r, prev, 200 + k);
                if (bad != null) {
                    return bad;
                }
            }
            return null;
        }
    }
}
