package io.jccl;

import io.jccl.testing.ThreadRanks;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.Arrays;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tree allReduce end to end on ranks-as-threads spread over fake hosts (a per-thread host id: peers on other
 * "hosts" talk over sockets, peers on the same one over shared memory), 2 to 4 hosts with 1 to 3 ranks each,
 * interleaved too: results for every type and op, counts that do not fill the chunks, in-place and out-of-place;
 * NCCL_ALGO forcing it; the cost model choosing it for small messages only across hosts; fingerprint mismatches and
 * a lost peer failing the call with a clear error.
 */
class TreeAllReduceTest {
    @AfterEach
    void clear() {
        System.clearProperty("NCCL_ALGO");
    }

    static Stream<Arguments> layouts() {
        return Stream.of(
                Arguments.of((Object) new int[] {0, 1}),
                Arguments.of((Object) new int[] {0, 0, 1, 1}),
                Arguments.of((Object) new int[] {0, 1, 0, 1}),
                Arguments.of((Object) new int[] {0, 1, 2}),
                Arguments.of((Object) new int[] {0, 1, 2, 0, 2, 2}),
                Arguments.of((Object) new int[] {0, 1, 2, 3}),
                Arguments.of((Object) new int[] {3, 2, 2, 1, 0, 0}));
    }

    @ParameterizedTest(name = "hosts {0}")
    @MethodSource("layouts")
    void forcedTreeIsCorrectOnEveryLayout(int[] hosts) {
        System.setProperty("NCCL_ALGO", "Tree");
        long big = hosts.length <= 4 ? 3 * CollectivesTest.SLOT + 5 : CollectivesTest.SLOT + 1;
        ThreadRanks.runOnHosts(hosts, ThreadRanks.testConfig(), comm -> {
            String why = comm.explain(Collective.ALL_REDUCE, 4096);
            assertThat(why).contains("AllReduce 4096 bytes -> Tree/Simple").contains("restricted by NCCL_ALGO");
            for (long count : new long[] {1, 7, 1000, 4097, CollectivesTest.SLOT - 1, big}) {
                CollectivesTest.checkAllReduce(comm, count, DataType.FLOAT32, RedOp.SUM, false);
                CollectivesTest.checkAllReduce(comm, count, DataType.FLOAT32, RedOp.MAX, true);
            }
            comm.barrier();
        });
    }

    @Test
    void treeReusesConnectorsPointToPointMadeFirst() {
        System.setProperty("NCCL_ALGO", "allreduce:tree");
        ThreadRanks.runOnHosts(new int[] {0, 1, 0, 1}, ThreadRanks.testConfig(), comm -> {
            CollectivesTest.checkAllToAll(comm, 5000, DataType.FLOAT32);
            CollectivesTest.checkAllReduce(comm, 2 * CollectivesTest.SLOT + 3, DataType.FLOAT32, RedOp.SUM, false);
            CollectivesTest.checkAllGather(comm, 1001, DataType.FLOAT32, false);
            CollectivesTest.checkAllReduce(comm, 999, DataType.INT64, RedOp.SUM, true);
        });
    }

    @Test
    void manySmallTreeAllReducesBetweenRingCollectives() {
        System.setProperty("NCCL_ALGO", "allreduce:tree");
        ThreadRanks.runOnHosts(new int[] {0, 0, 1, 1}, ThreadRanks.testConfig(), comm -> {
            var seg = CollectivesTest.alloc(16, DataType.FLOAT64);
            for (int i = 0; i < 5000; i++) {
                DataType.FLOAT64.setDouble(seg, 0, comm.rank() + i);
                comm.allReduce(seg, seg, 1, DataType.FLOAT64, i % 2 == 0 ? RedOp.MAX : RedOp.SUM);
                double expected = i % 2 == 0 ? 3 + i : 6 + 4.0 * i;
                assertThat(DataType.FLOAT64.getDouble(seg, 0)).as("call %d", i).isEqualTo(expected);
                if (i % 500 == 0) {
                    comm.barrier();
                    CollectivesTest.checkAllGather(comm, 33, DataType.FLOAT32, false);
                }
            }
        });
    }

