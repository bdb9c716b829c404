package io.jccl.internal.transport.net;

import io.jccl.Communicator;
import io.jccl.Config;
import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.comm.GpuAccess;
import io.jccl.internal.comm.HostCommunicator;
import io.jccl.testing.ThreadRanks;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static io.jccl.internal.transport.net.ThreadKernel.CHANNELS;
import static io.jccl.internal.transport.net.ThreadKernel.SLOT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * GPU net connectors with Java threads standing in for the kernels: two ranks on two fake hosts (distinct host ids,
 * so their host communicators talk over sockets and have a proxy thread) each allocate native control blocks (an
 * own block and a mirror of the peer's block per channel, as pinned host memory would be), build the connectors
 * through {@link HostCommunicator#gpuAccess()}, and a "kernel" thread per rank pushes steps through the mirror while
 * the other rank's kernel consumes them from its own block, honouring the tail / head protocol of the Simple kernels.
 */
class GpuNetConnectionsTest {
    private static final int[] TWO_HOSTS = {0, 1};

    @AfterEach
    void restore() {
        System.clearProperty("JCCL_NET_CHECKSUM");
        System.clearProperty("JCCL_NET_FAULT");
    }

    private static Config config(int timeoutSeconds) {
        return Config.defaults().withTimeout(Duration.ofSeconds(timeoutSeconds));
    }

    private static GpuAccess access(Communicator comm) {
        return ((HostCommunicator) comm).gpuAccess();
    }

    @Test
    void kernelsPushManyStepsBothWaysOverTheProxyAndCloseCleanly() {
        long steps = 400;
        ThreadRanks.runOnHosts(TWO_HOSTS, config(30), comm -> {
            int me = comm.rank();
            GpuAccess gpu = access(comm);
            assertThat(gpu.hostHash(0)).as("fake hosts").isNotEqualTo(gpu.hostHash(1));
            assertThat(gpu.hasNet()).isTrue();
            assertThat(gpu.net().checksum()).as("JCCL_NET_CHECKSUM=auto: on when ranks span hosts").isTrue();
            Arena blocks = Arena.ofShared();
            try {
                ThreadKernel k = new ThreadKernel(blocks, me, 1 - me, gpu.health());
                GpuNetConnections net = gpu.net();
                GpuNetConnections.Block small = new GpuNetConnections.Block(blocks.allocate(SLOT), k.own[0].tail(),
                        k.own[0].sizes(), k.own[0].head());
                assertThatThrownBy(() -> net.listen(new GpuNetConnections.Link(1 - me, 0, false, SLOT, small,
                        k.mirror[0].block())))
                        .isInstanceOfSatisfying(JcclException.class, e -> assertThat(e.result())
                                .isEqualTo(Result.INVALID_ARGUMENT))
                        .hasMessageContaining("rank " + me + " GPU channel 0 from rank " + (1 - me));
                net.connect(k.links(true, true));
                assertThatThrownBy(() -> net.listen(k.links(false, true).get(0)))
                        .hasMessageContaining("rank " + me + " GPU channel 0 from rank " + (1 - me))
                        .hasMessageContaining("already made");
                assertThat(comm.asyncError()).as("refused links fail nothing").isNull();
                k.run(steps, steps, me == 0 ? 100 : 250, 20_000);
                k.awaitCredits(steps);
                assertThat(k.maxInFlight).as("the receive window was used, never exceeded").isEqualTo(8);
                assertThat(k.received.get()).isEqualTo(steps * CHANNELS);
                assertThat(comm.asyncError()).isNull();
                comm.close();
                assertThat(comm.asyncError()).as("a clean close fails nothing").isNull();
                assertThatThrownBy(() -> access(comm)).hasMessageContaining("closed communicator");
                String proxyName = "-r" + me + "-proxy";
                assertThat(Thread.getAllStackTraces().keySet().stream().filter(t -> t.isAlive()
                        && t.getName().endsWith(proxyName) && t.getName().contains(comm.id().substring(0, 8))))
                        .as("the proxy thread stopped, closing the connectors").isEmpty();
            } finally {
                comm.close();
                blocks.close();
            }
        });
    }

    /** A CRC mismatch as the receiving proxy names it, on any channel and step. */
    private static final String CRC_MISMATCH = "rank 0 GPU channel [01] from rank 1: data corrupted in transit "
            + "\\(CRC32C [0-9a-f]{8} computed, [0-9a-f]{8} sent\\) at step \\d+, (" + SLOT + "|" + (SLOT - 24)
            + "|13) bytes";

    /** Both ranks' kernels move {@code steps} per channel both ways while rank 0 receives a corrupted message. */
    private static ThreadRanks.Outcome corruptOneMessageOfRank0(String checksum, long steps) {
        System.setProperty("JCCL_NET_CHECKSUM", checksum);
        System.setProperty("JCCL_NET_FAULT", "corrupt=after:101,rank=0");
        return ThreadRanks.runCollect(2, config(30), comm -> {
            int me = comm.rank();
            GpuAccess gpu = access(comm);
            Arena blocks = Arena.ofShared();
            try {
                ThreadKernel k = new ThreadKernel(blocks, me, 1 - me, gpu.health());
                gpu.net().connect(k.links(true, true));
                assertThat(gpu.net().checksum()).isEqualTo(checksum.equals("on"));
                try {
                    k.run(steps, steps, -1, 25_000);
                } catch (AssertionError e) {
                    comm.abort();       // the peer's kernel stops at once instead of at its idle limit
                    throw e;
                }
            } finally {
                comm.close();
                blocks.close();
            }
        }, 60, TWO_HOSTS);
    }

    @Test
    void aByteCorruptedInTransitFailsBothRanksNamingRankPeerChannelAndStepBeforeAnyKernelReadsIt() {
        ThreadRanks.Outcome o = corruptOneMessageOfRank0("on", 1000);
        // a kernel that read the bad slot would end with its own AssertionError, not the communicator's failure
        assertThat(o.error(0)).isInstanceOfSatisfying(JcclException.class, e -> {
            assertThat(e.result()).isEqualTo(Result.REMOTE_ERROR);
            assertThat(e.getMessage()).containsPattern(CRC_MISMATCH).contains("rank 0 kernel: GPU channel");
        });
        assertThat(o.error(1)).as("the peer fails with the same cause").isInstanceOf(JcclException.class)
                .hasMessageMatching("(?s).*" + CRC_MISMATCH + ".*").hasMessageContaining("rank 1 kernel: GPU channel");
    }

    @Test
    void withChecksumsOffTheSameCorruptionReachesTheKernel() {
        ThreadRanks.Outcome o = corruptOneMessageOfRank0("off", 1000);
        assertThat(o.error(0)).as("the fault is real: the kernel's own check sees the flipped byte")
                .isInstanceOf(AssertionError.class).hasMessageContaining("rank 0 channel")
                .hasMessageNotContaining("CRC32C");
    }

    private static long allocatedBytes(Thread t) throws ReflectiveOperationException {
        Class<?> factory = Class.forName("java.lang.management.ManagementFactory");
        Object bean = factory.getMethod("getThreadMXBean").invoke(null);
        return (long) Class.forName("com.sun.management.ThreadMXBean").getMethod("getThreadAllocatedBytes",
                long.class).invoke(bean, t.threadId());
    }

    private static Thread proxyThread(Communicator comm) {
        String name = "-r" + comm.rank() + "-proxy";
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.isAlive() && t.getName().endsWith(name)
                && t.getName().contains(comm.id().substring(0, 8))).findFirst().orElseThrow();
    }

    /**
     * Slots of 128 KiB (the GPU net slot size) with checksums on and off: every byte arrives, the proxy threads
     * allocate nothing in steady state, and the time of the steps is logged (not asserted: a shared machine).
     */
    @ParameterizedTest(name = "checksum {0}")
    @ValueSource(strings = {"off", "on"})
    void slotsOf128KiBArriveByteExactAndTheProxyAllocatesNothing(String checksum) {
        System.setProperty("JCCL_NET_CHECKSUM", checksum);
        int slot = 128 << 10;
        long warm = 300;
        long steps = 600;
        long[] allocated = new long[2];
        long[] tookNs = new long[2];
        ThreadRanks.runOnHosts(TWO_HOSTS, config(60), comm -> {
            int me = comm.rank();
            GpuAccess gpu = access(comm);
            Arena blocks = Arena.ofShared();
            try {
                ThreadKernel k = new ThreadKernel(blocks, me, 1 - me, gpu.health(), slot);
                gpu.net().connect(k.links(true, true));
                assertThat(gpu.net().checksum()).isEqualTo(checksum.equals("on"));
                k.run(warm, warm, -1, 20_000);
                Thread proxy = proxyThread(comm);
                long before = allocatedBytes(proxy);
                long t0 = System.nanoTime();
                k.run(warm + steps, warm + steps, -1, 20_000);
                tookNs[me] = System.nanoTime() - t0;
                allocated[me] = allocatedBytes(proxy) - before;
                k.awaitCredits(warm + steps);
                assertThat(k.received.get()).isEqualTo((warm + steps) * CHANNELS);
                assertThat(comm.asyncError()).isNull();
            } finally {
                comm.close();
                blocks.close();
            }
        });
        for (int r = 0; r < 2; r++) {
            double us = tookNs[r] / 1e3 / (steps * CHANNELS);
            System.out.printf("GPU net, checksum %s: rank %d moved %d slots of %d KiB each way in %.1f ms "
                    + "(%.1f us per slot per direction, both ways at once), proxy allocated %d bytes%n", checksum, r,
                    steps * CHANNELS, slot >> 10, tookNs[r] / 1e6, us, allocated[r]);
        }
        for (int r = 0; r < 2; r++) {
            assertThat(allocated[r]).as("bytes rank %d's proxy thread allocated over %d steps per channel", r, steps)
                    .isLessThanOrEqualTo(16 * 1024L);
        }
    }

    @Test
    void anAbortEndsTheKernelWaitsOnBothRanksNamingThePeerAndChannel() {
        AtomicLong abortedAt = new AtomicLong();
        long[] endedAt = new long[2];
        ThreadRanks.Outcome o = ThreadRanks.runCollect(2, config(30), comm -> {
            int me = comm.rank();
            GpuAccess gpu = access(comm);
            Arena blocks = Arena.ofShared();
            try {
                ThreadKernel k = new ThreadKernel(blocks, me, 1 - me, gpu.health());
                gpu.net().connect(k.links(true, true));
                if (me == 0) {
                    Thread.ofPlatform().name("test-aborter").start(() -> {
                        while (k.received.get() < 20L * CHANNELS) {
                            LockSupport.parkNanos(1_000_000);
                        }
                        LockSupport.parkNanos(50_000_000);
                        abortedAt.set(System.nanoTime());
                        comm.abort();
                    });
                }
                try {
                    // rank 1 sends 20 steps per channel, then waits for rank 0's, which never come
                    k.run(me == 1 ? 20 : 0, me == 0 ? 1000 : 1, -1, 25_000);
                } finally {
                    endedAt[me] = System.nanoTime();
                }
            } finally {
                comm.close();
                blocks.close();
            }
        }, 60, TWO_HOSTS);
        assertThat(o.error(0)).isInstanceOfSatisfying(JcclException.class, e -> {
            assertThat(e.result()).isEqualTo(Result.ABORTED);
            assertThat(e.getMessage()).contains("aborted by the application")
                    .contains("rank 0 kernel: GPU channel 0 waiting for step 20 from rank 1");
        });
        assertThat(o.error(1)).isInstanceOf(JcclException.class).hasMessageContaining("rank 0")
                .hasMessageContaining("rank 1 kernel: GPU channel 0 waiting for step 0 from rank 0");
        for (int r = 0; r < 2; r++) {
            assertThat(TimeUnit.NANOSECONDS.toMillis(endedAt[r] - abortedAt.get())).as("rank %d ended after the abort",
                    r).isBetween(0L, 5_000L);
        }
    }

    @Test
    void aPeerWhoseConnectionDiesFailsTheWaitsNamingRankPeerAndChannel() {
        System.setProperty("JCCL_NET_FAULT", "drop=after:60,rank=1");
        CountDownLatch rank0Done = new CountDownLatch(1);
        AtomicReference<String> failure0 = new AtomicReference<>();
        long[] took = new long[2];
        ThreadRanks.Outcome o;
        try {
            o = ThreadRanks.runCollect(2, config(30), comm -> {
                int me = comm.rank();
                GpuAccess gpu = access(comm);
                Arena blocks = Arena.ofShared();
                try {
                    ThreadKernel k = new ThreadKernel(blocks, me, 1 - me, gpu.health());
                    gpu.net().connect(k.links(true, true));
                    long t0 = System.nanoTime();
                    try {
                        k.run(1000, 1000, -1, 25_000);
                    } finally {
                        took[me] = System.nanoTime() - t0;
                        if (me == 0) {
                            failure0.set(String.valueOf(gpu.health().failure()));
                            rank0Done.countDown();
                        } else {
                            rank0Done.await(30, TimeUnit.SECONDS);  // no departure before rank 0 saw the failure
                        }
                    }
                } finally {
                    comm.close();
                    blocks.close();
                }
            }, 60, TWO_HOSTS);
        } finally {
            System.clearProperty("JCCL_NET_FAULT");
        }
        // whichever side notices first names its connector; the other adopts that account
        String connector = "(?s).*rank [01] GPU channel \\d (to|from) rank [01]: (send|receive) of step \\d+ failed.*";
        assertThat(o.error(1)).isInstanceOf(JcclException.class).hasMessageMatching(connector)
                .hasMessageContaining("rank 1 kernel: GPU channel");
        assertThat(o.error(0)).isInstanceOf(JcclException.class).hasMessageMatching(connector)
                .hasMessageContaining("rank 0 kernel: GPU channel");
        assertThat(failure0.get()).contains("rank 1");
        for (int r = 0; r < 2; r++) {
            assertThat(TimeUnit.NANOSECONDS.toMillis(took[r])).as("rank %d's waits ended long before their deadline",
                    r).isLessThan(15_000L);
        }
    }

    @Test
    void aSenderThatNeverConnectsTimesOutOrIsAbortedNamingRankPeerAndChannel() {
        CountDownLatch done = new CountDownLatch(1);
        ThreadRanks.Outcome o = ThreadRanks.runCollect(2, config(4), comm -> {
            int me = comm.rank();
            GpuAccess gpu = access(comm);
            Arena blocks = Arena.ofShared();
            try {
                if (me == 1) {
                    done.await(30, TimeUnit.SECONDS);
                    return;
                }
                ThreadKernel k = new ThreadKernel(blocks, me, 1, gpu.health());
                GpuNetConnections.Link l = new GpuNetConnections.Link(1, 5, false, SLOT, k.own[0].block(),
                        k.mirror[0].block());
                long t0 = System.nanoTime();
                try {
                    gpu.net().connect(List.of(l));
                } finally {
                    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
                    assertThat(ms).as("the accept gave up at its deadline").isBetween(3_500L, 7_000L);
                    done.countDown();
                }
            } finally {
                comm.close();
                blocks.close();
            }
        }, 60, TWO_HOSTS);
        assertThat(o.error(0)).isInstanceOfSatisfying(JcclException.class, e -> {
            assertThat(e.result()).isEqualTo(Result.TIMEOUT);
            assertThat(e.getMessage()).contains("rank 0: rank 1 did not connect its data channel 5 within 4000 ms");
        });
        assertThat(o.error(1)).isNull();

        AtomicLong abortedAt = new AtomicLong();
        long[] endedAt = new long[1];
        CountDownLatch done2 = new CountDownLatch(1);
        o = ThreadRanks.runCollect(2, config(30), comm -> {
            int me = comm.rank();
            GpuAccess gpu = access(comm);
            Arena blocks = Arena.ofShared();
            try {
                if (me == 1) {
                    done2.await(30, TimeUnit.SECONDS);
                    return;
                }
                ThreadKernel k = new ThreadKernel(blocks, me, 1, gpu.health());
                Thread.ofPlatform().name("test-aborter").start(() -> {
                    LockSupport.parkNanos(300_000_000);
                    abortedAt.set(System.nanoTime());
                    comm.abort();
                });
                try {
                    gpu.net().connect(List.of(new GpuNetConnections.Link(1, 5, false, SLOT, k.own[0].block(),
                            k.mirror[0].block())));
                } finally {
                    endedAt[0] = System.nanoTime();
                    done2.countDown();
                }
            } finally {
                comm.close();
                blocks.close();
            }
        }, 60, TWO_HOSTS);
        assertThat(o.error(0)).isInstanceOfSatisfying(JcclException.class, e -> {
            assertThat(e.result()).isEqualTo(Result.ABORTED);
            assertThat(e.getMessage()).contains("rank 0 GPU channel 5 from rank 1: waiting for the peer to connect");
        });
        assertThat(TimeUnit.NANOSECONDS.toMillis(endedAt[0] - abortedAt.get())).isBetween(0L, 2_000L);
    }

    @Test
    void ranksOnOneHostHaveNoGpuNetwork() {
        ThreadRanks.run(2, comm -> {
            GpuAccess gpu = access(comm);
            assertThat(gpu.hostHash(0)).isEqualTo(gpu.hostHash(1));
            assertThat(gpu.hasNet()).isFalse();
            assertThatThrownBy(gpu::net).isInstanceOfSatisfying(JcclException.class, e -> assertThat(e.result())
                    .isEqualTo(Result.INVALID_USAGE)).hasMessageContaining("every rank of this communicator is on");
            assertThat(gpu.exchange().allGather(new byte[] {(byte) comm.rank()}).length).isEqualTo(2);
        });
    }
}
