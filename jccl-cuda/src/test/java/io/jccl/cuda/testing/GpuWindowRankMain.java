package io.jccl.cuda.testing;

import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.DeviceBuffer;
import io.jccl.cuda.GpuCommunicator;
import io.jccl.cuda.GpuWindow;

/**
 * One rank of the windows test with one process per GPU: the peers' windows are CUDA IPC mappings. Runs the
 * {@link WindowRing} on an allocated window and on a registered one, closes both, with NCCL_CTA_POLICY=2 also the
 * copy-engine collectives ({@link io.jccl.cuda.CopyEngineRounds}), and exits 1 on any failure. Blocks of
 * {@code WINDOW_BLOCK_BYTES} (256 KiB by default); with {@code NCCL_HOSTID} per rank the puts to other hosts go
 * through the NET transport.
 */
public final class GpuWindowRankMain {
    private GpuWindowRankMain() {
    }

    public static void main(String[] args) {
        int local = Integer.parseInt(System.getenv().getOrDefault("LOCAL_RANK", "0"));
        CudaDevice device = CudaDevice.get(Boolean.getBoolean("jccl.cuda.shareDevices") ? 0
                : local % CudaDevice.count());
        String wrong;
        try (GpuCommunicator g = GpuCommunicator.fromEnvironment(device)) {
            long block = Long.parseLong(System.getenv().getOrDefault("WINDOW_BLOCK_BYTES", "262144"));
            try (GpuWindow w = g.allocateWindow(g.size() * block)) {
                wrong = WindowRing.run(g, w, block, 4);
                String graphs = WindowRing.runGraph(g, w, block, 3);
                wrong = wrong != null ? wrong : graphs;
            }
            try (DeviceBuffer mine = DeviceBuffer.allocate(device, g.size() * block);
                 GpuWindow w = g.registerWindow(mine)) {
                String again = WindowRing.run(g, w, block, 3);
                wrong = wrong != null ? wrong : again;
            }
            if (wrong == null && g.options().ctaPolicy() == io.jccl.cuda.CtaPolicy.ZERO) {
                int count = 30_011;
                try (GpuWindow w = g.allocateWindow(3L * g.size() * count * 4)) {
                    wrong = io.jccl.cuda.CopyEngineRounds.run(g, w, count, 2);
                }
                System.out.println(wrong == null ? "rank " + g.rank() + " copy engines ok" : "WRONG " + wrong);
            }
            System.out.println(wrong == null ? "rank " + g.rank() + " windows ok" : "WRONG " + wrong);
        } catch (RuntimeException e) {
            e.printStackTrace(System.out);
            wrong = e.toString();
        }
        System.exit(wrong == null ? 0 : 1);
    }
}
