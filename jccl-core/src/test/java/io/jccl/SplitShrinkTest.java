package io.jccl;

import io.jccl.testing.ThreadRanks;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** split, shrink (healthy and after a rank left), revoke and abort, with ranks as threads. */
class SplitShrinkTest {
    static final Config CFG = Config.defaults().withTimeout(Duration.ofSeconds(20));

    /** allReduce of (rank + 1) + i over a communicator, checked element by element. */
    static void checkedAllReduce(Communicator c, int count) {
        float[] d = new float[count];
        for (int i = 0; i < count; i++) {
            d[i] = c.rank() + 1 + i % 7;
        }
        c.allReduce(d, RedOp.SUM);
        int n = c.size();
        for (int i = 0; i < count; i++) {
            float exp = n * (n + 1) / 2f + n * (i % 7);
            if (d[i] != exp) {
                throw new AssertionError("rank " + c.rank() + "/" + n + " element " + i + ": " + d[i] + " != " + exp);
            }
        }
    }

    @Test
    void splitGroupsByColorAndOrdersByKeyThenRank() {
        ThreadRanks.run(6, CFG, comm -> {
            int r = comm.rank();
            // colors: even ranks 0, odd ranks 1, rank 5 none; keys reverse the order inside a color
            int color = r == 5 ? Communicator.SPLIT_NOCOLOR : r % 2;
            try (Communicator child = comm.split(color, -r)) {
                if (r == 5) {
                    assertThat(child).isNull();
                } else {
                    int expectedSize = color == 0 ? 3 : 2;          // {4,2,0} and {3,1}
                    assertThat(child.size()).isEqualTo(expectedSize);
                    int expectedRank = color == 0 ? (4 - r) / 2 : (3 - r) / 2;
                    assertThat(child.rank()).isEqualTo(expectedRank);
                    assertThat(child.id()).isNotEqualTo(comm.id());
                    checkedAllReduce(child, 1000);
                    checkedAllReduce(child, 100_003);
                }
            }
            checkedAllReduce(comm, 513);          // the parent still works
        });
    }

    @Test
    void twoSplitsInARowAndEqualKeysFallBackToParentRank() {
        ThreadRanks.run(4, CFG, comm -> {
            try (Communicator a = comm.split(0, 7); Communicator b = comm.split(comm.rank() / 2, 0)) {
                assertThat(a.size()).isEqualTo(4);
                assertThat(a.rank()).isEqualTo(comm.rank());
                assertThat(b.size()).isEqualTo(2);
                assertThat(b.rank()).isEqualTo(comm.rank() % 2);
                checkedAllReduce(a, 77);
                checkedAllReduce(b, 77);
            }
        });
    }

    @Test
    void shrinkOnAHealthyCommunicatorLeavesTheExcludedRankOut() {
        ThreadRanks.run(4, CFG, comm -> {
            if (comm.rank() == 2) {
                return;                                 // excluded: does not take part
            }
            try (Communicator s = comm.shrink(2)) {
                assertThat(s.size()).isEqualTo(3);
                assertThat(s.rank()).isEqualTo(comm.rank() < 2 ? comm.rank() : comm.rank() - 1);
                checkedAllReduce(s, 4097);
            }
        });
    }

