package io.jccl.testing;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.Jccl;
import io.jccl.Group;
import io.jccl.RedOp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A rank process for {@link ProcessRanks}: joins through the environment, runs every collective on a few sizes and
 * checks the results; exits 0 only if all were right. With argument {@code fail-rank=R} rank R throws instead. With
 * {@code per-process=K} the process holds K ranks ({@link Communicator#fromEnvironment(int, io.jccl.Config)}) and
 * drives them from its main thread: groups for the calls, then one close after another.
 */
public final class RankMain {
    private RankMain() {
    }

    public static void main(String[] args) throws Exception {
        int failRank = -1;
        for (String a : args) {
            if (a.startsWith("fail-rank=")) {
                failRank = Integer.parseInt(a.substring(10));
            }
        }
        for (String a : args) {
            if (a.startsWith("per-process=")) {
                severalRanks(Integer.parseInt(a.substring(12)));
                return;
            }
        }
        try (Communicator comm = Communicator.fromEnvironment(config())) {
            if (comm.rank() == failRank) {
                throw new IllegalStateException("rank " + failRank + " fails on purpose");
            }
            if (java.util.Arrays.asList(args).contains("explain")) {
                System.out.print(comm.explain(io.jccl.Collective.ALL_REDUCE, 4092));
            }
            int n = comm.size();
            for (long count : new long[] {0, 1, 1023, 300_001}) {
                float[] d = new float[(int) count];
                for (int i = 0; i < count; i++) {
                    d[i] = comm.rank() + i % 3;
                }
                comm.allReduce(d, RedOp.SUM);
                for (int i = 0; i < count; i++) {
                    float exp = n * (n - 1) / 2f + n * (i % 3);
                    if (d[i] != exp) {
                        throw new AssertionError("allReduce element " + i + ": " + d[i] + " != " + exp);
                    }
                }
                MemorySegment send = Arena.ofAuto().allocate(Math.max(4, count * 4));
                MemorySegment recv = Arena.ofAuto().allocate(Math.max(4, count * 4 * n));
                for (int i = 0; i < count; i++) {
                    DataType.INT32.setLong(send, i, comm.rank() * 1000L + i);
                }
                comm.allGather(send, recv, count, DataType.INT32);
                for (int r = 0; r < n; r++) {
                    for (int i = 0; i < count; i += 97) {
                        if (DataType.INT32.getLong(recv, (long) r * count + i) != r * 1000L + i) {
                            throw new AssertionError("allGather block " + r + " element " + i);
                        }
                    }
                }
                try (Group g = Jccl.group()) {
                    comm.send(send, count, DataType.INT32, (comm.rank() + 1) % n);
                    comm.recv(recv, count, DataType.INT32, (comm.rank() + n - 1) % n);
                }
                int prev = (comm.rank() + n - 1) % n;
                for (int i = 0; i < count; i += 101) {
                    if (DataType.INT32.getLong(recv, i) != prev * 1000L + i) {
                        throw new AssertionError("sendrecv element " + i);
                    }
                }
            }
            comm.barrier();
            System.out.println("OK rank " + comm.rank());
        }
    }

    /** The tests' configuration, with the timeout of JCCL_TIMEOUT_MS where the test sets it (else 30 s). */
    private static io.jccl.Config config() {
        String ms = System.getenv("JCCL_TIMEOUT_MS");
        return ms == null ? ThreadRanks.testConfig()
                : ThreadRanks.testConfig().withTimeout(java.time.Duration.ofMillis(Long.parseLong(ms)));
    }

    /** {@code k} ranks of this process, driven from this thread; prints {@code OK ranks a-b of n}. */
    private static void severalRanks(int k) {
        java.util.List<Communicator> comms = Communicator.fromEnvironment(k, ThreadRanks.testConfig());
        int n = comms.getFirst().size();
        int count = 70_001;
        float[][] d = new float[k][count];
        float[][] got = new float[k][count];
        for (int i = 0; i < k; i++) {
            java.util.Arrays.fill(d[i], comms.get(i).rank());
        }
        try (Group g = Jccl.group()) {
            for (int i = 0; i < k; i++) {
                comms.get(i).allReduce(d[i], RedOp.SUM);
            }
        }
        try (Group g = Jccl.group()) {
            for (int i = 0; i < k; i++) {
                Communicator c = comms.get(i);
                c.send(d[i], (c.rank() + 1) % n);
                c.recv(got[i], (c.rank() + n - 1) % n);
            }
        }
        for (int i = 0; i < k; i++) {
            if (d[i][count - 1] != n * (n - 1) / 2f || got[i][count - 1] != n * (n - 1) / 2f) {
                throw new AssertionError("rank " + comms.get(i).rank() + ": allReduce " + d[i][count - 1]
                        + ", received " + got[i][count - 1] + ", expected " + n * (n - 1) / 2f);
            }
        }
        long t0 = System.nanoTime();
        for (Communicator c : comms) {
            c.close();   // one after another from this thread: the first close must not wait for the second
        }
        long closeMs = (System.nanoTime() - t0) / 1_000_000;
        if (closeMs > 15_000) {   // the timeout is 30 s: a close that waited for its neighbour gave up after it
            throw new AssertionError("closing " + k + " ranks from one thread took " + closeMs + " ms");
        }
        System.out.println("OK ranks " + comms.getFirst().rank() + "-" + comms.getLast().rank() + " of " + n);
    }
}
