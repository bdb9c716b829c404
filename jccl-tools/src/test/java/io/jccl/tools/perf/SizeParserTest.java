package io.jccl.tools.perf;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SizeParserTest {

    @Test
    void plainNumbersAreBytes() {
        assertThat(SizeParser.parse("8")).isEqualTo(8);
        assertThat(SizeParser.parse(" 1000 ")).isEqualTo(1000);
        assertThat(SizeParser.parse("0")).isZero();
    }

    @Test
    void suffixesAre1024BasedInEitherCase() {
        assertThat(SizeParser.parse("1K")).isEqualTo(1024);
        assertThat(SizeParser.parse("4k")).isEqualTo(4096);
        assertThat(SizeParser.parse("128M")).isEqualTo(134_217_728L);
        assertThat(SizeParser.parse("2g")).isEqualTo(2_147_483_648L);
        assertThat(SizeParser.parse("1.5K")).isEqualTo(1536);
    }

    @Test
    void rejectsGarbageWithAHelpfulMessage() {
        assertThatThrownBy(() -> SizeParser.parse("12X")).hasMessageContaining("K, M or G");
        assertThatThrownBy(() -> SizeParser.parse("1x2")).hasMessageContaining("128M");
        assertThatThrownBy(() -> SizeParser.parse("-5")).hasMessageContaining("between 0");
        assertThatThrownBy(() -> SizeParser.parse("")).hasMessageContaining("empty");
    }

    @Test
    void formatsBackToTheShortestSuffix() {
        assertThat(SizeParser.format(134_217_728L)).isEqualTo("128M");
        assertThat(SizeParser.format(4096)).isEqualTo("4K");
        assertThat(SizeParser.format(1L << 30)).isEqualTo("1G");
        assertThat(SizeParser.format(1000)).isEqualTo("1000");
    }
}
