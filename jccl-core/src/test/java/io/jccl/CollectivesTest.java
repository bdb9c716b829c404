package io.jccl;

import io.jccl.testing.Oracle;
import io.jccl.testing.ThreadRanks;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every collective on ranks-as-threads over the real socket transport, for rank counts 1..8 (odd included) and element
 * counts 0, 1, odd, around a slot's size, and large; in-place and out-of-place; checked element by element against
 * {@link Oracle}.
 */
class CollectivesTest {
    /** Elements per 512 KiB slot of fp32: chunk boundaries. */
    static final long SLOT = (4L << 20) / 8 / 4;

    static Stream<Arguments> shapes() {
        List<Arguments> out = new ArrayList<>();
        int[] ranks = {1, 2, 3, 4, 5, 8};
        long[] counts = {0, 1, 7, 1000, SLOT - 1, SLOT + 1, 3 * SLOT + 5};
        for (int n : ranks) {
            for (long c : counts) {
                if (n >= 5 && c > SLOT + 1) {
                    continue;
                }
                out.add(Arguments.of(n, c));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} ranks, count {1}")
    @MethodSource("shapes")
    void allCollectivesFloat(int n, long count) {
        ThreadRanks.run(n, comm -> {
            checkAllReduce(comm, count, DataType.FLOAT32, RedOp.SUM, false);
            checkAllReduce(comm, count, DataType.FLOAT32, RedOp.MAX, true);
            checkBroadcast(comm, count, DataType.FLOAT32, n - 1, false);
            checkBroadcast(comm, count, DataType.FLOAT32, 0, true);
            checkReduce(comm, count, DataType.FLOAT32, RedOp.SUM, n / 2);
            checkAllGather(comm, count, DataType.FLOAT32, false);
            checkAllGather(comm, count, DataType.FLOAT32, true);
            checkReduceScatter(comm, count, DataType.FLOAT32, RedOp.SUM);
            checkAllToAll(comm, Math.min(count, 4096), DataType.FLOAT32);
            checkGather(comm, Math.min(count, 4096), DataType.FLOAT32, 0);
            checkScatter(comm, Math.min(count, 4096), DataType.FLOAT32, n - 1);
            comm.barrier();
        });
    }

    static MemorySegment alloc(long elems, DataType t) {
        return Arena.ofAuto().allocate(Math.max(1, elems * t.sizeBytes()), 64);
    }

    static void checkAllReduce(Communicator comm, long count, DataType t, RedOp op, boolean inPlace) {
        MemorySegment send = alloc(count, t);
        for (long i = 0; i < count; i++) {
            t.setDouble(send, i, Oracle.input(t, op.kind(), comm.rank(), i));
        }
        MemorySegment recv = inPlace ? send : alloc(count, t);
        comm.allReduce(send, recv, count, t, op);
        for (long i = 0; i < count; i++) {
            double exp = Oracle.reduce(t, op, comm.size(), i);
            double got = t.getDouble(recv, i);
            if (!Oracle.close(t, op, got, exp)) {
                throw new AssertionError("allReduce " + t + " " + op + " rank " + comm.rank() + " element " + i
                        + ": got " + got + " expected " + exp);
            }
        }
    }

    static void checkBroadcast(Communicator comm, long count, DataType t, int root, boolean inPlace) {
        MemorySegment buf = alloc(count, t);
        if (comm.rank() == root) {
            for (long i = 0; i < count; i++) {
                t.setDouble(buf, i, Oracle.movement(t, root, i));
            }
        }
        MemorySegment recv = inPlace ? buf : alloc(count, t);
        comm.broadcast(buf, recv, count, t, root);
        for (long i = 0; i < count; i++) {
            assertThat(t.getDouble(recv, i)).as("broadcast element %d on rank %d", i, comm.rank())
                    .isEqualTo(Oracle.movement(t, root, i));
        }
    }

    static void checkReduce(Communicator comm, long count, DataType t, RedOp op, int root) {
        MemorySegment send = alloc(count, t);
        for (long i = 0; i < count; i++) {
            t.setDouble(send, i, Oracle.input(t, op.kind(), comm.rank(), i));
        }
        MemorySegment recv = alloc(count, t);
        comm.reduce(send, recv, count, t, op, root);
        if (comm.rank() == root) {
            for (long i = 0; i < count; i++) {
                double exp = Oracle.reduce(t, op, comm.size(), i);
                assertThat(Oracle.close(t, op, t.getDouble(recv, i), exp)).as("reduce element %d", i).isTrue();
            }
        }
    }

    static void checkAllGather(Communicator comm, long count, DataType t, boolean inPlace) {
        int n = comm.size();
        MemorySegment recv = alloc(count * n, t);
        MemorySegment send;
        if (inPlace) {
            send = recv.asSlice(comm.rank() * count * t.sizeBytes(), Math.max(0, count * t.sizeBytes()));
        } else {
            send = alloc(count, t);
        }
        for (long i = 0; i < count; i++) {
            t.setDouble(send, i, Oracle.movement(t, comm.rank(), i));
        }
        comm.allGather(send, recv, count, t);
        for (int r = 0; r < n; r++) {
            for (long i = 0; i < count; i++) {
                double got = t.getDouble(recv, r * count + i);
                if (got != Oracle.movement(t, r, i)) {
                    throw new AssertionError("allGather rank " + comm.rank() + " block " + r + " element " + i + ": got "
                            + got + " expected " + Oracle.movement(t, r, i));
                }
            }
        }
    }

    static void checkReduceScatter(Communicator comm, long count, DataType t, RedOp op) {
        int n = comm.size();
        MemorySegment send = alloc(count * n, t);
        for (long i = 0; i < count * n; i++) {
            t.setDouble(send, i, Oracle.input(t, op.kind(), comm.rank(), i));
        }
        MemorySegment recv = alloc(count, t);
        comm.reduceScatter(send, recv, count, t, op);
        for (long i = 0; i < count; i++) {
            double exp = Oracle.reduce(t, op, n, comm.rank() * count + i);
            double got = t.getDouble(recv, i);
            if (!Oracle.close(t, op, got, exp)) {
                throw new AssertionError("reduceScatter rank " + comm.rank() + " element " + i + ": got " + got
                        + " expected " + exp);
            }
        }
    }

    static void checkAllToAll(Communicator comm, long count, DataType t) {
        int n = comm.size();
        MemorySegment send = alloc(count * n, t);
        for (int p = 0; p < n; p++) {
            for (long i = 0; i < count; i++) {
                t.setDouble(send, p * count + i, Oracle.movement(t, comm.rank() * n + p, i));
            }
        }
        MemorySegment recv = alloc(count * n, t);
        comm.allToAll(send, recv, count, t);
        for (int p = 0; p < n; p++) {
            for (long i = 0; i < count; i++) {
                double exp = Oracle.movement(t, p * n + comm.rank(), i);
                assertThat(t.getDouble(recv, p * count + i)).as("allToAll from %d element %d", p, i).isEqualTo(exp);
            }
        }
    }

    static void checkGather(Communicator comm, long count, DataType t, int root) {
        int n = comm.size();
        MemorySegment send = alloc(count, t);
        for (long i = 0; i < count; i++) {
            t.setDouble(send, i, Oracle.movement(t, comm.rank(), i));
        }
        MemorySegment recv = comm.rank() == root ? alloc(count * n, t) : null;
        comm.gather(send, recv, count, t, root);
        if (comm.rank() == root) {
            for (int p = 0; p < n; p++) {
                for (long i = 0; i < count; i++) {
                    assertThat(t.getDouble(recv, p * count + i)).isEqualTo(Oracle.movement(t, p, i));
                }
            }
        }
    }

    static void checkScatter(Communicator comm, long count, DataType t, int root) {
        int n = comm.size();
        MemorySegment send = null;
        if (comm.rank() == root) {
            send = alloc(count * n, t);
            for (int p = 0; p < n; p++) {
                for (long i = 0; i < count; i++) {
                    t.setDouble(send, p * count + i, Oracle.movement(t, p, i));
                }
            }
        }
        MemorySegment recv = alloc(count, t);
        comm.scatter(send, recv, count, t, root);
        for (long i = 0; i < count; i++) {
            assertThat(t.getDouble(recv, i)).isEqualTo(Oracle.movement(t, comm.rank(), i));
        }
    }
}
