package io.jccl;

import io.jccl.testing.ThreadRanks;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/** NCCL's group semantics: grouped send/recv cannot deadlock, and one thread can drive several communicators. */
class GroupTest {
    /** Larger than a connector's FIFO, so a blocking send would wait for the peer's receive. */
    static final int BIG = 3 << 20;

    @Test
    void exchangeLargerThanTheFifoInBothDirections() {
        ThreadRanks.run(2, comm -> {
            int peer = 1 - comm.rank();
            float[] out = new float[BIG];
            float[] in = new float[BIG];
            for (int i = 0; i < BIG; i++) {
                out[i] = comm.rank() * 1_000_000 + i % 1000;
            }
            try (Group g = Jccl.group()) {
                comm.send(out, peer);
                comm.recv(in, peer);
            }
            for (int i = 0; i < BIG; i += 997) {
                assertThat(in[i]).isEqualTo(peer * 1_000_000 + i % 1000);
            }
        });
    }

    @Test
    void ringExchangeWithOddRanksAndSelfSend() {
        ThreadRanks.run(5, comm -> {
            int n = comm.size();
            int next = (comm.rank() + 1) % n;
            int prev = (comm.rank() - 1 + n) % n;
            MemorySegment a = Arena.ofAuto().allocate(4L * 100_000);
            MemorySegment b = Arena.ofAuto().allocate(4L * 100_000);
            MemorySegment self = Arena.ofAuto().allocate(64);
            MemorySegment selfIn = Arena.ofAuto().allocate(64);
            a.fill((byte) comm.rank());
            self.fill((byte) 42);
            try (Group g = Jccl.group()) {
                comm.recv(b, 100_000, DataType.FLOAT32, prev);
                comm.send(a, 100_000, DataType.FLOAT32, next);
                comm.send(self, 16, DataType.INT32, comm.rank());
                comm.recv(selfIn, 16, DataType.INT32, comm.rank());
            }
            assertThat(b.get(ValueLayout.JAVA_BYTE, 399_999)).isEqualTo((byte) prev);
            assertThat(selfIn.get(ValueLayout.JAVA_BYTE, 63)).isEqualTo((byte) 42);
        });
    }

    @Test
    void oneThreadDrivesAllRanksOfACommunicator() {
        int n = 4;
        List<Communicator> comms = Communicator.initAll(n, ThreadRanks.testConfig());
        try {
            List<float[]> data = new ArrayList<>();
            for (Communicator c : comms) {
                data.add(new float[] {c.rank(), c.rank() + 1});
            }
            try (Group g = Jccl.group()) {
                for (Communicator c : comms) {
                    c.allReduce(data.get(c.rank()), RedOp.SUM);
                }
            }
            for (float[] d : data) {
                assertThat(d).containsExactly(6f, 10f);
            }
            // point-to-point across communicators from one thread, connectors made lazily inside the group
            float[][] got = new float[n][1024];
            try (Group g = Jccl.group()) {
                for (Communicator c : comms) {
                    float[] mine = new float[1024];
                    java.util.Arrays.fill(mine, c.rank());
                    c.send(mine, (c.rank() + 2) % n);
                    c.recv(got[c.rank()], (c.rank() + n - 2) % n);
                }
            }
            for (int r = 0; r < n; r++) {
                assertThat(got[r][1023]).isEqualTo((r + n - 2) % n);
            }
        } finally {
            try (Group g = Jccl.group()) {
                comms.forEach(Communicator::close);
            }
        }
    }

    @Test
    void asyncCallsCompleteTheirFuturesInOrder() {
        ThreadRanks.run(3, comm -> {
            List<CompletableFuture<Void>> fs = new ArrayList<>();
            List<int[]> bufs = new ArrayList<>();
            for (int k = 0; k < 20; k++) {
                int[] v = new int[1000];
                java.util.Arrays.fill(v, k + comm.rank());
                bufs.add(v);
                MemorySegment s = MemorySegment.ofArray(v);
                fs.add(comm.allReduceAsync(s, s, v.length, DataType.INT32, RedOp.SUM));
            }
            CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new)).join();
            for (int k = 0; k < 20; k++) {
                assertThat(bufs.get(k)[999]).isEqualTo(3 * k + 3);
            }
        });
    }

    /**
     * nccl-tests destroys ncclCommInitAll's communicators one after another from one thread; here the first close
     * used to wait its whole timeout (120 s) for a peer the same thread had not closed yet.
     */
    @Test
    void initAllCommunicatorsCloseOneAfterAnotherFromOneThread() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            List<Communicator> comms = Communicator.initAll(3, Config.defaults().withName("seq-close"));
            float[] d = {1, 2};
            try (Group g = Jccl.group()) {
                comms.forEach(c -> c.allReduce(d.clone(), RedOp.SUM));
            }
            for (Communicator c : comms) {
                c.close();
            }
            for (Communicator c : comms) {
                assertThatThrownBy(() -> c.allReduce(new float[2], RedOp.SUM)).isInstanceOf(JcclException.class)
                        .satisfies(e -> assertThat(((JcclException) e).result()).isEqualTo(Result.INVALID_USAGE));
            }
        });
    }

    @Test
    void initAllClosesFinishWhenTheLastMemberIsAborted() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            List<Communicator> comms = Communicator.initAll(3, Config.defaults().withName("close-abort"));
            comms.get(0).close();
            comms.get(2).close();
            comms.get(1).abort();
            assertThatThrownBy(() -> comms.get(0).allReduce(new float[2], RedOp.SUM)).isInstanceOf(JcclException.class);
        });
    }

    @Test
    void initRanksRefusesRanksItCannotHoldBeforeJoining() {
        UniqueId id = Jccl.uniqueId();
        assertThatThrownBy(() -> Communicator.initRanks(id, 4, new int[] {1, 1}, Config.defaults()))
                .isInstanceOf(JcclException.class).hasMessageContaining("rank 1 is given twice in [1, 1]")
                .satisfies(e -> assertThat(((JcclException) e).result()).isEqualTo(Result.INVALID_ARGUMENT));
        assertThatThrownBy(() -> Communicator.initRanks(id, 4, new int[] {2, 4}, Config.defaults()))
                .isInstanceOf(JcclException.class).hasMessageContaining("rank 4 is not in [0, 4)");
        assertThatThrownBy(() -> Communicator.initRanks(id, 4, new int[0], Config.defaults()))
                .isInstanceOf(JcclException.class).hasMessageContaining("at least one rank");
    }

    @Test
    void groupEndWithoutStartIsInvalidUsage() {
        assertThatThrownBy(Jccl::groupEnd).isInstanceOf(JcclException.class)
                .satisfies(e -> assertThat(((JcclException) e).result()).isEqualTo(Result.INVALID_USAGE));
    }
}
