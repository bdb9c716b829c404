package io.jccl.cuda.internal.enqueue;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The Java layout matches struct KernelArgs field by field (the offsets written in jccl_device.cuh). */
class KernelArgsTest {
    @Test
    void offsetsMatchTheCudaStruct() {
        assertThat(KernelArgs.SIG).isEqualTo(0);
        assertThat(KernelArgs.LL).isEqualTo(64);
        assertThat(KernelArgs.PUSH).isEqualTo(128);
        assertThat(KernelArgs.CONN).isEqualTo(192);
        assertThat(KernelArgs.IN).isEqualTo(256);
        assertThat(KernelArgs.OUT).isEqualTo(264);
        assertThat(KernelArgs.COUNT).isEqualTo(272);
        assertThat(KernelArgs.ABORT_AREA).isEqualTo(280);
        assertThat(KernelArgs.RANK).isEqualTo(288);
        assertThat(KernelArgs.N_RANKS).isEqualTo(292);
        assertThat(KernelArgs.COLL).isEqualTo(296);
        assertThat(KernelArgs.ROOT).isEqualTo(300);
        assertThat(KernelArgs.OP).isEqualTo(304);
        assertThat(KernelArgs.FLAGS).isEqualTo(308);
        assertThat(KernelArgs.SCALE_F).isEqualTo(312);
        assertThat(KernelArgs.SCALE_I).isEqualTo(320);
        assertThat(KernelArgs.SLOT_BYTES).isEqualTo(328);
        assertThat(KernelArgs.CHUNK_BYTES).isEqualTo(336);
        assertThat(KernelArgs.LL_SLOT_WORDS).isEqualTo(344);
        assertThat(KernelArgs.PUSH_SLOT_BYTES).isEqualTo(352);
        assertThat(KernelArgs.CONN_CHANNELS).isEqualTo(360);
        assertThat(KernelArgs.N_P2P).isEqualTo(364);
        assertThat(KernelArgs.P2P).isEqualTo(368);
        assertThat(KernelArgs.P2P_OP.byteSize()).isEqualTo(32);
        assertThat(KernelArgs.RING).isEqualTo(880);
        assertThat(KernelArgs.N_RINGS).isEqualTo(944);
        assertThat(KernelArgs.REMOTE_MASK).isEqualTo(948);
        assertThat(KernelArgs.NET_CONN_OWN).isEqualTo(952);
        assertThat(KernelArgs.WIN).isEqualTo(960);
        assertThat(KernelArgs.TREE).isEqualTo(1024);
        assertThat(KernelArgs.LAYOUT.byteSize()).isEqualTo(1032);
    }

    @Test
    void settersWriteWhereTheKernelReads() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment seg = a.allocate(KernelArgs.LAYOUT);
            MemorySegment params = a.allocate(ADDRESS);
            KernelArgs k = new KernelArgs(seg, params);
            assertThat(params.get(ADDRESS, 0).address()).isEqualTo(seg.address());
            k.setAreas(3, 0x100, 0x200, 0x300, 0x400);
            k.setCommunicator(1, 4, 0xabc, 4096, 512, 1 << 20, 32);
            k.setCall(4, 0x1000, 0x2000, 77, 2, 3, 5, 2.5, 2, 1 << 19);
            assertThat(seg.get(JAVA_LONG, 3 * 8)).isEqualTo(0x100);
            assertThat(seg.get(JAVA_LONG, 192 + 3 * 8)).isEqualTo(0x400);
            assertThat(k.getInt(KernelArgs.RANK)).isEqualTo(1);
            assertThat(k.getInt(KernelArgs.CONN_CHANNELS)).isEqualTo(32);
            assertThat(k.getLong(KernelArgs.COUNT)).isEqualTo(77);
            assertThat(k.getInt(KernelArgs.FLAGS)).isEqualTo(5);
            k.setTrees(new int[][] {{-1, 0, 3, 2}, {2, -1, -1, -1}});
            assertThat(k.getInt(KernelArgs.TREE)).isEqualTo(0x020300FF);
            assertThat(k.getInt(KernelArgs.TREE + 4)).isEqualTo(0xFFFFFF02);
            assertThatThrownBy(() -> k.setTrees(new int[][] {{1, -1, -1, -1}, {-1, -1, -1, -1}}))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("this rank");
            k.setNet(0b1010, 0x7000);
            assertThat(k.getInt(KernelArgs.REMOTE_MASK)).isEqualTo(0b1010);
            assertThat(k.getLong(KernelArgs.NET_CONN_OWN)).isEqualTo(0x7000);
            assertThat(seg.get(java.lang.foreign.ValueLayout.JAVA_DOUBLE, KernelArgs.SCALE_F)).isEqualTo(2.5);
            k.setP2p(0, KernelArgs.P2P_SEND, 1, 0x10, 0, 4096, 3);
            k.setP2p(1, KernelArgs.P2P_COPY, 2, 0x20, 0x30, 64, 2);
            assertThat(k.getInt(KernelArgs.N_P2P)).isEqualTo(2);
            long op1 = KernelArgs.P2P + 32;
            assertThat(seg.get(JAVA_LONG, op1)).isEqualTo(0x20);
            assertThat(seg.get(JAVA_LONG, op1 + 8)).isEqualTo(0x30);
            assertThat(seg.get(JAVA_INT, op1 + 24)).isEqualTo(2);
            assertThat(seg.get(JAVA_SHORT, op1 + 28)).isEqualTo(KernelArgs.P2P_COPY);
            assertThat(seg.get(JAVA_SHORT, op1 + 30)).isEqualTo((short) 2);
            k.setCall(4, 0, 0, 1, 0, 0, 0, 1, 1, 0);
            assertThat(k.getInt(KernelArgs.N_P2P)).isZero();
            assertThatThrownBy(() -> k.setP2p(16, KernelArgs.P2P_SEND, 0, 0, 0, 0, 1))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void ringsAreWrittenAsFourBitsPerPositionAndMustBePermutations() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment seg = a.allocate(KernelArgs.LAYOUT);
            KernelArgs k = new KernelArgs(seg, a.allocate(ADDRESS));
            k.setCommunicator(1, 4, 0, 4096, 512, 1 << 20, 2);
            k.setRings(new int[][]{{0, 2, 1, 3}, {0, 3, 1, 2}});
            assertThat(k.getInt(KernelArgs.N_RINGS)).isEqualTo(2);
            assertThat(k.getInt(KernelArgs.RING)).isEqualTo(0x3120);
            assertThat(k.getInt(KernelArgs.RING + 4)).isEqualTo(0x2130);
            assertThatThrownBy(() -> k.setRings(new int[][]{{0, 1, 1, 3}}))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("permutation");
            assertThatThrownBy(() -> k.setRings(new int[][]{{0, 1, 2}}))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("3 ranks, not 4");
        }
    }
}
