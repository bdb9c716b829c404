package io.jccl.cuda;

import io.jccl.Config;
import io.jccl.Jccl;
import io.jccl.UniqueId;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link GpuCommunicator#grow}: two GPU ranks grow to four with two newcomers on GPUs 2 and 3 that join under rank
 * 0's id; every rank's allReduce on the grown communicator is checked, and the old one keeps working.
 */
@Tag("gpu")
class GpuGrowGpuTest {
    @Test
    @Timeout(120)
    void twoGpuRanksGrowToFour() throws Exception {
        List<CudaDevice> gpus = GpuCollectivesGpuTest.gpus(4);
        List<GpuCommunicator> comms = GpuCommunicator.initAll(gpus.subList(0, 2));
        AtomicReference<UniqueId> handedOut = new AtomicReference<>();
        Config config = Config.defaults().withTimeout(Duration.ofSeconds(30));
        try (ExecutorService pool = Executors.newFixedThreadPool(4)) {
            List<Future<Float>> sums = new ArrayList<>();
            for (int r = 0; r < 4; r++) {
                int rank = r;
                sums.add(pool.submit(() -> {
                    GpuCommunicator g;
                    if (rank < 2) {
                        UniqueId id = rank == 0 ? Jccl.uniqueId() : null;
                        if (id != null) {
                            handedOut.set(id);
                        }
                        g = comms.get(rank).grow(4, id);
                    } else {
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                        while (handedOut.get() == null && System.nanoTime() < deadline) {
                            Thread.sleep(5);
                        }
                        g = GpuCommunicator.init(handedOut.get(), 4, rank, gpus.get(rank), config);
                    }
                    try (g) {
                        assertThat(g.rank()).isEqualTo(rank);
                        assertThat(g.size()).isEqualTo(4);
                        return GpuSplitGpuTest.allReduce(g, rank + 1);
                    }
                }));
            }
            for (Future<Float> f : sums) {
                assertThat(f.get(90, TimeUnit.SECONDS)).isEqualTo(10f);
            }
            assertThat(GpuSplitGpuTest.onEachRank(pool, r -> GpuSplitGpuTest.allReduce(comms.get(r), r + 1)))
                    .containsOnly(3f);
        } finally {
            comms.forEach(GpuCommunicator::close);
        }
    }
}
