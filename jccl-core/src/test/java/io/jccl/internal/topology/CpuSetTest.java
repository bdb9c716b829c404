package io.jccl.internal.topology;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CpuSetTest {

    @Test
    void readsAndWritesTheKernelListSyntax() {
        CpuSet s = CpuSet.parse(" 0-3,8,10-11\n");
        assertThat(s.size()).isEqualTo(7);
        assertThat(s.ids()).containsExactly(0, 1, 2, 3, 8, 10, 11);
        assertThat(s).hasToString("0-3,8,10-11").isEqualTo(CpuSet.parse("0,1,2,3,8,10,11"));
        assertThat(CpuSet.parse("").isEmpty()).isTrue();
        assertThat(CpuSet.union(List.of(CpuSet.parse("0"), CpuSet.parse("1"), CpuSet.parse("1-2")))).hasToString("0-2");
    }

    @Test
    void rejectsMalformedLists() {
        assertThatThrownBy(() -> CpuSet.parse("3-1")).hasMessageContaining("3-1");
        assertThatThrownBy(() -> CpuSet.parse("a")).hasMessageContaining("'a'");
    }

    @Test
    void thisProcessHasAtLeastOneCpuOnLinux() {
        CpuSet mine = CpuSet.ofThisProcess();
        if (System.getProperty("os.name").startsWith("Linux")) {
            assertThat(mine.size()).isBetween(1, Runtime.getRuntime().availableProcessors() * 64);
        }
    }
}
