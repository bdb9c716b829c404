package io.jccl.internal.profile;

import io.jccl.internal.tuning.AlgoKind;
import io.jccl.Collective;
import io.jccl.internal.tuning.Protocol;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Operation and byte counts of one communicator rank, per collective and per algorithm × protocol, read by JMX.
 * Allocation-free to update: calls on a communicator are serialised (one thread at a time, handed over through the
 * communicator's entry CAS), so each count is advanced with a plain read and a release write; readers on other
 * threads see every count whole. Failures arrive from worker threads too and use an atomic increment.
 *
 * <p>Owned by: the communicator's calling thread (writes); any thread (reads). Mirrors: nothing in NCCL (its
 * profiler plugins keep such counts themselves).
 */
final class CommCounters {
    private static final Collective[] COLLS = Collective.values();
    private static final AlgoKind[] ALGOS = AlgoKind.values();
    private static final Protocol[] PROTOS = Protocol.values();

    private final AtomicLongArray opsByColl = new AtomicLongArray(COLLS.length);
    private final AtomicLongArray bytesByColl = new AtomicLongArray(COLLS.length);
    private final AtomicLongArray opsByAlgo = new AtomicLongArray(ALGOS.length * PROTOS.length);
    private final AtomicLongArray bytesByAlgo = new AtomicLongArray(ALGOS.length * PROTOS.length);
    private final AtomicLong failed = new AtomicLong();

    /** Counts one call (calling thread only). */
    public void add(Collective c, AlgoKind algo, Protocol proto, long bytes) {
        int i = c.ordinal();
        opsByColl.lazySet(i, opsByColl.get(i) + 1);
        bytesByColl.lazySet(i, bytesByColl.get(i) + bytes);
        int j = algo.ordinal() * PROTOS.length + proto.ordinal();
        opsByAlgo.lazySet(j, opsByAlgo.get(j) + 1);
        bytesByAlgo.lazySet(j, bytesByAlgo.get(j) + bytes);
    }

    /** Counts one failed call (any thread). */
    public void failed() {
        failed.incrementAndGet();
    }

    public long operations() {
        return sum(opsByColl);
    }

    public long bytes() {
        return sum(bytesByColl);
    }

    public long failures() {
        return failed.get();
    }

    /** Calls per collective NCCL name, only those with at least one call. */
    public Map<String, Long> operationsByCollective() {
        return byCollective(opsByColl);
    }

    public Map<String, Long> bytesByCollective() {
        return byCollective(bytesByColl);
    }

    /** Calls per {@code ALGORITHM/PROTOCOL}, only those with at least one call. */
    public Map<String, Long> operationsByAlgorithm() {
        return byAlgorithm(opsByAlgo);
    }

    public Map<String, Long> bytesByAlgorithm() {
        return byAlgorithm(bytesByAlgo);
    }

    private static Map<String, Long> byCollective(AtomicLongArray a) {
        Map<String, Long> m = new LinkedHashMap<>();
        for (Collective c : COLLS) {
            long v = a.get(c.ordinal());
            if (v != 0) {
                m.put(c.ncclName(), v);
            }
        }
        return m;
    }

    private static Map<String, Long> byAlgorithm(AtomicLongArray a) {
        Map<String, Long> m = new LinkedHashMap<>();
        for (AlgoKind k : ALGOS) {
            for (Protocol p : PROTOS) {
                long v = a.get(k.ordinal() * PROTOS.length + p.ordinal());
                if (v != 0) {
                    m.put(k.name() + "/" + p.name(), v);
                }
            }
        }
        return m;
    }

    private static long sum(AtomicLongArray a) {
        long s = 0;
        for (int i = 0; i < a.length(); i++) {
            s += a.get(i);
        }
        return s;
    }
}
