package io.jccl.cuda.testing;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.RedOp;
import io.jccl.cuda.CudaGraph;
import io.jccl.cuda.CudaStream;
import io.jccl.cuda.GpuCommunicator;
import io.jccl.cuda.GpuWindow;
import io.jccl.cuda.HostElements;
import io.jccl.cuda.testing.GpuChecker.Case;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The symmetric-kernel cases of the window tests: every type, allReduce with every reduction at a one-shot and a
 * two-shot size, reduceScatter and allGather with three reductions or none, broadcast from the last rank, in and out
 * of place, with every buffer in a window ({@link GpuChecker} on windows). Each case must be planned as a symmetric
 * kernel ({@code algorithmFor} on its buffers says "sym-...") and give exact results. With the thresholds of
 * {@link #PROPERTIES} (those of the collective tests), a few KiB reach the pull kernels.
 */
public final class SymmetricCases {
    /** GpuOptions system properties: LL 1K, push 4K, one-shot to 16K, two-shot to 32K, at most 8 blocks. */
    public static final Map<String, String> PROPERTIES = Map.of("jccl.cuda.llMaxBytes", "1K",
            "jccl.cuda.llPackedMaxBytes", "2K", "jccl.cuda.ll128MaxBytes", "3K", "jccl.cuda.pushMaxBytes", "4K",
            "jccl.cuda.pullFromBytes", "4K", "jccl.cuda.oneShotMaxBytes", "16K", "jccl.cuda.twoShotMaxBytes", "32K",
            "jccl.cuda.maxBlocks", "8");
    /** Bytes of each of a rank's send and receive buffers: a window must hold twice this. */
    public static final long BYTES = 64 << 10;

    private SymmetricCases() {
    }

    /** The cases for {@code n} ranks (2: the one-shot and two-shot sizes assume two). */
    public static List<Case> cases(int n) {
        List<Case> out = new ArrayList<>();
        RedOp.Kind[] all = {RedOp.Kind.SUM, RedOp.Kind.PROD, RedOp.Kind.MIN, RedOp.Kind.MAX, RedOp.Kind.AVG};
        for (DataType t : DataType.values()) {
            int e = t.sizeBytes();
            for (boolean inPlace : new boolean[] {false, true}) {
                for (RedOp.Kind op : all) {
                    out.add(new Case(Collective.ALL_REDUCE, t, op, 10_000 / e + 3, inPlace, 0));
                    out.add(new Case(Collective.ALL_REDUCE, t, op, 28_000 / e + 3, inPlace, 0));
                }
                for (RedOp.Kind op : new RedOp.Kind[] {RedOp.Kind.SUM, RedOp.Kind.MAX, RedOp.Kind.AVG}) {
                    out.add(new Case(Collective.REDUCE_SCATTER, t, op, 3_000 / e + 1, inPlace, 0));
                }
                out.add(new Case(Collective.ALL_GATHER, t, RedOp.Kind.SUM, 3_000 / e + 1, inPlace, 0));
                out.add(new Case(Collective.BROADCAST, t, RedOp.Kind.SUM, 5_000 / e + 1, inPlace, n - 1));
            }
        }
        return out;
    }

    /**
     * Runs every case on {@code checker} (whose buffers lie in windows), each checked to be planned as a symmetric
     * kernel on every local rank; returns the wrong ones (empty when all were right).
     */
    public static List<String> run(GpuChecker checker, int localRanks, int n) {
        List<String> wrong = new ArrayList<>();
        for (Case c : cases(n)) {
            for (int i = 0; i < localRanks; i++) {
                String alg = checker.algorithm(c, i);
                if (!alg.startsWith("sym-")) {
                    wrong.add(c + ": local rank " + i + " planned " + alg + ", not a symmetric kernel");
                }
            }
            String bad = checker.run(c);
            if (bad != null) {
                wrong.add(bad);
            }
        }
        return wrong;
    }

    /**
     * A two-shot float allReduce on window {@code w} captured once in a CUDA graph and replayed {@code replays} times,
     * the input changed before each replay; null when every replay's sum was exact, else what was wrong.
     */
    public static String graphReplays(GpuCommunicator g, GpuWindow w, int replays) {
        int count = 7_001;
        long bytes = count * 4L;
        int n = g.size();
        try (Arena arena = Arena.ofConfined(); CudaStream s = CudaStream.create(g.device())) {
            MemorySegment h = arena.allocate(bytes, 16);
            var in = w.buffer().slice(0, bytes);
            var out = w.buffer().slice(BYTES, bytes);
            String alg = g.algorithmFor(Collective.ALL_REDUCE, count, DataType.FLOAT32, RedOp.SUM, in, out);
            if (!alg.startsWith("sym-twoshot")) {
                return "rank " + g.rank() + ": the graph's allReduce planned " + alg;
            }
            s.beginCapture();
            g.allReduce(in, out, count, DataType.FLOAT32, RedOp.SUM, s);
            try (CudaGraph graph = s.endCapture()) {
                for (int k = 0; k < replays; k++) {
                    for (int i = 0; i < count; i++) {
                        HostElements.set(DataType.FLOAT32, h, i, (g.rank() + 1) * (k + 1) + i % 5);
                    }
                    in.copyFrom(h);
                    g.host().barrier();   // every rank's input is in place before any replay reads it
                    graph.launch(s);
                    s.synchronize();
                    out.copyTo(h);
                    for (int i = 0; i < count; i++) {
                        double want = (k + 1) * n * (n + 1) / 2.0 + n * (i % 5);
                        double got = HostElements.get(DataType.FLOAT32, h, i);
                        if (got != want) {
                            return "rank " + g.rank() + " replay " + k + " element " + i + ": " + got + " instead of "
                                    + want;
                        }
                    }
                    g.host().barrier();   // every rank read its result before the next replay's input lands
                }
            }
        }
        return g.asyncError() == null ? null : "rank " + g.rank() + ": " + g.asyncError().getMessage();
    }
}
