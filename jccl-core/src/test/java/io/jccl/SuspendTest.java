package io.jccl;

import io.jccl.internal.debug.ProcessResources;
import io.jccl.testing.ProcessRanks;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link Communicator#suspend()}, {@link Communicator#resume()} and {@link Communicator#memoryStats()}: the memory of
 * the data path (shared-memory and network FIFOs, the shared area, scratch) goes away on suspend, as the statistics
 * and the process's file descriptors show, calls are refused while suspended, and after resume the same calls give
 * the same results and the statistics the same bytes, cycle after cycle; refusals are collective.
 */
class SuspendTest {
    static final Config CFG = Config.defaults().withTimeout(Duration.ofSeconds(8));
    /** What a suspended host communicator may still hold: a few control words of its persistent arena. */
    static final long PERSISTENT_MAX_BYTES = 4096;

    @AfterEach
    void restore() {
        System.clearProperty("NCCL_SHM_DISABLE");
    }

    @Test
    void fourThreadRanksOverSharedMemorySuspendAndResumeThreeTimes() {
        cycles(4, "shared memory");
    }

    @Test
    void threeThreadRanksOverSocketsSuspendAndResume() {
        System.setProperty("NCCL_SHM_DISABLE", "1");
        cycles(3, "sockets");
    }

    /** initAll of {@code n}; a workload, suspend, refused calls, resume, the workload again: three times. */
    private static void cycles(int n, String what) {
        List<Communicator> comms = Communicator.initAll(n, CFG);
        try {
            MemorySegment[] registered = new MemorySegment[n];
            onEachRank(comms, c -> registered[c.rank()] = c.allocate(4096));
            onEachRank(comms, c -> workload(c, 0));
            onEachRank(comms, c -> registeredAllReduce(c, registered[c.rank()], 0));
            MemoryStats[] before = stats(comms);
            int fds = ProcessResources.openFiles();
            int threads = jcclThreads(comms.getFirst());
            for (MemoryStats s : before) {
                assertThat(s.suspended()).isFalse();
                assertThat(s.suspendedBytes()).isZero();
                assertThat(s.hostBytes()).as(what + ": FIFOs, staging, scratch").isPositive();
                if (what.equals("sockets")) {
                    assertThat(s.sharedBytes()).isZero();
                    assertThat(s.peerMappedBytes()).isZero();
                } else {
                    assertThat(s.sharedBytes()).as("receiving FIFOs and the shared area").isGreaterThan(1L << 20);
                    assertThat(s.peerMappedBytes()).as("the peers' FIFOs and areas").isGreaterThan(1L << 20);
                }
            }
            System.out.println(what + ", " + n + " ranks, rank 0 before suspend: " + before[0] + " ("
                    + before[0].describe() + "); " + fds + " fds, " + threads + " threads");
            for (int cycle = 1; cycle <= 3; cycle++) {
                onEachRank(comms, Communicator::suspend);
                MemoryStats[] during = stats(comms);
                for (int r = 0; r < n; r++) {
                    MemoryStats s = during[r];
                    assertThat(s.suspended()).isTrue();
                    assertThat(s.sharedBytes()).isZero();
                    assertThat(s.peerMappedBytes()).isZero();
                    assertThat(s.hostBytes()).isLessThanOrEqualTo(PERSISTENT_MAX_BYTES);
                    assertThat(s.suspendedBytes()).isEqualTo(before[r].totalBytes() - s.totalBytes());
                }
                if (what.equals("sockets")) {
                    assertThat(ProcessResources.openFiles()).as("the data sockets are closed").isLessThan(fds);
                }
                int c = cycle;
                System.out.println(what + " cycle " + c + ", rank 0 suspended: " + during[0].describe() + "; "
                        + ProcessResources.openFiles() + " fds, " + jcclThreads(comms.getFirst()) + " threads");
                onEachRank(comms, SuspendTest::refusedWhileSuspended);
                onEachRank(comms, Communicator::resume);
                onEachRank(comms, comm -> workload(comm, c));
                onEachRank(comms, comm -> registeredAllReduce(comm, registered[comm.rank()], c));
                MemoryStats[] after = stats(comms);
                for (int r = 0; r < n; r++) {
                    assertThat(after[r]).as("rank " + r + " after cycle " + c).isEqualTo(before[r]);
                }
                assertThat(ProcessResources.openFiles()).as("fds after cycle " + c).isEqualTo(fds);
                assertThat(jcclThreads(comms.getFirst())).as("threads after cycle " + c).isEqualTo(threads);
            }
        } finally {
            onEachRank(comms, Communicator::close);
        }
    }

