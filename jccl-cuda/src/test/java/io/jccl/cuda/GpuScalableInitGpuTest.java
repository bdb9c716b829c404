package io.jccl.cuda;

import io.jccl.Collective;
import io.jccl.Config;
import io.jccl.DataType;
import io.jccl.Jccl;
import io.jccl.RedOp;
import io.jccl.UniqueId;
import io.jccl.cuda.testing.GpuChecker;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * GPU communicators made through several bootstrap roots ({@link GpuCommunicator#initScalable}, NCCL's
 * ncclCommInitRankScalable): two ranks, one root each, form one communicator whose collectives check out.
 */
@Tag("gpu")
class GpuScalableInitGpuTest {
    @Test
    @Timeout(120)
    void twoRootsMakeOneGpuCommunicator() throws Exception {
        List<CudaDevice> gpus = GpuCollectivesGpuTest.gpus(2);
        List<UniqueId> ids = List.of(Jccl.uniqueId(), Jccl.uniqueId());
        try (ExecutorService pool = Executors.newFixedThreadPool(2)) {
            List<GpuCommunicator> comms = GpuSplitGpuTest.onEachRank(pool,
                    r -> GpuCommunicator.initScalable(ids, 2, r, gpus.get(r), Config.defaults()));
            try (GpuChecker c = new GpuChecker(comms, 1 << 20, Duration.ofSeconds(60))) {
                assertThat(comms).extracting(GpuCommunicator::rank).containsExactly(0, 1);
                for (Collective coll : new Collective[] {Collective.ALL_REDUCE, Collective.ALL_GATHER,
                    Collective.BROADCAST}) {
                    assertThat(c.run(new GpuChecker.Case(coll, DataType.FLOAT32, RedOp.Kind.SUM, 20_011, false, 1)))
                            .isNull();
                }
            } finally {
                comms.forEach(GpuCommunicator::close);
            }
        }
    }
}
