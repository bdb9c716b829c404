package io.jccl;

import io.jccl.testing.ThreadRanks;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link Communicator#localRank()} and {@link Communicator#localSize()} count the ranks of each host in rank order. */
class LocalRankTest {
    @Test
    void ranksAreCountedPerHostInRankOrder() {
        int[] hostOfRank = {0, 1, 0, 1, 1};
        ThreadRanks.runOnHosts(hostOfRank, ThreadRanks.testConfig(), comm -> {
            int host = hostOfRank[comm.rank()];
            int before = 0;
            int all = 0;
            for (int r = 0; r < hostOfRank.length; r++) {
                before += r < comm.rank() && hostOfRank[r] == host ? 1 : 0;
                all += hostOfRank[r] == host ? 1 : 0;
            }
            assertThat(comm.localRank()).as("rank %d", comm.rank()).isEqualTo(before);
            assertThat(comm.localSize()).as("rank %d", comm.rank()).isEqualTo(all);
        });
    }

    @Test
    void oneHostGivesTheRankAndTheSize() {
        ThreadRanks.run(3, comm -> {
            assertThat(comm.localRank()).isEqualTo(comm.rank());
            assertThat(comm.localSize()).isEqualTo(3);
        });
    }
}
