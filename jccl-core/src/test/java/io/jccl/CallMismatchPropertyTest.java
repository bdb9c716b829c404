package io.jccl;

import io.jccl.testing.ThreadRanks;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterTry;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Ranks that make different calls are refused on every rank (the call itself, or the next one where a rank's call
 * could finish, like a broadcast's root), quickly, with both calls named as the users wrote them,
 * whatever path the call takes: over algorithm (ring, tree, one-shot, two-shot, registered, LL, a grouped call, a
 * send/recv pair, ranks on two hosts) × the way one rank's call differs (collective, count, type, op, root) × 2 to
 * 5 thread ranks. Process ranks: {@link CallMismatchProcessesTest}.
 */
class CallMismatchPropertyTest {
    /** How long a mismatch may take to reach every rank, from the moment the last rank made its call. */
    static final long REFUSED_WITHIN_MS = 2000;
    /** Long enough that a mismatch no check catches shows as a timeout, not as a refusal. */
    private static final Config CONFIG = Config.defaults().withTimeout(Duration.ofSeconds(8));

    /** The path a call takes, and the settings that force it. */
    enum Path {
        RING(300_000, Map.of("JCCL_ONESHOT_MAX_BYTES", "0", "JCCL_TWOSHOT_MAX_BYTES", "0")),
        TREE(100_000, Map.of("NCCL_ALGO", "ring;allreduce:tree", "JCCL_ONESHOT_MAX_BYTES", "0", "JCCL_TWOSHOT_MAX_BYTES", "0")),
        ONE_SHOT(1_000, Map.of()),
        TWO_SHOT(10_000, Map.of("JCCL_ONESHOT_MAX_BYTES", "1024")),
        REGISTERED(4_096, Map.of()),
        LL(2_000, Map.of("NCCL_PROTO", "LL", "JCCL_ONESHOT_MAX_BYTES", "0", "JCCL_TWOSHOT_MAX_BYTES", "0")),
        GROUPED(1_000, Map.of()),
        SEND_RECV(1_000, Map.of()),
        TWO_HOSTS(20_000, Map.of());

        final int count;
        final Map<String, String> settings;

        Path(int count, Map<String, String> settings) {
            this.count = count;
            this.settings = settings;
        }
    }

    /** How the odd rank's call differs from the others'. */
    enum Difference { COLLECTIVE, COUNT, TYPE, OP, ROOT }

    /** One call as a rank makes it. */
    record Call(Collective coll, long count, DataType type, RedOp op, int root) {
        /** The call as an error message names it, e.g. {@code AllReduce(count 1000 float sum)}. */
        String text() {
            StringBuilder b = new StringBuilder(coll.ncclName()).append("(count ").append(count).append(' ')
                    .append(type.ncclName());
            if (op != null) {
                b.append(' ').append(op.kind().ncclName());
            }
            if (coll.rooted()) {
                b.append(" root ").append(root);
            }
            return b.append(')').toString();
        }
    }

    record Case(Path path, Difference difference, int nRanks, int oddRank) {
        Call common() {
            if (path == Path.SEND_RECV) {
                return new Call(Collective.RECV, path.count, DataType.FLOAT32, null, -1);
            }
            return difference == Difference.ROOT
                    ? new Call(Collective.BROADCAST, path.count, DataType.FLOAT32, null, 0)
                    : new Call(Collective.ALL_REDUCE, path.count, DataType.FLOAT32, RedOp.SUM, -1);
        }

        Call odd() {
            Call c = common();
            return switch (difference) {
                case COLLECTIVE -> path == Path.SEND_RECV ? c
                        : new Call(Collective.BROADCAST, c.count(), c.type(), null, 0);
                case COUNT -> new Call(c.coll(), c.count() + 64, c.type(), c.op(), c.root());
                case TYPE -> new Call(c.coll(), c.count(), DataType.INT32, c.op(), c.root());
                case OP -> c.op() == null ? new Call(c.coll(), c.count(), DataType.FLOAT64, null, c.root())
                        : new Call(c.coll(), c.count(), c.type(), RedOp.MAX, c.root());
                case ROOT -> new Call(c.coll(), c.count(), c.type(), c.op(), 1);
            };
        }
    }

    @AfterTry
    void clearSettings() {
        for (Path p : Path.values()) {
            p.settings.keySet().forEach(System::clearProperty);
        }
    }

    @Provide
    Arbitrary<Case> cases() {
        return Combinators.combine(Arbitraries.of(Path.class), Arbitraries.of(Difference.class),
                        Arbitraries.integers().between(2, 5), Arbitraries.integers().between(0, 4))
                .as((p, d, n, odd) -> new Case(p, d, n, odd % n))
                .filter(c -> c.path() != Path.SEND_RECV || c.difference() != Difference.COLLECTIVE
                        && c.difference() != Difference.ROOT)
                .filter(c -> c.path() != Path.REGISTERED || c.difference() != Difference.ROOT);
    }

    @Property(tries = 40, seed = "20261202")
    void differentCallsAreRefusedOnEveryRankNamingBoth(@ForAll("cases") Case c) {
        c.path().settings.forEach(System::setProperty);
        int n = c.nRanks();
        CyclicBarrier atTheCall = new CyclicBarrier(n);
        long[] calledNs = new long[n];
        long[] refusedNs = new long[n];
        int[] hosts = c.path() == Path.TWO_HOSTS ? new int[n] : null;
        for (int r = 0; hosts != null && r < n; r++) {
            hosts[r] = r < (n + 1) / 2 ? 0 : 1;
        }
        ThreadRanks.Outcome o = ThreadRanks.runCollect(n, CONFIG, comm -> {
            int me = comm.rank();
            try (Arena arena = Arena.ofShared()) {
                // one matching call first, so the mismatch meets connections and areas already in use
                comm.allReduce(new float[16], RedOp.SUM);
                Call call = me == c.oddRank() ? c.odd() : c.common();
                atTheCall.await(10, TimeUnit.SECONDS);
                calledNs[me] = System.nanoTime();
                try {
                    make(comm, c, call, arena);
                    // A rank whose call could finish (a broadcast's root, a send that fit the peer's buffers) is
                    // refused a later call instead: the next heartbeat compares the calls (naming both while the
                    // ranks have made fewer than CallLog.DEPTH calls since: here a call every 100 ms).
                    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3 * REFUSED_WITHIN_MS);
                    while (System.nanoTime() < until) {
                        comm.barrier();
                        Thread.sleep(100);
                    }
                } finally {
                    refusedNs[me] = System.nanoTime();
                }
            }
        }, 30, hosts);
        long lastCall = java.util.Arrays.stream(calledNs).max().orElseThrow();
        String odd = c.odd().text();
        String common = c.common().text();
        for (int r = 0; r < n; r++) {
            Throwable e = o.error(r);
            assertThat(e).as("rank %d of %s", r, c).isInstanceOf(JcclException.class);
            String m = e.getMessage().replaceAll(" #\\d+ \\(", "(");
            assertThat(((JcclException) e).result()).as("rank %d of %s: %s", r, c, m)
                    .isIn(Result.INVALID_USAGE, Result.REMOTE_ERROR);
            if (c.path() == Path.SEND_RECV) {
                assertThat(m).as("rank %d of %s", r, c).contains("count " + c.odd().count() + " "
                        + c.odd().type().ncclName()).contains("count " + c.common().count() + " "
                        + c.common().type().ncclName());
            } else {
                assertThat(m).as("rank %d of %s", r, c).contains(odd).contains(common);
            }
            assertThat((refusedNs[r] - lastCall) / 1_000_000).as("ms until rank %d of %s was refused: %s", r, c, m)
                    .isLessThan(REFUSED_WITHIN_MS);
        }
    }

    @Example
    void aReceiveAgainstACollectiveThatWaitsForItIsNamedOnBothRanks() {
        long t0 = System.nanoTime();
        ThreadRanks.Outcome o = ThreadRanks.runCollect(3, CONFIG, comm -> {
            float[] d = new float[1000];
            comm.allReduce(d, RedOp.SUM);
            if (comm.rank() == 0) {
                comm.recv(d, 2);
            } else {
                comm.allReduce(d, RedOp.SUM);
            }
        }, 30);
        for (int r = 0; r < 3; r++) {
            assertThat(o.error(r)).as("rank %d", r).isInstanceOf(JcclException.class)
                    .hasMessageContaining("rank 0 waits in Recv from rank ")
                    .hasMessageContaining("waits in AllReduce(count 1000 float sum)");
        }
        assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(5000);
    }

    /**
     * Makes {@code call} on its path. Send/recv: a ring of sends (each rank sends to the next one the common count,
     * and receives from the previous one its own call's count and type).
     */
    static void make(Communicator comm, Case c, Call call, Arena arena) {
        int n = comm.size();
        int me = comm.rank();
        long bytes = call.count() * call.type().sizeBytes();
        MemorySegment buf = c.path() == Path.REGISTERED ? comm.allocate(c.path().count * 8L)
                : arena.allocate(Math.max(8, bytes * (call.coll() == Collective.ALL_GATHER ? n : 1)), 64);
        switch (c.path()) {
            case SEND_RECV -> {
                MemorySegment out = arena.allocate(c.common().count() * c.common().type().sizeBytes(), 64);
                try (Group g = Jccl.group()) {
                    comm.send(out, c.common().count(), c.common().type(), (me + 1) % n);
                    comm.recv(buf, call.count(), call.type(), (me - 1 + n) % n);
                }
            }
            case GROUPED -> {
                try (Group g = Jccl.group()) {
                    collective(comm, call, buf);
                }
            }
            default -> collective(comm, call, buf);
        }
    }

    private static void collective(Communicator comm, Call call, MemorySegment buf) {
        switch (call.coll()) {
            case ALL_REDUCE -> comm.allReduce(buf, buf, call.count(), call.type(), call.op());
            case BROADCAST -> comm.broadcast(buf, buf, call.count(), call.type(), call.root());
            default -> throw new IllegalArgumentException(call.toString());
        }
    }
}