    /**
     * A ring allReduce (FIFOs), a small one (the shared area where there is one), an allGather, a send/recv ring in a
     * group (connectors made on first use, so made again after a resume): all checked.
     */
    static void workload(Communicator c, int salt) {
        checkedAllReduce(c, 300_001, salt);
        checkedAllReduce(c, 64, salt + 1);
        int n = c.size();
        float[] out = {c.rank() + salt, -c.rank()};
        float[] in = new float[2];
        try (Group g = Jccl.group()) {
            c.send(out, (c.rank() + 1) % n);
            c.recv(in, (c.rank() + n - 1) % n);
        }
        int prev = (c.rank() + n - 1) % n;
        assertThat(in).containsExactly(prev + salt, -prev);
        int[] mine = {c.rank() * 10 + salt, c.rank() * 10 + salt + 1};
        int[] all = new int[2 * n];
        try (Arena a = Arena.ofShared()) {
            MemorySegment send = a.allocate(8);
            MemorySegment recv = a.allocate(8L * n);
            MemorySegment.copy(mine, 0, send, ValueLayout.JAVA_INT, 0, 2);
            c.allGather(send, recv, 2, DataType.INT32);
            MemorySegment.copy(recv, ValueLayout.JAVA_INT, 0, all, 0, 2 * n);
        }
        for (int r = 0; r < n; r++) {
            assertThat(all[2 * r]).isEqualTo(r * 10 + salt);
            assertThat(all[2 * r + 1]).isEqualTo(r * 10 + salt + 1);
        }
    }

    /**
     * An allReduce in place on a buffer of {@link Communicator#allocate} (single-copy through shared memory on one
     * host), which a suspend leaves alone: checked exactly.
     */
    static void registeredAllReduce(Communicator c, MemorySegment buf, int salt) {
        int count = (int) (buf.byteSize() / 4);
        for (int i = 0; i < count; i++) {
            buf.setAtIndex(ValueLayout.JAVA_INT, i, (c.rank() + 1) * (i + salt));
        }
        c.allReduce(buf, buf, count, DataType.INT32, RedOp.SUM);
        int ranks = c.size() * (c.size() + 1) / 2;
        for (int i = 0; i < count; i++) {
            assertThat(buf.getAtIndex(ValueLayout.JAVA_INT, i)).isEqualTo(ranks * (i + salt));
        }
    }

    /** allReduce of (rank + 1) * (i % 13 + salt) in place, checked exactly on every element. */
    static void checkedAllReduce(Communicator c, int count, int salt) {
        long[] d = new long[count];
        for (int i = 0; i < count; i++) {
            d[i] = (c.rank() + 1L) * (i % 13 + salt);
        }
        c.allReduce(d, RedOp.SUM);
        long ranks = (long) c.size() * (c.size() + 1) / 2;
        for (int i = 0; i < count; i++) {
            if (d[i] != ranks * (i % 13 + salt)) {
                throw new AssertionError("rank " + c.rank() + " element " + i + ": " + d[i] + " != "
                        + ranks * (i % 13 + salt));
            }
        }
    }

