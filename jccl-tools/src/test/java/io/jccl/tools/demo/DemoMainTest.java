package io.jccl.tools.demo;

import io.jccl.tools.perf.PerfMain;
import io.jccl.tools.run.LaunchSpec;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class DemoMainTest {

    @Test
    void runsTheDemoThenThePerfTableOnTheSameRanks() {
        List<LaunchSpec> launched = new ArrayList<>();
        int code = new CommandLine(new DemoMain(s -> {
            launched.add(s);
            return 0;
        })).execute("-np", "3");
        assertThat(code).isZero();
        assertThat(launched).hasSize(2);
        assertThat(launched.get(0).mainClass()).isEqualTo(AllReduceDemo.class.getName());
        assertThat(launched.get(0).nRanks()).isEqualTo(3);
        assertThat(launched.get(0).labels()).isEqualTo(LaunchSpec.Labels.ALL);
        assertThat(launched.get(1).mainClass()).isEqualTo(PerfMain.class.getName());
        assertThat(launched.get(1).args()).containsExactly("all_reduce", "-b", "8", "-e", "1M", "-f", "4", "-n", "20",
                "-w", "5", "-c", "1");
        assertThat(launched.get(1).labels()).isEqualTo(LaunchSpec.Labels.ALL_BUT_RANK0);
        assertThat(launched.get(1).timeout()).isNotNull();
    }

    @Test
    void defaultsToFourRanksAndStopsWhenTheDemoFails() {
        List<LaunchSpec> launched = new ArrayList<>();
        int code = new CommandLine(new DemoMain(s -> {
            launched.add(s);
            return 5;
        })).execute();
        assertThat(code).isEqualTo(5);
        assertThat(launched).singleElement().satisfies(s -> assertThat(s.nRanks()).isEqualTo(4));
    }

    @Test
    void noPerfSkipsTheTable() {
        List<LaunchSpec> launched = new ArrayList<>();
        assertThat(new CommandLine(new DemoMain(s -> {
            launched.add(s);
            return 0;
        })).execute("--no-perf", "-np", "2")).isZero();
        assertThat(launched).hasSize(1);
    }
}
