package io.jccl.cuda.internal.enqueue;

import io.jccl.JcclException;
import io.jccl.cuda.GpuOptions;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class P2pQueueTest {
    private static final CollPlanner P = new CollPlanner(GpuOptions.defaults(), 3, 132, true, true);

    private static P2pQueue.Op send(int peer, long bytes) {
        return new P2pQueue.Op(KernelArgs.P2P_SEND, peer, 0x1000 + peer, bytes);
    }

    private static P2pQueue.Op recv(int peer, long bytes) {
        return new P2pQueue.Op(KernelArgs.P2P_RECV, peer, 0x2000 + peer, bytes);
    }

    @Test
    void roundKPairsTheKthSendAndReceiveOfEveryPeer() {
        List<List<P2pQueue.Planned>> r = P2pQueue.rounds(List.of(send(1, 64), send(1, 128), recv(2, 64), recv(1, 32)),
                0, 3, P);
        assertThat(r).hasSize(2);
        assertThat(r.get(0)).extracting(P2pQueue.Planned::kind, P2pQueue.Planned::peer, P2pQueue.Planned::bytes)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(KernelArgs.P2P_SEND, 1, 64L),
                        org.assertj.core.groups.Tuple.tuple(KernelArgs.P2P_RECV, 1, 32L),
                        org.assertj.core.groups.Tuple.tuple(KernelArgs.P2P_RECV, 2, 64L));
        assertThat(r.get(1)).extracting(P2pQueue.Planned::bytes).containsExactly(128L);
    }

    @Test
    void sendsToSelfBecomeCopiesAndZeroBytesVanish() {
        List<List<P2pQueue.Planned>> r = P2pQueue.rounds(List.of(send(0, 256), recv(0, 256), send(1, 0)), 0, 3, P);
        assertThat(r).hasSize(1);
        P2pQueue.Planned c = r.get(0).get(0);
        assertThat(c.kind()).isEqualTo(KernelArgs.P2P_COPY);
        assertThat(c.src()).isEqualTo(0x1000);
        assertThat(c.ptr()).isEqualTo(0x2000);
        assertThat(c.blocks()).isEqualTo(CollPlanner.COPY_BLOCKS);
        assertThat(P2pQueue.rounds(List.of(send(1, 0), recv(2, 0)), 0, 3, P)).isEmpty();
    }

    @Test
    void unmatchedSelfTrafficIsRefused() {
        assertThatThrownBy(() -> P2pQueue.rounds(List.of(send(0, 8)), 0, 3, P)).isInstanceOf(JcclException.class)
                .hasMessageContaining("itself");
        assertThatThrownBy(() -> P2pQueue.rounds(List.of(send(0, 8), recv(0, 16)), 0, 3, P))
                .isInstanceOf(JcclException.class).hasMessageContaining("sizes must match");
    }
}
