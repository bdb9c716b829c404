package io.jccl.cuda.testing;

import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.GpuCommunicator;
import io.jccl.cuda.GpuWindow;

import java.time.Duration;
import java.util.List;

/**
 * One rank of the symmetric-kernel test with one process per GPU: the peers' windows are CUDA IPC mappings, so the
 * kernels read them through the window table ({@code kFlagWindow}). Runs {@link SymmetricCases} on buffers in an
 * allocated window, then a two-shot allReduce captured in a CUDA graph and replayed; prints "rank R symmetric ok"
 * and exits 0, or prints what was wrong and exits 1.
 */
public final class GpuSymmetricRankMain {
    private GpuSymmetricRankMain() {
    }

    public static void main(String[] args) {
        SymmetricCases.PROPERTIES.forEach(System::setProperty);
        int local = Integer.parseInt(System.getenv().getOrDefault("LOCAL_RANK", "0"));
        CudaDevice device = CudaDevice.get(Boolean.getBoolean("jccl.cuda.shareDevices") ? 0
                : local % CudaDevice.count());
        String wrong;
        try (GpuCommunicator g = GpuCommunicator.fromEnvironment(device);
             GpuWindow w = g.allocateWindow(2 * SymmetricCases.BYTES)) {
            List<String> bad;
            try (GpuChecker checker = new GpuChecker(List.of(g), List.of(w), SymmetricCases.BYTES,
                    Duration.ofSeconds(60))) {
                bad = SymmetricCases.run(checker, 1, g.size());
            }
            String graph = SymmetricCases.graphReplays(g, w, 3);
            wrong = !bad.isEmpty() ? bad.size() + " wrong, first: " + bad.getFirst() : graph;
            System.out.println(wrong == null ? "rank " + g.rank() + " symmetric ok" : "WRONG " + wrong);
        } catch (RuntimeException e) {
            e.printStackTrace(System.out);
            wrong = e.toString();
        }
        System.exit(wrong == null ? 0 : 1);
    }
}