    /** Every kind of call fails at once, naming the rank, the call and the state. */
    static void refusedWhileSuspended(Communicator c) {
        String prefix = "rank " + c.rank() + ": ";
        assertThatThrownBy(() -> c.allReduce(new float[4], RedOp.SUM)).isInstanceOf(JcclException.class)
                .hasMessageContaining(prefix + "AllReduce called on communicator " + c.id() + " while it is suspended")
                .extracting(e -> ((JcclException) e).result()).isEqualTo(Result.INVALID_USAGE);
        assertThatThrownBy(() -> c.send(new float[1], (c.rank() + 1) % c.size()))
                .hasMessageContaining(prefix + "Send called").hasMessageContaining("suspended");
        assertThatThrownBy(c::barrier).hasMessageContaining("while it is suspended");
        assertThatThrownBy(() -> c.allReduceAsync(MemorySegment.ofArray(new float[1]),
                MemorySegment.ofArray(new float[1]), 1, DataType.FLOAT32, RedOp.SUM))
                .hasMessageContaining("AllReduce called").hasMessageContaining("suspended");
        assertThatThrownBy(() -> c.allocate(4096)).hasMessageContaining(prefix + "allocate called")
                .hasMessageContaining("suspended");
        assertThat(c.memoryStats().suspended()).isTrue();
    }

    @Test
    void refusalsAreCollective() {
        List<Communicator> comms = Communicator.initAll(3, CFG);
        try {
            onEachRank(comms, c -> assertThatThrownBy(c::resume).isInstanceOf(JcclException.class)
                    .hasMessageContaining("rank " + c.rank() + ": resume of communicator " + c.id()
                            + " refused on every rank")
                    .hasMessageContaining("rank 0 is not suspended; rank 1 is not suspended; rank 2 is not suspended")
                    .extracting(e -> ((JcclException) e).result()).isEqualTo(Result.INVALID_USAGE));
            onEachRank(comms, Communicator::suspend);
            String status = io.jccl.internal.ras.RasServer.answer(io.jccl.internal.ras.RasServer.Command.STATUS);
            assertThat(status).as("the status port").contains("comm " + comms.get(1).id() + " rank 1: ")
                    .contains("memory: host 8 B, shared 0 B, peer-mapped 0 B, pinned 0 B, device 0 B; suspended (");
            onEachRank(comms, c -> assertThatThrownBy(c::suspend)
                    .hasMessageContaining("suspend of communicator " + c.id() + " refused on every rank")
                    .hasMessageContaining("rank 1 is already suspended"));
            // ranks that disagree: rank 0 resumes while the others suspend again; every rank refuses
            onEachRank(comms, c -> {
                if (c.rank() == 0) {
                    assertThatThrownBy(c::resume).hasMessageContaining("resume of communicator")
                            .hasMessageContaining("rank 1 called suspend").hasMessageContaining("rank 2 called suspend");
                } else {
                    assertThatThrownBy(c::suspend).hasMessageContaining("rank 0 called resume")
                            .hasMessageContaining("rank 1 is already suspended");
                }
            });
            assertThat(comms.get(2).memoryStats().suspended()).isTrue();
            onEachRank(comms, Communicator::resume);
            onEachRank(comms, c -> workload(c, 5));
        } finally {
            onEachRank(comms, Communicator::close);
        }
    }

    /**
     * Rank 0 has a receive in flight that rank 1 has not sent yet: every rank refuses, naming it; once it completed,
     * suspend goes ahead.
     */
    @Test
    void aCallInFlightMakesEveryRankRefuse() {
        List<Communicator> comms = Communicator.initAll(3, CFG);
        try {
            float[] got = new float[3];
            AtomicReferenceArray<CompletableFuture<Void>> recv = new AtomicReferenceArray<>(1);
            onEachRank(comms, c -> {   // connects rank 1 to rank 0 first: the receive below then waits for data only
                if (c.rank() == 1) {
                    c.send(new float[3], 0);
                } else if (c.rank() == 0) {
                    c.recv(got, 1);
                }
            });
            onEachRank(comms, c -> {
                if (c.rank() == 0) {
                    recv.set(0, c.recvAsync(MemorySegment.ofArray(got), 3, DataType.FLOAT32, 1));
                }
                assertThatThrownBy(c::suspend).isInstanceOf(JcclException.class)
                        .hasMessageContaining("suspend of communicator " + c.id() + " refused on every rank")
                        .hasMessageContaining("rank 0 still has Recv (seq 2) in flight");
                if (c.rank() == 1) {
                    c.send(new float[] {1, 2, 3}, 0);
                }
            });
            recv.get(0).get(5, TimeUnit.SECONDS);
            assertThat(got).containsExactly(1, 2, 3);
            onEachRank(comms, Communicator::suspend);
            assertThat(comms.get(0).memoryStats().suspended()).isTrue();
        } catch (Exception e) {
            throw new AssertionError(e);
        } finally {
            onEachRank(comms, Communicator::close);   // closing a suspended communicator
        }
    }

