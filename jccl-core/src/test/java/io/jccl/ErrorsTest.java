package io.jccl;

import io.jccl.testing.ThreadRanks;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Wrong use fails with a clear error instead of hanging or returning wrong data. */
class ErrorsTest {
    static final Config SHORT = Config.defaults().withTimeout(Duration.ofSeconds(3));

    @Test
    void badArgumentsAreRejectedBeforeAnythingMoves() {
        ThreadRanks.run(2, comm -> {
            float[] small = new float[4];
            assertThatThrownBy(() -> comm.allReduce(java.lang.foreign.MemorySegment.ofArray(small),
                    java.lang.foreign.MemorySegment.ofArray(small), 5, DataType.FLOAT32, RedOp.SUM))
                    .isInstanceOf(JcclException.class).hasMessageContaining("needs 20");
            assertThatThrownBy(() -> comm.broadcast(small, 7)).hasMessageContaining("root 7");
            assertThatThrownBy(() -> comm.send(small, -1)).hasMessageContaining("peer -1");
            // the communicator still works afterwards
            comm.allReduce(small, RedOp.SUM);
        });
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "{0} vs {1} floats")
    @org.junit.jupiter.params.provider.CsvSource({"100, 300", "200000, 300000"})
    void mismatchedCountsFailOnEveryRankInsteadOfHanging(int count0, int count1) {
        ThreadRanks.Outcome o = ThreadRanks.runCollect(2, SHORT, comm -> {
            float[] d = new float[comm.rank() == 0 ? count0 : count1];
            comm.allReduce(d, RedOp.SUM);
        }, 30);
        for (int r = 0; r < 2; r++) {
            assertThat(o.error(r)).as("rank %d", r).isInstanceOf(JcclException.class);
        }
        assertThat(o.error(0).getMessage() + o.error(1).getMessage()).containsAnyOf("expected", "no progress", "called");
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "{0} floats")
    @org.junit.jupiter.params.provider.ValueSource(ints = {10, 300_000})
    void differentCollectivesAreNamedNotMixed(int count) {
        ThreadRanks.Outcome o = ThreadRanks.runCollect(2, SHORT, comm -> {
            float[] d = new float[count];
            if (comm.rank() == 0) {
                comm.allReduce(d, RedOp.SUM);
            } else {
                comm.allReduce(d, RedOp.MAX);
            }
        }, 30);
        String all = String.valueOf(o.error(0)) + o.error(1);
        assertThat(all).contains("sum").contains("max").contains("called");
    }

    @Test
    void aWaitWithoutPartnerTimesOutNamingThePeer() {
        ThreadRanks.Outcome o = ThreadRanks.runCollect(2, SHORT, comm -> {
            if (comm.rank() == 0) {
                comm.recv(new float[10], 1);
            }
        }, 30);
        assertThat(o.error(0)).isInstanceOf(JcclException.class).hasMessageContaining("rank 1");
        assertThat(((JcclException) o.error(0)).result()).isIn(Result.TIMEOUT, Result.REMOTE_ERROR);
    }

    @Test
    void abortReleasesABlockedCallQuickly() throws Exception {
        CountDownLatch blocked = new CountDownLatch(1);
        ThreadRanks.Outcome o = ThreadRanks.runCollect(2, Config.defaults().withTimeout(Duration.ofSeconds(60)), comm -> {
            if (comm.rank() == 1) {
                Thread t = Thread.ofPlatform().start(() -> {
                    try {
                        blocked.await();
                        Thread.sleep(300);
                    } catch (InterruptedException ignored) {
                        return;
                    }
                    comm.abort();
                });
                blocked.countDown();
                long t0 = System.nanoTime();
                try {
                    comm.recv(new float[10], 0);
                } finally {
                    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
                    assertThat(ms).as("released after abort").isLessThan(5_000);
                    t.join();
                }
            } else {
                blocked.await();
                Thread.sleep(1500);
            }
        }, 60);
        assertThat(o.error(1)).isInstanceOf(JcclException.class);
        assertThat(((JcclException) o.error(1)).result()).isEqualTo(Result.ABORTED);
    }

    @Test
    void aClosedCommunicatorRefusesCalls() {
        java.util.List<Communicator> comms = Communicator.initAll(1, SHORT);
        Communicator c = comms.getFirst();
        float[] d = {1, 2};
        c.allReduce(d, RedOp.SUM);
        assertThat(d).containsExactly(1f, 2f);
        c.close();
        assertThatThrownBy(() -> c.allReduce(d, RedOp.SUM)).isInstanceOf(JcclException.class)
                .hasMessageContaining("closed");
    }
}
