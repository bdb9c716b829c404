package io.jccl;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * 256 ranks as threads of this JVM through the public API: init, every collective once with its result checked, then
 * close. What makes it possible: the bootstrap of in-process ranks holds no sockets, the bootstrap allGather and the
 * allToAll of a large communicator take log2(n) rounds over log2(n) peers, connectors are made only for the peers a
 * call needs, and close is agreed with neighbours only.
 */
class ScaleTest {
    private static final int N = 256;

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void twoHundredFiftySixThreadRanksRunEveryCollectiveOnce() throws Exception {
        long t0 = System.nanoTime();
        List<Communicator> comms = Communicator.initAll(N, Config.defaults().withTimeout(Duration.ofSeconds(60))
                .withName("scale-test"));
        long t1 = System.nanoTime();
        List<String> wrong = new ArrayList<>();
        try (ExecutorService ex = Executors.newThreadPerTaskExecutor(Thread.ofPlatform().name("scale-rank-", 0)
                .factory())) {
            List<Future<List<String>>> parts = new ArrayList<>();
            for (Communicator c : comms) {
                parts.add(ex.submit(() -> everyCollective(c)));
            }
            for (Future<List<String>> f : parts) {
                wrong.addAll(f.get(150, TimeUnit.SECONDS));
            }
        }
        long t2 = System.nanoTime();
        for (Communicator c : comms) {
            c.close();
        }
        long t3 = System.nanoTime();
        System.out.printf("%d thread ranks: init %.2f s, every collective %.2f s, close %.2f s%n", N, (t1 - t0) / 1e9,
                (t2 - t1) / 1e9, (t3 - t2) / 1e9);
        assertThat(wrong).isEmpty();
    }

    /** Every collective once on rank {@code c}; returns what came out wrong. */
    private static List<String> everyCollective(Communicator c) {
        int r = c.rank();
        List<String> wrong = new ArrayList<>();
        float[] a = new float[8];
        for (int i = 0; i < a.length; i++) {
            a[i] = r + i;
        }
        c.allReduce(a, RedOp.SUM);
        for (int i = 0; i < a.length; i++) {
            check(wrong, r, "allReduce", i, a[i], (float) N * (N - 1) / 2 + (float) N * i);
        }

        float[] bc = new float[4];
        if (r == 7) {
            bc = new float[] {1000, 1001, 1002, 1003};
        }
        c.broadcast(bc, 7);
        for (int i = 0; i < bc.length; i++) {
            check(wrong, r, "broadcast", i, bc[i], 1000 + i);
        }

        float[] red = {r + 1, 2 * (r + 1)};
        c.reduce(red, RedOp.SUM, 3);
        if (r == 3) {
            check(wrong, r, "reduce", 0, red[0], (float) N * (N + 1) / 2);
            check(wrong, r, "reduce", 1, red[1], (float) N * (N + 1));
        }

        float[] ag = new float[N];
        c.allGather(new float[] {r}, ag);
        for (int p = 0; p < N; p++) {
            check(wrong, r, "allGather", p, ag[p], p);
        }

        float[] rsIn = new float[N];
        for (int p = 0; p < N; p++) {
            rsIn[p] = r + p;
        }
        float[] rsOut = new float[1];
        c.reduceScatter(rsIn, rsOut, RedOp.SUM);
        check(wrong, r, "reduceScatter", 0, rsOut[0], (float) N * (N - 1) / 2 + (float) N * r);

        float[] aaIn = new float[N];
        for (int p = 0; p < N; p++) {
            aaIn[p] = r * 1000 + p;
        }
        float[] aaOut = new float[N];
        c.allToAll(MemorySegment.ofArray(aaIn), MemorySegment.ofArray(aaOut), 1, DataType.FLOAT32);
        for (int p = 0; p < N; p++) {
            check(wrong, r, "allToAll", p, aaOut[p], p * 1000 + r);
        }

        float[] gOut = new float[r == 5 ? N : 0];
        c.gather(MemorySegment.ofArray(new float[] {r}), MemorySegment.ofArray(gOut), 1, DataType.FLOAT32, 5);
        for (int p = 0; p < gOut.length; p++) {
            check(wrong, r, "gather", p, gOut[p], p);
        }

        float[] sIn = new float[r == 9 ? N : 0];
        for (int p = 0; p < sIn.length; p++) {
            sIn[p] = 2 * p;
        }
        float[] sOut = new float[1];
        c.scatter(MemorySegment.ofArray(sIn), MemorySegment.ofArray(sOut), 1, DataType.FLOAT32, 9);
        check(wrong, r, "scatter", 0, sOut[0], 2 * r);

        float[] got = new float[1];
        try (Group g = Jccl.group()) {
            c.send(new float[] {r}, (r + 1) % N);
            c.recv(got, (r - 1 + N) % N);
        }
        check(wrong, r, "send/recv", 0, got[0], (r - 1 + N) % N);

        c.barrier();
        return wrong;
    }

    private static void check(List<String> wrong, int rank, String what, int i, float got, float want) {
        if (got != want) {
            wrong.add("rank " + rank + " " + what + "[" + i + "]: " + got + ", expected " + want);
        }
    }
}
