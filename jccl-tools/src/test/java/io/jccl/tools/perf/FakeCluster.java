package io.jccl.tools.perf;

import io.jccl.RedOp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * N in-process ranks that execute perf calls with a straightforward reference implementation (read every rank's
 * posted send data between two barriers, compute this rank's output, write it after the second barrier). It lets
 * the perf runner, its checks and its report be tested end to end without jccl-core. Optionally one rank corrupts
 * one element of every result it writes, so the checks must catch it.
 */
final class FakeCluster {
    final int nRanks;
    private final ElementAccess access;
    private final CyclicBarrier barrier;
    private final CollectiveCall[] posted;
    private final double[] stats;
    private final String[] lines;
    volatile int corruptRank = -1;
    volatile long corruptIndex;
    final java.util.concurrent.atomic.AtomicLong launches = new java.util.concurrent.atomic.AtomicLong();

    FakeCluster(int nRanks, ElementAccess access) {
        this.nRanks = nRanks;
        this.access = access;
        this.barrier = new CyclicBarrier(nRanks);
        this.posted = new CollectiveCall[nRanks];
        this.stats = new double[nRanks];
        this.lines = new String[nRanks];
    }

    List<PerfBackend> backends() {
        List<PerfBackend> out = new ArrayList<>();
        for (int r = 0; r < nRanks; r++) {
            out.add(new Rank(r));
        }
        return out;
    }

    private void await() {
        try {
            barrier.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException | BrokenBarrierException | TimeoutException e) {
            throw new IllegalStateException("fake cluster barrier broken: " + e, e);
        }
    }

    final class Rank implements PerfBackend {
        private final int rank;
        private final Arena arena = Arena.ofShared();
        private final List<CollectiveCall> group = new ArrayList<>();
        private boolean inGroup;

        Rank(int rank) {
            this.rank = rank;
        }

        @Override
        public int rank() {
            return rank;
        }

        @Override
        public int nRanks() {
            return nRanks;
        }

        @Override
        public String deviceBusId() {
            return "fake";
        }

        @Override
        public String deviceName() {
            return "fake device";
        }

        @Override
        public int deviceIndex() {
            return rank;
        }

        @Override
        public PerfBuffer allocate(long sizeBytes) {
            MemorySegment seg = arena.allocate(Math.max(1, sizeBytes), 64);
            return new PerfBuffer() {
                @Override
                public long sizeBytes() {
                    return sizeBytes;
                }

                @Override
                public MemorySegment host() {
                    return seg;
                }
            };
        }

        @Override
        public PreparedCall prepare(CollectiveCall call) {
            return () -> {
                if (inGroup) {
                    group.add(call);
                } else {
                    execute(call);
                }
            };
        }

        @Override
        public void groupStart() {
            inGroup = true;
        }

        @Override
        public void groupEnd() {
            inGroup = false;
            for (CollectiveCall c : group) {
                execute(c);
            }
            group.clear();
        }

        @Override
        public void synchronize() {
        }

        @Override
        public void barrier() {
            await();
        }

        @Override
        public double reduceStat(double value, StatMode mode) {
            stats[rank] = value;
            await();
            double v = switch (mode) {
                case RANK0 -> stats[0];
                case AVG -> Arrays.stream(stats).sum() / nRanks;
                case MIN -> Arrays.stream(stats).min().orElseThrow();
                case MAX -> Arrays.stream(stats).max().orElseThrow();
            };
            await();
            return v;
        }

        @Override
        public long sumLong(long value) {
            return Math.round(reduceStat(value, StatMode.AVG) * nRanks);
        }

        @Override
        public List<String> gatherLines(String line) {
            lines[rank] = line;
            await();
            List<String> out = List.of(lines.clone());
            await();
            return out;
        }

        @Override
        public void abort() {
            barrier.reset();
        }

        @Override
        public void close() {
            arena.close();
        }

        private void execute(CollectiveCall c) {
            launches.incrementAndGet();
            posted[rank] = c;
            await();
            long outCount = c.recvBytes() / c.type().sizeBytes();
            boolean floating = c.type().isFloatingPoint();
            double[] d = new double[(int) outCount];
            long[] l = new long[(int) outCount];
            boolean writes = compute(c, floating, d, l);
            await();
            if (writes) {
                MemorySegment out = c.recv().host().asSlice(c.recvOffsetBytes(), c.recvBytes());
                for (int j = 0; j < outCount; j++) {
                    if (floating) {
                        access.setDouble(c.type(), out, j, d[j]);
                    } else {
                        access.setLong(c.type(), out, j, l[j]);
                    }
                }
                if (rank == corruptRank && outCount > 0) {
                    long j = corruptIndex % outCount;
                    if (floating) {
                        access.setDouble(c.type(), out, j, d[(int) j] + 1);
                    } else {
                        access.setLong(c.type(), out, j, l[(int) j] + 1);
                    }
                }
            }
        }

        private double inD(int r, long k) {
            CollectiveCall p = posted[r];
            return access.getDouble(p.type(), p.send().host().asSlice(p.sendOffsetBytes()), k);
        }

        private long inL(int r, long k) {
            CollectiveCall p = posted[r];
            return access.getLong(p.type(), p.send().host().asSlice(p.sendOffsetBytes()), k);
        }

        /** Fills this rank's output; false when this rank receives nothing. */
        private boolean compute(CollectiveCall c, boolean fp, double[] d, long[] l) {
            long n = c.count();
            int root = c.root();
            switch (c.coll()) {
                case ALL_REDUCE -> reduceInto(c, fp, d, l, 0);
                case REDUCE -> {
                    if (rank != root) {
                        return false;
                    }
                    reduceInto(c, fp, d, l, 0);
                }
                case REDUCE_SCATTER -> reduceInto(c, fp, d, l, rank * n);
                case BROADCAST -> copyInto(fp, d, l, j -> root, j -> j);
                case ALL_GATHER -> copyInto(fp, d, l, j -> (int) (j / n), j -> j % n);
                case GATHER -> {
                    if (rank != root) {
                        return false;
                    }
                    copyInto(fp, d, l, j -> (int) (j / n), j -> j % n);
                }
                case ALL_TO_ALL -> copyInto(fp, d, l, j -> (int) (j / n), j -> rank * n + j % n);
                case SCATTER -> copyInto(fp, d, l, j -> root, j -> rank * n + j);
                case SEND_RECV -> copyInto(fp, d, l, j -> (rank - 1 + nRanks) % nRanks, j -> j);
            }
            return true;
        }

        private void copyInto(boolean fp, double[] d, long[] l, java.util.function.LongToIntFunction src,
                              java.util.function.LongUnaryOperator idx) {
            for (int j = 0; j < d.length; j++) {
                if (fp) {
                    d[j] = inD(src.applyAsInt(j), idx.applyAsLong(j));
                } else {
                    l[j] = inL(src.applyAsInt(j), idx.applyAsLong(j));
                }
            }
        }

        private void reduceInto(CollectiveCall c, boolean fp, double[] d, long[] l, long base) {
            RedOp.Kind kind = c.op().kind();
            for (int j = 0; j < d.length; j++) {
                double accD = kind == RedOp.Kind.PROD ? 1 : 0;
                long accL = kind == RedOp.Kind.PROD ? 1 : 0;
                for (int r = 0; r < nRanks; r++) {
                    double s = posted[r].op().scalar();
                    double vd = fp ? inD(r, base + j) * s : 0;
                    long vl = fp ? 0 : inL(r, base + j) * (long) s;
                    switch (kind) {
                        case SUM, AVG, PRE_MUL_SUM -> { accD += vd; accL += vl; }
                        case PROD -> { accD *= vd; accL *= vl; }
                        case MIN -> { accD = r == 0 ? vd : Math.min(accD, vd); accL = r == 0 ? vl : Math.min(accL, vl); }
                        case MAX -> { accD = r == 0 ? vd : Math.max(accD, vd); accL = r == 0 ? vl : Math.max(accL, vl); }
                    }
                }
                if (kind == RedOp.Kind.AVG) {
                    accD /= nRanks;
                    accL /= nRanks;
                }
                d[j] = accD;
                l[j] = accL;
            }
        }
    }
}
