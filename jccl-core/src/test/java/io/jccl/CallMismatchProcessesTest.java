package io.jccl;

import io.jccl.testing.MismatchRankMain;
import io.jccl.testing.ProcessRanks;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.constraints.IntRange;

import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link CallMismatchPropertyTest}'s property with ranks in processes of their own (shared memory between them, and
 * each process's own heartbeat thread): size (one-shot, two-shot, ring) × how one rank's call differs × 2 to 4
 * ranks; every rank is refused within two seconds, naming both calls.
 */
class CallMismatchProcessesTest {
    private static final Pattern REFUSED = Pattern.compile("REFUSED (\\d+) (.*)");

    enum Size {
        ONE_SHOT(1000), TWO_SHOT(10_000), RING(1_000_000);

        final int count;

        Size(int count) {
            this.count = count;
        }
    }

    @Property(tries = 6, seed = "20261202", shrinking = ShrinkingMode.OFF)
    void differentCallsInProcessesAreRefusedEverywhere(@ForAll Size size,
                                                       @ForAll CallMismatchPropertyTest.Difference diff,
                                                       @ForAll @IntRange(min = 2, max = 4) int n) throws Exception {
        int count = size.count;
        int odd = n - 1;
        ProcessRanks.Result r = ProcessRanks.run(n, MismatchRankMain.class,
                List.of("odd=" + odd, "count=" + count, "diff=" + diff), Map.of(), 120);
        String common = diff == CallMismatchPropertyTest.Difference.ROOT ? "Broadcast(count " + count + " float root 0)"
                : "AllReduce(count " + count + " float sum)";
        String other = switch (diff) {
            case COLLECTIVE -> "Broadcast(count " + count + " float root 0)";
            case COUNT -> "AllReduce(count " + (count + 64) + " float sum)";
            case TYPE -> "AllReduce(count " + count + " int32 sum)";
            case OP -> "AllReduce(count " + count + " float max)";
            case ROOT -> "Broadcast(count " + count + " float root 1)";
        };
        for (int rank = 0; rank < n; rank++) {
            String out = r.outputs().get(rank);
            Matcher m = REFUSED.matcher(out);
            assertThat(m.find()).as("rank %d of %d, %s %s, printed:\n%s", rank, n, size, diff, out).isTrue();
            String msg = m.group(2).replaceAll(" #\\d+ \\(", "(");
            assertThat(msg).as("rank %d of %d, %s %s", rank, n, size, diff).contains(common).contains(other);
            assertThat(Long.parseLong(m.group(1))).as("ms until rank %d was refused: %s", rank, msg)
                    .isLessThan(CallMismatchPropertyTest.REFUSED_WITHIN_MS);
        }
    }
}