    @Test
    void everyTypeAndOpOnTheTree() {
        System.setProperty("NCCL_ALGO", "Tree");
        ThreadRanks.runOnHosts(new int[] {0, 1, 1}, ThreadRanks.testConfig(), comm -> {
            for (DataType t : DataType.values()) {
                for (RedOp op : TypesOpsTest.OPS) {
                    for (long count : new long[] {1, 33, 70_001}) {
                        CollectivesTest.checkAllReduce(comm, count, t, op, count == 33);
                    }
                }
            }
        });
    }

    @Test
    void costModelPicksTreeForSmallMessagesAcrossHostsAndRingForLarge() {
        ThreadRanks.runOnHosts(new int[] {0, 0, 1, 1}, ThreadRanks.testConfig(), comm -> {
            String small = comm.explain(Collective.ALL_REDUCE, 1024);
            assertThat(small).contains("-> Tree/Simple").contains("Ring/Simple");
            assertThat(comm.explain(Collective.ALL_REDUCE, 64L << 20)).contains("-> Ring/");
            assertThat(small).contains("channel 0: ring [0, 1, 2, 3]");
            CollectivesTest.checkAllReduce(comm, 256, DataType.FLOAT32, RedOp.SUM, false);
            CollectivesTest.checkAllReduce(comm, 1 << 20, DataType.FLOAT32, RedOp.SUM, true);
        });
    }

    @Test
    void oneHostKeepsTheRingAndForcedTreeRunsAChain() {
        ThreadRanks.run(3, comm -> {
            for (long bytes : new long[] {1 << 10, 1 << 20, 256L << 20}) {
                assertThat(comm.explain(Collective.ALL_REDUCE, bytes)).contains("-> Ring/");
            }
        });
        System.setProperty("NCCL_ALGO", "Tree");
        ThreadRanks.run(3, comm -> {
            assertThat(comm.explain(Collective.ALL_REDUCE, 1 << 20)).contains("-> Tree/Simple");
            CollectivesTest.checkAllReduce(comm, 300_001, DataType.FLOAT32, RedOp.SUM, false);
            CollectivesTest.checkAllReduce(comm, 300_001, DataType.INT32, RedOp.MIN, true);
        });
    }

    @Test
    void fingerprintMismatchIsDetectedOnTheTree() {
        System.setProperty("NCCL_ALGO", "Tree");
        ThreadRanks.Outcome o = ThreadRanks.runCollect(4, ThreadRanks.testConfig().withTimeout(Duration.ofSeconds(20)),
                comm -> {
                    long count = 100_000;
                    var send = CollectivesTest.alloc(count, DataType.FLOAT32);
                    comm.allReduce(send, send, count, DataType.FLOAT32, comm.rank() == 3 ? RedOp.MAX : RedOp.SUM);
                }, 60, new int[] {0, 0, 1, 1});
        String all = Arrays.toString(o.errors().toArray());
        assertThat(o.errors()).allSatisfy(e -> assertThat(e).isNotNull());
        assertThat(all).contains("[tree/Simple]").contains("every rank must make the same").contains("max").contains("sum");
        assertThat(o.errors()).anySatisfy(e -> assertThat(((JcclException) e).result()).isEqualTo(Result.INVALID_USAGE));
    }

    @Test
    void lostPeerFailsTheTreeAllReduceWithoutHanging() {
        System.setProperty("NCCL_ALGO", "Tree");
        long t0 = System.nanoTime();
        ThreadRanks.Outcome o = ThreadRanks.runCollect(4, ThreadRanks.testConfig().withTimeout(Duration.ofSeconds(15)),
                comm -> {
                    long count = 1 << 20;
                    CollectivesTest.checkAllReduce(comm, 1000, DataType.FLOAT32, RedOp.SUM, false);
                    if (comm.rank() == 2) {
                        comm.abort();
                        return;
                    }
                    var send = CollectivesTest.alloc(count, DataType.FLOAT32);
                    for (int i = 0; i < 3; i++) {
                        comm.allReduce(send, send, count, DataType.FLOAT32, RedOp.SUM);
                    }
                }, 60, new int[] {0, 0, 1, 1});
        for (int r : new int[] {0, 1, 3}) {
            Throwable e = o.error(r);
            assertThat(e).as("rank %d", r).isInstanceOf(JcclException.class);
            assertThat(((JcclException) e).result()).isIn(Result.REMOTE_ERROR, Result.ABORTED, Result.TIMEOUT,
                    Result.SYSTEM_ERROR);
            assertThat(e.getMessage()).contains("rank");
        }
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(50));
    }
}
