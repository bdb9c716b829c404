package io.jccl;

import io.jccl.testing.MismatchRankMain;
import io.jccl.testing.ProcessRanks;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link CallMismatchPropertyTest}'s check with ranks in processes of their own (shared memory between them, and each
 * process's own heartbeat thread): a broadcast against an allReduce at the one-shot, two-shot and ring sizes is
 * refused on every rank within two seconds, naming both calls.
 */
class CallMismatchProcessesTest {
    private static final Pattern REFUSED = Pattern.compile("REFUSED (\\d+) (.*)");

    @ParameterizedTest(name = "{0} ranks, {1} floats")
    @CsvSource({"4, 1000", "4, 10000", "2, 1000000", "3, 10000"})
    void aBroadcastAgainstAnAllReduceIsRefusedEverywhere(int n, int count) throws Exception {
        ProcessRanks.Result r = ProcessRanks.run(n, MismatchRankMain.class, List.of("odd=1", "count=" + count),
                Map.of(), 120);
        for (int rank = 0; rank < n; rank++) {
            String out = r.outputs().get(rank);
            Matcher m = REFUSED.matcher(out);
            assertThat(m.find()).as("rank %d printed:\n%s", rank, out).isTrue();
            String msg = m.group(2).replaceAll(" #\\d+ \\(", "(");
            assertThat(msg).as("rank %d", rank).contains("Broadcast(count " + count + " float root 0)")
                    .contains("AllReduce(count " + count + " float sum)");
            assertThat(Long.parseLong(m.group(1))).as("ms until rank %d was refused: %s", rank, msg)
                    .isLessThan(CallMismatchPropertyTest.REFUSED_WITHIN_MS);
        }
    }
}
