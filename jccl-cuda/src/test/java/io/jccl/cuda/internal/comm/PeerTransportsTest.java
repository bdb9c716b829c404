package io.jccl.cuda.internal.comm;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Across hosts, which peers a rank reaches through the proxy and which directly, and how the init log names it. */
class PeerTransportsTest {
    private static RankInfo rank(long host, long pid) {
        return new RankInfo(host, pid, "0000:01:00.0", 132, "layout", 1 << 20, 0x1000, new byte[64]);
    }

    @Test
    void theRanksOfOtherHostsAreRemote() {
        long[] hosts = {7, 9, 7, 9};
        assertThat(RankAgreement.remoteMask(hosts, 0)).isEqualTo(0b1010);
        assertThat(RankAgreement.remoteMask(hosts, 3)).isEqualTo(0b0101);
        assertThat(RankAgreement.remoteMask(new long[] {5, 5, 5}, 1)).isZero();
    }

    @Test
    void theInitLogNamesEachPeersTransport() {
        // ranks 0, 1 in one process, rank 2 another process of that host, rank 3 on another host
        List<RankInfo> all = List.of(rank(7, 100), rank(7, 100), rank(7, 200), rank(9, 100));
        int mask = RankAgreement.remoteMask(new long[] {7, 7, 7, 9}, 0);
        assertThat(RankAgreement.describePeers(all, 0, mask, "NET/Socket"))
                .isEqualTo("rank 1 via P2P/direct, rank 2 via P2P/IPC, rank 3 via NET/Socket (proxy)");
        assertThat(RankAgreement.describePeers(all, 3, RankAgreement.remoteMask(new long[] {7, 7, 7, 9}, 3),
                "NET/Socket")).isEqualTo("ranks 0, 1, 2 via NET/Socket (proxy)");
    }
}
