package io.jccl.examples;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** Every host example on ranks that are threads of this JVM (fast); LaunchedExamplesTest runs them as processes. */
class ExamplesTest {

    @Test
    void allReduceSumsEveryElement() throws Exception {
        InProcessRanks.Outcome o = InProcessRanks.run(3, (c, out) -> AllReduceExample.run(c, out, 50_000));
        assertThat(o.results()).containsOnly(true);
        assertThat(o.output()).contains("Device 2 correctly received sum: 3", "Device 0 correctly received sum: 6",
                "Collective operation completed on rank 1", "Rank 0: allReduce of 50000 floats over 3 ranks");
    }

    @Test
    void broadcastDeliversTheRootsData() throws Exception {
        InProcessRanks.Outcome o = InProcessRanks.run(3, (c, out) -> BroadcastExample.run(c, out, 10_001, 1));
        assertThat(o.results()).containsOnly(true);
        assertThat(o.output()).contains("Rank 2 received 10001 doubles from root 1: correct");
    }

    @Test
    void ringExchangePassesEveryRanksDataAround() throws Exception {
        InProcessRanks.Outcome o = InProcessRanks.run(4, (c, out) -> RingExchangeExample.run(c, out, 1000));
        assertThat(o.results()).containsOnly(true);
        assertThat(o.output()).contains("Rank 0 step 1: received data of rank 3 from rank 3: correct",
                "Rank 0 step 3: received data of rank 1 from rank 3: correct", "Rank 2: sum of every rank's data 6 "
                        + "(correct)");
    }

    @Test
    void splitGivesEachParityItsOwnCommunicator() throws Exception {
        InProcessRanks.Outcome o = InProcessRanks.run(5, SplitExample::run);
        assertThat(o.results()).containsOnly(true);
        assertThat(o.output()).contains(
                "World rank 4 is rank 2 of 3 in the even communicator: sum 6, world sum 10 (correct)",
                "World rank 1 is rank 0 of 2 in the odd communicator: sum 4, world sum 10 (correct)");
    }

    @Test
    void suspendReleasesMemoryAndResumeTakesItBack() throws Exception {
        InProcessRanks.Outcome o = InProcessRanks.run(3, (c, out) -> SuspendResumeExample.run(c, out, 100_000));
        assertThat(o.results()).containsOnly(true);
        assertThat(o.output()).contains("Rank 2 suspended: released ", "Rank 0: allReduce before suspend and after resume correct");
    }

    @Test
    void threadsExampleDrivesEveryRankFromItsOwnThread() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        assertThat(ThreadsExample.run(3, new PrintStream(bytes, true, StandardCharsets.UTF_8))).isTrue();
        assertThat(bytes.toString(StandardCharsets.UTF_8)).contains(
                "Thread of rank 0 received sums 3 and 6: correct", "Thread of rank 2 received sums 3 and 6: correct");
    }
}
