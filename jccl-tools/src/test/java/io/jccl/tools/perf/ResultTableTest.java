package io.jccl.tools.perf;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Golden lines derived by hand from nccl-tests' printf formats (util.cu, common.cu). */
class ResultTableTest {

    @Test
    void preambleMatchesNcclTests() {
        ResultTable.RunHeader h = new ResultTable.RunHeader("all_reduce_perf", 1, 1, 8, 134217728, 2, true, 5,
                20, 1, 1, 0, 0);
        assertThat(ResultTable.preamble(h)).containsExactly(
                "# Collective test starting: all_reduce_perf",
                "# nThread 1 nGpus 1 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 "
                        + "agg iters: 1 validation: 1 graph: 0 register: 0",
                "#",
                "# Using devices");
        ResultTable.RunHeader bytes = new ResultTable.RunHeader("sendrecv_perf", 4, 1, 1024, 4096, 1024, false, 1,
                10, 2, 0, 0, 2);
        assertThat(ResultTable.preamble(bytes).get(1)).isEqualTo("# nThread 4 nGpus 1 minBytes 1024 maxBytes 4096 "
                + "step: 1024(bytes) warmup iters: 1 iters: 10 agg iters: 2 validation: 0 graph: 0 register: 2");
    }

    @Test
    void rankLine() {
        assertThat(ResultTable.rankLine(0, 0, 12345, "node01", 0, "host", "AMD EPYC 7B13"))
                .isEqualTo("#  Rank  0 Group  0 Pid  12345 on     node01 device  0 [host] AMD EPYC 7B13");
        assertThat(ResultTable.rankLine(12, 0, 7, "a-very-long-hostname", 3, "0000:04:00", "NVIDIA H200"))
                .isEqualTo("#  Rank 12 Group  0 Pid      7 on a-very-long-hostname device  3 [0000:04:00] NVIDIA H200");
    }

    @Test
    void columnHeader() {
        assertThat(ResultTable.columnHeader()).containsExactly(
                "#",
                "#                                                              out-of-place                       "
                        + "in-place          ",
                "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   "
                        + "algbw   busbw  #wrong ",
                "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  "
                        + "(GB/s)  (GB/s)         ");
    }

    @Test
    void rowWithBothPlacements() {
        String row = ResultTable.rowPrefix(8, 2, "float", "sum", -1)
                + ResultTable.cell(18.256, 0.000438, 0.000438, 0, true)
                + ResultTable.cell(17.97, 0.000445, 0.000445, 0, true);
        assertThat(row).isEqualTo("           8             2     float     sum      -1    18.26    0.00    0.00       0"
                + "    17.97    0.00    0.00       0");
    }

    @Test
    void rowOfARootedCollectiveWithUncheckedAndWrongCells() {
        String row = ResultTable.rowPrefix(134217728, 33554432, "bfloat16", "none", 3)
                + ResultTable.cell(12345.67, 10.8723, 10.8723, 1048576, true)
                + ResultTable.cell(12001.2, 11.1836, 11.1836, 0, false);
        assertThat(row).isEqualTo("   134217728      33554432  bfloat16    none       3  12345.7   10.87   10.87  "
                + "1.04858e+06  12001.2   11.18   11.18    N/A");
    }

    @Test
    void footer() {
        assertThat(ResultTable.footer(0, 1.5, -1, "all_reduce_perf")).containsExactly(
                "# Out of bounds values : 0 OK",
                "# Avg bus bandwidth    : 1.5 ",
                "#",
                "# Collective test concluded: all_reduce_perf",
                "#",
                "");
        assertThat(ResultTable.footer(2, 0.0123456789, 10, "x")).startsWith(
                "# Out of bounds values : 2 FAILED",
                "# Avg bus bandwidth    : 0.0123457 FAILED");
        assertThat(ResultTable.footer(0, 9.5, 10, "x").get(1)).isEqualTo("# Avg bus bandwidth    : 9.5 OK");
    }
}
