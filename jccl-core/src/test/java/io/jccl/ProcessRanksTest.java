package io.jccl;

import io.jccl.testing.ProcessRanks;
import io.jccl.testing.RankMain;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The real multi-process path: ranks in separate JVMs joined through the environment (torchrun style). */
class ProcessRanksTest {
    @Test
    void threeProcessesRunEveryCollectiveCorrectly() throws Exception {
        ProcessRanks.Result r = ProcessRanks.run(3, RankMain.class, List.of(), Map.of(), 120);
        assertThat(r.allOk()).as("exit codes %s, output:\n%s", r.exitCodes(), String.join("\n---\n", r.outputs())).isTrue();
        for (int i = 0; i < 3; i++) {
            assertThat(r.outputs().get(i)).contains("OK rank " + i);
        }
    }

    /** Two processes of two ranks each (NCCL's several devices per process), driven and closed from one thread. */
    @Test
    void twoProcessesHoldTwoRanksEach() throws Exception {
        ProcessRanks.Result r = ProcessRanks.run(2, RankMain.class, List.of("per-process=2"), Map.of(), 120);
        assertThat(r.allOk()).as("exit codes %s, output:\n%s", r.exitCodes(), String.join("\n---\n", r.outputs())).isTrue();
        assertThat(r.outputs().get(0)).contains("OK ranks 0-1 of 4");
        assertThat(r.outputs().get(1)).contains("OK ranks 2-3 of 4");
    }

    @Test
    void aRankThatDiesMakesThePeersFailNotHang() throws Exception {
        ProcessRanks.Result r = ProcessRanks.run(3, RankMain.class, List.of("fail-rank=1"), Map.of(), 120);
        assertThat(r.exitCodes().get(1)).isNotZero();
        assertThat(r.exitCodes()).as("no rank may hang").doesNotContain(-1);
        assertThat(r.exitCodes().get(0)).isNotZero();
        assertThat(r.exitCodes().get(2)).isNotZero();
        assertThat(r.outputs().get(0) + r.outputs().get(2)).contains("rank 1");
    }
}
