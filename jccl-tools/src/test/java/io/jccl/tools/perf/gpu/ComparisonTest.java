package io.jccl.tools.perf.gpu;

import io.jccl.tools.perf.ResultRecord;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ComparisonTest {
    private static ResultRecord r(long size, boolean ip, double us, double bw, long wrong) {
        return new ResultRecord("all_reduce", size, size / 4, "float", "sum", -1, ip, us, bw, bw, wrong);
    }

    @Test
    void pairsRowsByKeyAndGivesNcclOverJcclRatios() {
        List<ResultRecord> jccl = List.of(r(8, false, 10, 0, 0), r(8, true, 11, 0, 0), r(1024, false, 20, 5, 0),
                r(1024, true, 20, 5, 0));
        List<ResultRecord> nccl = List.of(r(8, false, 15, 0, 0), r(8, true, 22, 0, 0), r(1024, false, 10, 10, 3));
        List<String> lines = Comparison.lines("2.28.9", jccl, nccl);
        assertThat(lines).hasSize(5);
        assertThat(lines.get(1)).contains("NCCL 2.28.9");
        assertThat(lines.get(3)).contains("10.00").contains("15.00").contains("1.50x").contains("2.00x").endsWith("0/0");
        assertThat(lines.get(4)).contains("0.50x").containsPattern("\\|\\s+20.00\\s+-\\s+-").endsWith("0/3");
        assertThat(lines.get(4)).contains("- ");
    }
}
