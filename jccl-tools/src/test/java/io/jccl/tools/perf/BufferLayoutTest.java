package io.jccl.tools.perf;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Expected values derived by hand from nccl-tests' getCollByteCount functions. */
class BufferLayoutTest {

    @Test
    void allReduceUsesTheWholeSizeOnBothSides() {
        BufferLayout l = BufferLayout.of(PerfCollective.ALL_REDUCE, 1024, 4, 4);
        assertThat(l).isEqualTo(new BufferLayout(256, 256, 256, 0, 0, 4));
        assertThat(l.printedBytes()).isEqualTo(1024);
    }

    @Test
    void allGatherSplitsTheTotalAndRoundsBlocksTo16Bytes() {
        // 1000 bytes of float = 250 elements; /3 ranks = 83; multiple of 4 elements -> 80
        BufferLayout l = BufferLayout.of(PerfCollective.ALL_GATHER, 1000, 4, 3);
        assertThat(l).isEqualTo(new BufferLayout(80, 240, 80, 80, 0, 4));
        assertThat(l.printedBytes()).isEqualTo(960);
    }

    @Test
    void reduceScatterIsTheMirrorOfAllGather() {
        BufferLayout l = BufferLayout.of(PerfCollective.REDUCE_SCATTER, 1000, 4, 3);
        assertThat(l).isEqualTo(new BufferLayout(240, 80, 80, 0, 80, 4));
    }

    @Test
    void alltoallGatherAndScatter() {
        assertThat(BufferLayout.of(PerfCollective.ALL_TO_ALL, 4096, 8, 4))
                .isEqualTo(new BufferLayout(512, 512, 128, 0, 0, 8));
        assertThat(BufferLayout.of(PerfCollective.GATHER, 4096, 8, 4))
                .isEqualTo(new BufferLayout(128, 512, 128, 128, 0, 8));
        assertThat(BufferLayout.of(PerfCollective.SCATTER, 4096, 8, 4))
                .isEqualTo(new BufferLayout(512, 128, 128, 0, 128, 8));
    }

    @Test
    void smallSizesRoundDownToNothingForSplitCollectives() {
        // 8 bytes of float over 4 ranks: 2 elements, 0 per rank -> a zero-byte row, as nccl-tests prints
        BufferLayout l = BufferLayout.of(PerfCollective.ALL_GATHER, 8, 4, 4);
        assertThat(l.paramCount()).isZero();
        assertThat(l.printedBytes()).isZero();
        // one-byte types round blocks to 16 elements
        assertThat(BufferLayout.of(PerfCollective.ALL_GATHER, 100, 1, 2).paramCount()).isEqualTo(48);
    }

    @Test
    void sizesThatAreNotAMultipleOfTheElementTruncate() {
        BufferLayout l = BufferLayout.of(PerfCollective.BROADCAST, 10, 4, 2);
        assertThat(l.paramCount()).isEqualTo(2);
        assertThat(l.sendBytes()).isEqualTo(8);
        assertThat(l.recvBytes()).isEqualTo(8);
    }
}