    @Test
    void aSuspendedCommunicatorCanBeAborted() {
        List<Communicator> comms = Communicator.initAll(2, CFG);
        onEachRank(comms, c -> workload(c, 0));
        onEachRank(comms, Communicator::suspend);
        comms.forEach(Communicator::abort);
        assertThatThrownBy(() -> comms.get(0).allReduce(new float[1], RedOp.SUM)).isInstanceOf(JcclException.class)
                .hasMessageContaining("closed");
        assertThat(comms.get(1).memoryStats().totalBytes()).isZero();
    }

    /** Three processes over shared memory, then over sockets: see {@link SuspendRankMain}. */
    @Test
    void processRanksSuspendAndResumeOverSharedMemoryAndSockets() throws Exception {
        for (String shmOff : new String[] {"0", "1"}) {
            ProcessRanks.Result r = ProcessRanks.run(3, SuspendRankMain.class, List.of(),
                    Map.of("NCCL_SHM_DISABLE", shmOff), 120);
            String all = String.join("\n---\n", r.outputs());
            assertThat(r.allOk()).as(all).isTrue();
            for (int rank = 0; rank < 3; rank++) {
                assertThat(r.outputs().get(rank)).as(all).contains("OK rank " + rank + " of 3");
            }
            System.out.println("NCCL_SHM_DISABLE=" + shmOff + ", rank 0: " + r.outputs().get(0).lines()
                    .filter(l -> l.startsWith("memory") || l.startsWith("OK")).toList());
        }
    }

    /** Runs {@code body} on every rank, each on a thread of its own, and rethrows the first failure. */
    static void onEachRank(List<Communicator> comms, ThrowingBody body) {
        List<CompletableFuture<Void>> fs = new ArrayList<>();
        for (Communicator c : comms) {
            CompletableFuture<Void> f = new CompletableFuture<>();
            Thread.ofPlatform().name("suspend-test-r" + c.rank()).start(() -> {
                try {
                    body.run(c);
                    f.complete(null);
                } catch (Throwable t) {
                    f.completeExceptionally(t);
                }
            });
            fs.add(f);
        }
        Throwable first = null;
        for (CompletableFuture<Void> f : fs) {
            try {
                f.get(60, TimeUnit.SECONDS);
            } catch (Exception e) {
                if (first == null) {
                    first = e.getCause() != null ? e.getCause() : e;
                }
            }
        }
        if (first != null) {
            throw new AssertionError("a rank failed: " + first, first);
        }
    }

    /** One rank's part of a step. */
    @FunctionalInterface
    interface ThrowingBody {
        void run(Communicator c) throws Exception;
    }

    /**
     * The live threads of {@code comm}'s communicator (channel workers and proxies, named after its id) and of socket
     * connections (their helpers), not those other tests of this JVM may still be ending.
     */
    static int jcclThreads(Communicator comm) {
        String mine = "jccl-" + comm.id().substring(0, 8);
        return (int) Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
                .filter(n -> n.startsWith(mine) || n.startsWith("jccl-sock-helper")).count();
    }

    private static MemoryStats[] stats(List<Communicator> comms) {
        return comms.stream().map(Communicator::memoryStats).toArray(MemoryStats[]::new);
    }
}
