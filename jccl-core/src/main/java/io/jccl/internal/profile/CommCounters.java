package io.jccl.internal.profile;

import io.jccl.internal.tuning.AlgoKind;
import io.jccl.Collective;
import io.jccl.internal.tuning.Protocol;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Operation and byte counts of one communicator rank, per collective and per algorithm × protocol, read by JMX;
 * calls, bytes and time per collective × algorithm × protocol, read by the metrics endpoint.
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
    /** Per collective × algorithm × protocol, for the metrics endpoint (index: {@link #cell}). */
    private final AtomicLongArray callsByCell = new AtomicLongArray(COLLS.length * ALGOS.length * PROTOS.length);
    private final AtomicLongArray bytesByCell = new AtomicLongArray(COLLS.length * ALGOS.length * PROTOS.length);
    private final AtomicLongArray nanosByCell = new AtomicLongArray(COLLS.length * ALGOS.length * PROTOS.length);

    /** The index of (collective, algorithm, protocol) in the per-cell counts. */
    static int cell(Collective c, AlgoKind algo, Protocol proto) {
        return (c.ordinal() * ALGOS.length + algo.ordinal()) * PROTOS.length + proto.ordinal();
    }

    /** Counts one call (calling thread only); returns its cell for {@link #addNanos}. */
    public int add(Collective c, AlgoKind algo, Protocol proto, long bytes) {
        int k = cell(c, algo, proto);
        callsByCell.lazySet(k, callsByCell.get(k) + 1);
        bytesByCell.lazySet(k, bytesByCell.get(k) + bytes);
        int i = c.ordinal();
        opsByColl.lazySet(i, opsByColl.get(i) + 1);
        bytesByColl.lazySet(i, bytesByColl.get(i) + bytes);
        int j = algo.ordinal() * PROTOS.length + proto.ordinal();
        opsByAlgo.lazySet(j, opsByAlgo.get(j) + 1);
        bytesByAlgo.lazySet(j, bytesByAlgo.get(j) + bytes);
        return k;
    }

    /** Adds the time a call of {@code cell} took, from its start to its completion (any thread). */
    void addNanos(int cell, long nanos) {
        nanosByCell.getAndAdd(cell, nanos);
    }

    /** Visits every (collective, algorithm, protocol) with at least one call: calls, bytes, nanoseconds. */
    void forEachCell(CellVisitor v) {
        for (Collective c : COLLS) {
            for (AlgoKind a : ALGOS) {
                for (Protocol p : PROTOS) {
                    int k = cell(c, a, p);
                    long n = callsByCell.get(k);
                    if (n != 0) {
                        v.visit(c, a, p, n, bytesByCell.get(k), nanosByCell.get(k));
                    }
                }
            }
        }
    }

    /** Receives one cell of {@link #forEachCell}. */
    interface CellVisitor {
        void visit(Collective c, AlgoKind algo, Protocol proto, long calls, long bytes, long nanos);
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
