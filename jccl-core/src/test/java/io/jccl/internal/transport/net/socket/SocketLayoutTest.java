package io.jccl.internal.transport.net.socket;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How many sockets and helper threads a connection gets: host connections follow NCCL_SOCKET_NTHREADS x
 * NCCL_NSOCKS_PERTHREAD (1 x 1 by default: everything on the control socket); GPU ranks' connections take 2 helper
 * threads of 2 sockets unless either parameter is set, and then the same layout as host connections.
 */
class SocketLayoutTest {
    @AfterEach
    void restore() {
        System.clearProperty("NCCL_SOCKET_NTHREADS");
        System.clearProperty("NCCL_NSOCKS_PERTHREAD");
    }

    private static SocketNetPlugin plugin() {
        return new SocketNetPlugin(NetInterfaces.forPeers(true), 0, null);
    }

    @Test
    void gpuConnectionsGetHelperThreadsUnlessTheUserChoseTheLayout() {
        SocketNetPlugin host = plugin();
        assertThat(host.threads()).isEqualTo(1);
        assertThat(host.dataSocks()).isZero();
        SocketNetPlugin gpu = host.forDeviceMemory(0);
        assertThat(gpu).isNotSameAs(host);
        assertThat(gpu.threads()).isEqualTo(SocketNetPlugin.GPU_THREADS);
        assertThat(gpu.dataSocks()).isEqualTo(SocketNetPlugin.GPU_THREADS * SocketNetPlugin.GPU_SOCKS_PER_THREAD);
        assertThat(gpu.devices()).isEqualTo(host.devices());

        System.setProperty("NCCL_NSOCKS_PERTHREAD", "3");
        SocketNetPlugin chosen = plugin();
        assertThat(chosen.forDeviceMemory(0)).isSameAs(chosen);
        assertThat(chosen.dataSocks()).isEqualTo(3);
        System.clearProperty("NCCL_NSOCKS_PERTHREAD");
        System.setProperty("NCCL_SOCKET_NTHREADS", "1");
        SocketNetPlugin one = plugin();
        assertThat(one.forDeviceMemory(0)).isSameAs(one);
        assertThat(one.dataSocks()).isZero();
    }
}
