package io.jccl;

import io.jccl.testing.ThreadRanks;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When one rank fails, the others' errors start with the failure that started it all (which rank, and why), then say
 * what they were doing; they do not read as if the last rank to leave failed first.
 */
class RootCauseFirstTest {
    private static final Config CONFIG = Config.defaults().withTimeout(Duration.ofSeconds(20));

    @Test
    void aRankThatLeavesThroughTryWithResourcesIsNamedFirstByEveryOther() {
        ThreadRanks.Outcome o = ThreadRanks.runCollect(4, CONFIG, comm -> {
            float[] d = new float[1000];
            comm.allReduce(d, RedOp.SUM);
            if (comm.rank() == 3) {
                try (Communicator c = comm) {
                    throw new IllegalStateException("the data loader of rank 3 failed");
                }
            }
            comm.allReduce(d, RedOp.SUM);
        }, 60);
        assertThat(o.error(3)).hasMessageContaining("data loader");
        for (int r = 0; r < 3; r++) {
            assertThat(o.error(r)).as("rank %d", r).isInstanceOf(JcclException.class);
            assertThat(o.error(r).getMessage()).as("rank %d", r).startsWith("rank 3");
        }
    }

    @Test
    void aRankThatAbortsIsNamedFirstByEveryOther() {
        ThreadRanks.Outcome o = ThreadRanks.runCollect(5, CONFIG, comm -> {
            float[] d = new float[100_000];
            comm.allReduce(d, RedOp.SUM);
            if (comm.rank() == 2) {
                comm.abort();
                throw new IllegalStateException("rank 2 gave up");
            }
            comm.allReduce(d, RedOp.SUM);
        }, 60);
        for (int r = 0; r < 5; r++) {
            if (r != 2) {
                assertThat(o.error(r).getMessage()).as("rank %d", r).startsWith("rank 2");
            }
        }
    }
}
