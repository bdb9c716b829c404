package io.jccl.cuda.internal.clique;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;

/** The Java argument block has the offsets of struct AllReduceArgs in jccl_device.cuh. */
class AllReduceArgsTest {
    @Test
    void offsetsMatchTheCudaStruct() {
        assertThat(AllReduceArgs.LAYOUT.byteSize()).isEqualTo(416);
        assertThat(AllReduceArgs.IN).isZero();
        assertThat(AllReduceArgs.OUT).isEqualTo(64);
        assertThat(AllReduceArgs.SIG).isEqualTo(128);
        assertThat(AllReduceArgs.LL).isEqualTo(192);
        assertThat(AllReduceArgs.PUSH).isEqualTo(256);
        assertThat(AllReduceArgs.COUNT).isEqualTo(320);
        assertThat(AllReduceArgs.ABORT_FLAG).isEqualTo(328);
        assertThat(AllReduceArgs.RANK).isEqualTo(336);
        assertThat(AllReduceArgs.N_RANKS).isEqualTo(340);
        assertThat(AllReduceArgs.CTL_MINE).isEqualTo(344);
        assertThat(AllReduceArgs.CTL_PREV).isEqualTo(376);
        assertThat(AllReduceArgs.SLOT_BYTES).isEqualTo(384);
        assertThat(AllReduceArgs.CHUNK_ELEMS).isEqualTo(392);
        assertThat(AllReduceArgs.LL_SLOT_WORDS).isEqualTo(400);
        assertThat(AllReduceArgs.PUSH_SLOT_BYTES).isEqualTo(408);
    }

    @Test
    void settersWriteTheFieldsAndParamsPointsAtTheBlock() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment block = arena.allocate(AllReduceArgs.LAYOUT);
            MemorySegment params = arena.allocate(ADDRESS);
            AllReduceArgs a = new AllReduceArgs(block, params);
            a.setBuffers(3, 0x1000, 0x2000);
            a.setAreas(3, 0x3000, 0x4000, 0x5000);
            a.setCall(12345, 0xABC0, 1, 4);
            a.setRing(11, 12, 13, 14, 15, 1 << 18, 4096);
            a.setSlots(8192, 1 << 20);
            assertThat(block.get(JAVA_LONG, AllReduceArgs.IN + 24)).isEqualTo(0x1000);
            assertThat(block.get(JAVA_LONG, AllReduceArgs.OUT + 24)).isEqualTo(0x2000);
            assertThat(block.get(JAVA_LONG, AllReduceArgs.SIG + 24)).isEqualTo(0x3000);
            assertThat(block.get(JAVA_LONG, AllReduceArgs.LL + 24)).isEqualTo(0x4000);
            assertThat(block.get(JAVA_LONG, AllReduceArgs.PUSH + 24)).isEqualTo(0x5000);
            assertThat(a.getLong(AllReduceArgs.PUSH_SLOT_BYTES)).isEqualTo(1 << 20);
            assertThat(block.get(JAVA_LONG, AllReduceArgs.COUNT)).isEqualTo(12345);
            assertThat(block.get(JAVA_INT, AllReduceArgs.RANK)).isEqualTo(1);
            assertThat(block.get(JAVA_INT, AllReduceArgs.N_RANKS)).isEqualTo(4);
            assertThat(a.getLong(AllReduceArgs.CTL_PREV)).isEqualTo(15);
            assertThat(a.getLong(AllReduceArgs.CHUNK_ELEMS)).isEqualTo(4096);
            assertThat(a.getLong(AllReduceArgs.LL_SLOT_WORDS)).isEqualTo(8192);
            assertThat(params.get(ADDRESS, 0).address()).isEqualTo(block.address());
        }
    }
}
