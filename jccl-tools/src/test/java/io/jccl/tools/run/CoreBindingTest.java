package io.jccl.tools.run;

import io.jccl.internal.topology.CpuSet;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CoreBindingTest {

    @Test
    void cutsTheCpusIntoEqualDisjointBlocks() {
        CoreBinding b = CoreBinding.plan(CoreBinding.Policy.AUTO, 2, CpuSet.parse("0-7"));
        assertThat(b.cpus()).extracting(CpuSet::toString).containsExactly("0-3", "4-7");
        assertThat(CoreBinding.plan(CoreBinding.Policy.CORE, 3, CpuSet.parse("2,4,6-9")).cpus())
                .extracting(CpuSet::toString).containsExactly("2,4", "6-7", "8-9");
        assertThat(CoreBinding.plan(CoreBinding.Policy.CORE, 2, CpuSet.parse("0-1")).command(1, List.of("java", "M")))
                .endsWith("-c", "1", "java", "M");
    }

    @Test
    void autoLeavesOversubscribedRanksUnboundAndCoreRefuses() {
        assertThat(CoreBinding.plan(CoreBinding.Policy.AUTO, 4, CpuSet.parse("0-1")).isNone()).isTrue();
        assertThat(CoreBinding.plan(CoreBinding.Policy.NONE, 2, CpuSet.parse("0-1")).isNone()).isTrue();
        assertThat(CoreBinding.plan(CoreBinding.Policy.AUTO, 2, CpuSet.parse("")).isNone()).as("unknown CPUs").isTrue();
        assertThat(CoreBinding.NONE.command(0, List.of("java"))).containsExactly("java");
        assertThatThrownBy(() -> CoreBinding.plan(CoreBinding.Policy.CORE, 3, CpuSet.parse("0-1")))
                .hasMessageContaining("3 ranks but 2 CPUs (0-1)").hasMessageContaining("--bind-to none");
    }

    @Test
    void ranksFloatUnlessBindingIsAskedFor() {
        org.junit.jupiter.api.Assumptions.assumeTrue(System.getenv(CoreBinding.ENV) == null);
        assertThat(CoreBinding.forLocalJob(null, 1, System.err).isNone()).isTrue();
        assertThat(CoreBinding.forLocalJob("none", 1, System.err).isNone()).isTrue();
        assertThat(CoreBinding.forLocalJob("core", 1, System.err).isNone())
                .as("one rank bound to all CPUs when taskset exists").isEqualTo(CpuSet.ofThisProcess().isEmpty()
                        || !java.nio.file.Files.isExecutable(java.nio.file.Path.of("/usr/bin/taskset")));
    }

    @Test
    void parsesThePolicyAndNamesTheOptionOnABadValue() {
        assertThat(CoreBinding.Policy.parse(null)).isEqualTo(CoreBinding.Policy.AUTO);
        assertThat(CoreBinding.Policy.parse(" Core ")).isEqualTo(CoreBinding.Policy.CORE);
        assertThatThrownBy(() -> CoreBinding.Policy.parse("socket")).hasMessageContaining("--bind-to")
                .hasMessageContaining("socket");
    }
}
