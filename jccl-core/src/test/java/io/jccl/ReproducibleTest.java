package io.jccl;

import io.jccl.testing.ThreadRanks;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * JCCL_REPRODUCIBLE=1: allReduce and reduceScatter results are bitwise the rank-order sum ((x0 + x1) + x2) + x3
 * computed here, whatever algorithm (one-shot, two-shot, the rank-order collective; NCCL_ALGO), channel count and
 * placement of the ranks on (fake) hosts; float data whose sum depends on the order, shown by the default ring.
 */
class ReproducibleTest {
    private static final int N = 4;
    /** Elements per rank: above one-shot's limit on 4 ranks, several two-shot chunks and ring slots. */
    private static final int COUNT = 300_001;
    private static final String[] PROPS = {"JCCL_REPRODUCIBLE", "NCCL_ALGO", "NCCL_MIN_NCHANNELS",
        "NCCL_MAX_NCHANNELS", "JCCL_ONESHOT_MAX_BYTES", "JCCL_TWOSHOT_MAX_BYTES"};

    @AfterEach
    void clear() {
        for (String p : PROPS) {
            System.clearProperty(p);
        }
    }

    /** Rank r's input: magnitudes from 1e-3 to 1e5 and both signs, so that rounding depends on the order. */
    static float[] input(int rank, int count) {
        Random rnd = new Random(42 + rank);
        float[] x = new float[count];
        for (int i = 0; i < count; i++) {
            x[i] = (float) (rnd.nextGaussian() * Math.pow(10, rnd.nextInt(9) - 3));
        }
        return x;
    }

    /** The rank-order sum, element by element, in float. */
    static float[] rankOrderSum(int count) {
        float[] s = input(0, count);
        for (int r = 1; r < N; r++) {
            float[] x = input(r, count);
            for (int i = 0; i < count; i++) {
                s[i] += x[i];
            }
        }
        return s;
    }

    private static final float[] EXPECTED = rankOrderSum(COUNT);
    private static final float[] EXPECTED_RS = rankOrderSum(COUNT * N);

    @Test
    void sharedMemoryOneAndTwoShot() {
        check(Map.of(), null, "ONE_SHOT", "TWO_SHOT");
    }

    @Test
    void sharedMemoryOnFourChannels() {
        check(Map.of("NCCL_MIN_NCHANNELS", "4", "NCCL_MAX_NCHANNELS", "4", "NCCL_ALGO", "Ring"), null, "ONE_SHOT",
                "TWO_SHOT");
    }

    @Test
    void sharedMemoryWithoutTheSharedArea() {
        check(Map.of("JCCL_ONESHOT_MAX_BYTES", "0", "JCCL_TWOSHOT_MAX_BYTES", "0", "NCCL_MIN_NCHANNELS", "2"), null,
                "RANK_ORDER", "RANK_ORDER");
    }

    @Test
    void acrossHostsInterleaved() {
        check(Map.of("NCCL_MIN_NCHANNELS", "2"), new int[] {0, 1, 0, 1}, "RANK_ORDER", "RANK_ORDER");
    }

    @Test
    void acrossHostsWithTreesForced() {
        check(Map.of("NCCL_ALGO", "allreduce:tree"), new int[] {1, 0, 0, 1}, "RANK_ORDER", "RANK_ORDER");
    }

    @Test
    void theDefaultRingSumsInAnotherOrder() {
        System.setProperty("JCCL_ONESHOT_MAX_BYTES", "0");
        System.setProperty("JCCL_TWOSHOT_MAX_BYTES", "0");
        System.setProperty("NCCL_ALGO", "Ring");
        int[] differing = new int[N];
        ThreadRanks.run(N, ThreadRanks.testConfig(), comm -> {
            float[] x = input(comm.rank(), COUNT);
            comm.allReduce(x, RedOp.SUM);
            differing[comm.rank()] = countDiffering(x, EXPECTED, 0);
        });
        assertThat(differing[0]).as("elements whose ring sum differs from the rank-order sum").isPositive();
    }

    /** Runs allReduce and reduceScatter with JCCL_REPRODUCIBLE=1 and {@code props}, on {@code hosts} (null: one). */
    private static void check(Map<String, String> props, int[] hosts, String smallAlgo, String largeAlgo) {
        System.setProperty("JCCL_REPRODUCIBLE", "1");
        props.forEach(System::setProperty);
        int[] differing = new int[N];
        int[] differingRs = new int[N];
        ThreadRanks.Body body = comm -> {
            assertThat(comm.explain(Collective.ALL_REDUCE, 1024)).contains("-> " + smallAlgo);
            assertThat(comm.explain(Collective.ALL_REDUCE, 4L * COUNT)).contains("-> " + largeAlgo);
            assertThat(comm.explain(Collective.REDUCE_SCATTER, 4L * COUNT)).contains("-> " + "RANK_ORDER");
            float[] x = input(comm.rank(), COUNT);
            comm.allReduce(x, RedOp.SUM);
            differing[comm.rank()] = countDiffering(x, EXPECTED, 0);
            float[] small = input(comm.rank(), 100);
            comm.allReduce(small, RedOp.SUM);
            differing[comm.rank()] += countDiffering(small, rankOrderSum(100), 0);

            Arena arena = Arena.ofShared();
            MemorySegment send = arena.allocateFrom(ValueLayout.JAVA_FLOAT, input(comm.rank(), COUNT * N));
            MemorySegment recv = arena.allocate(4L * COUNT, 64);
            comm.reduceScatter(send, recv, COUNT, DataType.FLOAT32, RedOp.SUM);
            differingRs[comm.rank()] = countDiffering(recv.toArray(ValueLayout.JAVA_FLOAT), EXPECTED_RS,
                    comm.rank() * COUNT);
        };
        if (hosts == null) {
            ThreadRanks.run(N, ThreadRanks.testConfig(), body);
        } else {
            ThreadRanks.runOnHosts(hosts, ThreadRanks.testConfig(), body);
        }
        assertThat(differing).as("allReduce elements differing from the rank-order sum, per rank").containsOnly(0);
        assertThat(differingRs).as("reduceScatter elements differing, per rank").containsOnly(0);
    }

    private static int countDiffering(float[] got, float[] want, int offset) {
        int n = 0;
        for (int i = 0; i < got.length; i++) {
            if (Float.floatToRawIntBits(got[i]) != Float.floatToRawIntBits(want[offset + i])) {
                n++;
            }
        }
        return n;
    }
}
