package io.jccl.internal.comm;

import io.jccl.internal.topology.CpuSet;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class CommShapeTest {

    private static PeerInfo peer(int rank, long host, int cores, String cpus, int stepBytes) {
        return new PeerInfo(rank, host, rank, "h" + host, 100 + rank, "v", cores, 1, 0, stepBytes, 65536, 7,
                CpuSet.parse(cpus));
    }

    @Test
    void ranksBoundToDisjointCoresCountTheCoresTheyShare() {
        PeerInfo[] bound = {peer(0, 1, 8, "0-7", -1), peer(1, 1, 8, "8-15", -1)};
        PeerInfo[] floating = {peer(0, 1, 16, "0-15", -1), peer(1, 1, 16, "0-15", -1)};
        PeerInfo[] unknown = {peer(0, 1, 8, "", -1), peer(1, 1, 8, "", -1)};
        assertThat(CommShape.decide(bound, 0).nChannels()).isEqualTo(4);
        assertThat(CommShape.decide(floating, 1).nChannels()).isEqualTo(4);
        assertThat(CommShape.decide(unknown, 0).nChannels()).isEqualTo(2);
        assertThat(PeerInfo.coresOf(bound, p -> true)).isEqualTo(16);
        assertThat(PeerInfo.coresOf(new PeerInfo[]{peer(0, 1, 1, "0", -1), peer(1, 1, 1, "0", -1)}, p -> true))
                .as("two ranks bound to the same core share it").isEqualTo(1);
    }

    @Test
    void defaultSlotsAreSmallOnOneHostAndNcclsAcrossHostsAndAnExplicitSizeWins() {
        assertThat(CommShape.decide(new PeerInfo[]{peer(0, 1, 2, "0-1", -1), peer(1, 1, 2, "0-1", -1)}, 0)
                .stepBytes()).isEqualTo(CommShape.SINGLE_HOST_STEP).isEqualTo(128 << 10);
        assertThat(CommShape.decide(new PeerInfo[]{peer(0, 1, 2, "0-1", -1), peer(1, 2, 2, "0-1", -1)}, 1)
                .stepBytes()).isEqualTo(CommShape.MULTI_HOST_STEP).isEqualTo(512 << 10);
        assertThat(CommShape.decide(new PeerInfo[]{peer(0, 1, 2, "0-1", 65536), peer(1, 1, 2, "0-1", -1)}, 1)
                .stepBytes()).as("every rank takes the one that set NCCL_BUFFSIZE").isEqualTo(65536);
    }

    @Test
    void peerInfoCarriesItsCpusAndDefaultSlotThroughTheBootstrap() {
        PeerInfo p = peer(3, 9, 4, "2-5", -1);
        PeerInfo back = PeerInfo.decode(p.encode());
        assertThat(back.cpus()).hasToString("2-5");
        assertThat(back.stepBytes()).isEqualTo(CommShape.DEFAULT_STEP);
        assertThat(back).isEqualTo(p);
    }
}