    @Test
    void survivorsShrinkAfterARankAbortsMidRunAndGetCorrectResults() {
        ThreadRanks.Outcome o = ThreadRanks.runCollect(4, CFG, comm -> {
            if (comm.rank() == 3) {
                checkedAllReduce(comm, 1000);
                comm.abort();                           // leaves in the middle of the run
                return;
            }
            JcclException failure = null;
            try {
                for (int i = 0; i < 1000; i++) {
                    checkedAllReduce(comm, 1000);
                }
            } catch (JcclException e) {
                failure = e;
            }
            assertThat(failure).as("the run must fail, not hang or succeed").isNotNull();
            assertThat(failure.getMessage()).contains("rank 3");
            assertThat(failure.result()).isEqualTo(Result.REMOTE_ERROR);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (comm.lostRanks().length == 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(comm.lostRanks()).containsExactly(3);
            try (Communicator s = comm.shrink(comm.lostRanks())) {
                assertThat(s.size()).isEqualTo(3);
                for (int i = 0; i < 5; i++) {
                    checkedAllReduce(s, 100_000);
                }
            }
            assertThatThrownBy(() -> checkedAllReduce(comm, 10)).isInstanceOf(JcclException.class)
                    .hasMessageContaining("rank 3");
        }, 60);
        for (int r = 0; r < 4; r++) {
            assertThat(o.error(r)).as("rank %d", r).isNull();
        }
    }

    @Test
    void inALargeCommunicatorEverySurvivorLearnsWhoLeftAndTheyShrink() {
        int n = 18;                                         // more than the full-mesh watch limit
        ThreadRanks.Outcome o = ThreadRanks.runCollect(n, CFG, comm -> {
            checkedAllReduce(comm, 64);
            if (comm.rank() == 9) {
                comm.abort();
                return;
            }
            assertThatThrownBy(() -> {
                for (int i = 0; i < 10_000; i++) {
                    checkedAllReduce(comm, 64);
                }
            }).isInstanceOf(JcclException.class);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (comm.lostRanks().length == 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(comm.lostRanks()).as("rank %d", comm.rank()).containsExactly(9);
            try (Communicator s = comm.shrink(comm.lostRanks())) {
                assertThat(s.size()).isEqualTo(n - 1);
                checkedAllReduce(s, 1000);
            }
        }, 120);
        for (int r = 0; r < n; r++) {
            assertThat(o.error(r)).as("rank %d", r).isNull();
        }
    }

    @Test
    void survivorsThatDisagreeOnTheExcludedSetGetAClearError() {
        ThreadRanks.Outcome o = ThreadRanks.runCollect(4, CFG, comm -> {
            switch (comm.rank()) {
                case 0, 1 -> comm.shrink(3).close();
                case 2 -> comm.shrink(1, 3).close();
                default -> { }                           // rank 3 is excluded by everyone
            }
        }, 60);
        assertThat(o.error(0)).isInstanceOf(JcclException.class).hasMessageContaining("same ranks");
        assertThat(o.error(2)).isInstanceOf(JcclException.class).hasMessageContaining("same ranks");
        assertThat(o.error(1)).as("rank 1 waits for rank 2, which gave up").isInstanceOf(JcclException.class);
    }

    @Test
    void revokeFailsBlockedAndLaterCallsButTheCommunicatorCanStillSplit() {
        CountDownLatch blocked = new CountDownLatch(1);
        ThreadRanks.run(2, CFG, comm -> {
            if (comm.rank() == 0) {
                blocked.await();
                Thread.sleep(200);
                comm.revoke();
                assertThatThrownBy(() -> comm.allReduce(new float[4], RedOp.SUM)).isInstanceOf(JcclException.class)
                        .hasMessageContaining("revoked")
                        .extracting(e -> ((JcclException) e).result()).isEqualTo(Result.INVALID_USAGE);
            } else {
                blocked.countDown();
                long t0 = System.nanoTime();
                assertThatThrownBy(() -> comm.recv(new float[10], 0)).isInstanceOf(JcclException.class)
                        .hasMessageContaining("revoked");
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isLessThan(10_000);
            }
            assertThat(comm.asyncError()).isNotNull();
            try (Communicator fresh = comm.split(0, comm.rank())) {
                checkedAllReduce(fresh, 999);
            }
        });
    }

    @Test
    void abortReleasesASplitThatWaitsForAPeerQuickly() {
        AtomicLong releasedMs = new AtomicLong(-1);
        ThreadRanks.Outcome o = ThreadRanks.runCollect(2, Config.defaults().withTimeout(Duration.ofSeconds(60)), comm -> {
            if (comm.rank() == 0) {
                Thread.sleep(2000);                      // never calls split
                return;
            }
            AtomicLong abortAt = new AtomicLong();
            Thread aborter = Thread.ofPlatform().start(() -> {
                try {
                    Thread.sleep(300);
                } catch (InterruptedException e) {
                    return;
                }
                abortAt.set(System.nanoTime());
                comm.abort();
            });
            try {
                comm.split(0, 0);
            } finally {
                releasedMs.set(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - abortAt.get()));
                aborter.join();
            }
        }, 60);
        assertThat(o.error(1)).isInstanceOf(JcclException.class).hasMessageContaining("aborted");
        System.out.println("abort released the waiting split after " + releasedMs.get() + " ms");
        assertThat(releasedMs.get()).isBetween(0L, 1000L);
    }

    @Test
    void abortFromAnotherThreadReleasesABlockedAllReduceQuickly() {
        AtomicLong releasedMs = new AtomicLong(-1);
        CountDownLatch go = new CountDownLatch(1);
        ThreadRanks.Outcome o = ThreadRanks.runCollect(2, Config.defaults().withTimeout(Duration.ofSeconds(60)), comm -> {
            if (comm.rank() == 0) {
                go.await();
                Thread.sleep(3000);                      // rank 1 is stuck in allReduce meanwhile
                return;
            }
            AtomicLong abortAt = new AtomicLong();
            Thread aborter = Thread.ofPlatform().start(() -> {
                try {
                    Thread.sleep(500);
                } catch (InterruptedException e) {
                    return;
                }
                abortAt.set(System.nanoTime());
                comm.abort();
            });
            go.countDown();
            try {
                comm.allReduce(new float[1 << 20], RedOp.SUM);
            } finally {
                releasedMs.set(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - abortAt.get()));
                aborter.join();
            }
        }, 60);
        assertThat(o.error(1)).isInstanceOf(JcclException.class);
        assertThat(((JcclException) o.error(1)).result()).isEqualTo(Result.ABORTED);
        System.out.println("abort released the blocked allReduce after " + releasedMs.get() + " ms");
        assertThat(releasedMs.get()).as("ms from abort() to the blocked call's return").isBetween(0L, 1000L);
    }
}
