package io.jccl;

import io.jccl.testing.ThreadRanks;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Buffers whose layout JCCL cannot honour are refused before anything moves (INVALID_ARGUMENT naming the rank, the
 * call and the property), and the layouts it can honour give exact results: byte order, read-only buffers, sizes,
 * positions and limits, misaligned elements, heap memory on every path, closed and confined arenas.
 */
class BufferLayoutTest {
    static final ByteOrder OTHER = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? ByteOrder.BIG_ENDIAN
            : ByteOrder.LITTLE_ENDIAN;

    /** Asserts that {@code call} is refused as {@code rank}'s {@code coll}, the message holding {@code parts}. */
    static void refused(ThrowingCallable call, int rank, Collective coll, String... parts) {
        assertThatThrownBy(call).isInstanceOfSatisfying(JcclException.class, e -> {
            assertThat(e.result()).isEqualTo(Result.INVALID_ARGUMENT);
            assertThat(e.getMessage()).startsWith("rank " + rank + ": " + coll.ncclName() + ": ").contains(parts);
        });
    }

    /** Element i of rank r's input: small integers, so sums are exact in every type. */
    static int input(int rank, long i) {
        return rank + 1 + (int) (i % 7);
    }

    /** The exact sum of element i over {@code n} ranks. */
    static int sum(int n, long i) {
        return n * (n + 1) / 2 + n * (int) (i % 7);
    }

    @Test
    void aBufferInTheOtherByteOrderIsRefusedByEveryOverload() {
        ThreadRanks.run(2, comm -> {
            int r = comm.rank();
            String order = "buffer is " + OTHER + "; JCCL reads and writes float elements in the platform's byte "
                    + "order (" + ByteOrder.nativeOrder() + "): call buffer.order(ByteOrder.nativeOrder())";
            ByteBuffer other = ByteBuffer.allocate(64).order(OTHER);
            ByteBuffer ok = ByteBuffer.allocate(64).order(ByteOrder.nativeOrder());
            DataType f = DataType.FLOAT32;
            refused(() -> comm.allReduce(other, ok, 4, f, RedOp.SUM), r, Collective.ALL_REDUCE, "send " + order);
            refused(() -> comm.allReduce(ok, other, 4, f, RedOp.SUM), r, Collective.ALL_REDUCE, "receive " + order);
            refused(() -> comm.allReduce(other, other, 4, f, RedOp.SUM), r, Collective.ALL_REDUCE, "send " + order);
            refused(() -> comm.broadcast(ok, other, 4, f, 0), r, Collective.BROADCAST, "receive " + order);
            refused(() -> comm.reduce(other, ok, 4, f, RedOp.MAX, 1), r, Collective.REDUCE, "send " + order);
            refused(() -> comm.allGather(other, ok, 4, f), r, Collective.ALL_GATHER, "send " + order);
            refused(() -> comm.reduceScatter(ok, other, 4, f, RedOp.SUM), r, Collective.REDUCE_SCATTER,
                    "receive " + order);
            refused(() -> comm.allToAll(other, ok, 4, f), r, Collective.ALL_TO_ALL, "send " + order);
            refused(() -> comm.send(other, 4, f, 1 - r), r, Collective.SEND, "send " + order);
            refused(() -> comm.recv(other, 4, f, 1 - r), r, Collective.RECV, "receive " + order);
            // a new ByteBuffer's own order (big-endian), 8-byte elements
            if (ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN) {
                refused(() -> comm.allReduce(ByteBuffer.allocateDirect(64), ok, 4, DataType.FLOAT64, RedOp.SUM), r,
                        Collective.ALL_REDUCE, "send buffer is BIG_ENDIAN", "double elements");
            }
            // nothing was sent: the communicator still works
            comm.allReduce(ok, ok, 4, f, RedOp.SUM);
        });
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"INT8", "UINT8", "FLOAT8_E4M3", "FLOAT8_E5M2"})
    void oneByteTypesWorkInEitherOrder(DataType type) {
        ThreadRanks.run(2, comm -> {
            ByteBuffer b = ByteBuffer.allocate(100).order(OTHER);
            MemorySegment s = MemorySegment.ofBuffer(b);
            for (int i = 0; i < 100; i++) {
                type.setDouble(s, i, comm.rank() + i % 3); // sums of at most 5: exact in fp8 too
            }
            comm.allReduce(b, b, 100, type, RedOp.SUM);
            for (int i = 0; i < 100; i++) {
                assertThat(type.getDouble(s, i)).as("element %d", i).isEqualTo(1 + 2 * (i % 3));
            }
        });
    }

    @ParameterizedTest(name = "{0} floats, direct {1}")
    @CsvSource({"7, false", "7, true", "20001, false", "300001, true", "300001, false"})
    void nativeOrderBuffersWorkFromPositionToLimitAndLeaveTheRestAlone(int count, boolean direct) {
        ThreadRanks.run(2, comm -> {
            int pos = 3; // an odd position: the floats are misaligned in the backing memory
            int capacity = pos + 4 * count + 5;
            ByteBuffer send = (direct ? ByteBuffer.allocateDirect(capacity) : ByteBuffer.allocate(capacity))
                    .order(ByteOrder.nativeOrder());
            ByteBuffer recv = ByteBuffer.allocate(capacity).order(ByteOrder.nativeOrder());
            for (int i = 0; i < capacity; i++) {
                recv.put(i, (byte) 0x5A);
            }
            for (int i = 0; i < count; i++) {
                send.putFloat(pos + 4 * i, input(comm.rank(), i));
            }
            send.position(pos).limit(pos + 4 * count);
            recv.position(pos).limit(capacity - 1);
            comm.allReduce(send, recv, count, DataType.FLOAT32, RedOp.SUM);
            assertThat(send.position()).isEqualTo(pos);
            assertThat(recv.position()).isEqualTo(pos);
            assertThat(recv.limit()).isEqualTo(capacity - 1);
            ByteBuffer all = recv.duplicate().order(ByteOrder.nativeOrder()).clear();
            for (int i = 0; i < count; i++) {
                if (all.getFloat(pos + 4 * i) != sum(2, i)) {
                    throw new AssertionError("element " + i + ": " + all.getFloat(pos + 4 * i));
                }
            }
            for (int i = 0; i < capacity; i++) {
                if (i < pos || i >= pos + 4 * count) {
                    assertThat(all.get(i)).as("byte %d outside the result", i).isEqualTo((byte) 0x5A);
                }
            }
        });
    }

    @Test
    void aCountBeyondTheRemainingBytesIsRefused() {
        ThreadRanks.run(2, comm -> {
            int r = comm.rank();
            ByteBuffer big = ByteBuffer.allocate(400).order(ByteOrder.nativeOrder());
            ByteBuffer tail = big.duplicate().order(ByteOrder.nativeOrder()).position(392);
            refused(() -> comm.allReduce(tail, big, 4, DataType.FLOAT32, RedOp.SUM), r, Collective.ALL_REDUCE,
                    "send buffer has 8 bytes, needs 16");
            refused(() -> comm.allReduce(big, tail, 4, DataType.FLOAT32, RedOp.SUM), r, Collective.ALL_REDUCE,
                    "receive buffer has 8 bytes, needs 16");
            refused(() -> comm.allGather(big.slice(0, 16).order(ByteOrder.nativeOrder()),
                    big.slice(16, 16).order(ByteOrder.nativeOrder()), 4, DataType.FLOAT32), r,
                    Collective.ALL_GATHER, "receive buffer has 16 bytes, needs 32");
            refused(() -> comm.allReduce(new float[4], new float[5], RedOp.SUM), r, Collective.ALL_REDUCE,
                    "send and receive arrays differ in length: 4 vs 5");
        });
    }

    @Test
    void aReadOnlyReceiveBufferIsRefusedAndAReadOnlySendBufferWorks() {
        ThreadRanks.run(2, comm -> {
            int r = comm.rank();
            ByteBuffer data = ByteBuffer.allocateDirect(40).order(ByteOrder.nativeOrder());
            for (int i = 0; i < 10; i++) {
                data.putFloat(4 * i, input(r, i));
            }
            ByteBuffer readOnly = data.asReadOnlyBuffer().order(ByteOrder.nativeOrder());
            String what = "receive buffer is read-only; JCCL writes the result into it";
            refused(() -> comm.allReduce(readOnly, readOnly, 10, DataType.FLOAT32, RedOp.SUM), r,
                    Collective.ALL_REDUCE, what);
            refused(() -> comm.broadcast(data, readOnly, 10, DataType.FLOAT32, 0), r, Collective.BROADCAST, what);
            refused(() -> comm.recv(readOnly, 10, DataType.FLOAT32, 1 - r), r, Collective.RECV, what);
            MemorySegment seg = MemorySegment.ofArray(new float[10]).asReadOnly();
            refused(() -> comm.allReduce(seg, seg, 10, DataType.FLOAT32, RedOp.SUM), r, Collective.ALL_REDUCE, what);
            ByteBuffer result = ByteBuffer.allocate(40).order(ByteOrder.nativeOrder());
            comm.allReduce(readOnly, result, 10, DataType.FLOAT32, RedOp.SUM);
            for (int i = 0; i < 10; i++) {
                assertThat(result.getFloat(4 * i)).as("element %d", i).isEqualTo(sum(2, i));
            }
        });
    }

    @ParameterizedTest(name = "{0} at byte offset {1}, count {2}")
    @CsvSource({"FLOAT32, 1, 7", "FLOAT32, 2, 20001", "FLOAT32, 3, 300001", "FLOAT64, 3, 7", "FLOAT64, 4, 150001",
            "INT64, 5, 20001", "INT32, 1, 300001", "BFLOAT16, 1, 300001"})
    void misalignedElementsGiveExactResults(DataType type, int offset, int count) {
        ThreadRanks.run(2, comm -> {
            long bytes = (long) count * type.sizeBytes();
            MemorySegment nativeSend = Arena.ofAuto().allocate(bytes + 16, 64).asSlice(offset, bytes);
            MemorySegment heapRecv = MemorySegment.ofArray(new byte[(int) bytes + 16]).asSlice(offset + 2, bytes);
            for (int i = 0; i < count; i++) {
                type.setDouble(nativeSend, i, input(comm.rank(), i));
            }
            comm.allReduce(nativeSend, heapRecv, count, type, RedOp.SUM);
            comm.allReduce(nativeSend, nativeSend, count, type, RedOp.SUM);
            for (int i = 0; i < count; i++) {
                if (type.getDouble(heapRecv, i) != sum(2, i) || type.getDouble(nativeSend, i) != sum(2, i)) {
                    throw new AssertionError(type + " element " + i + ": out of place " + type.getDouble(heapRecv, i)
                            + ", in place " + type.getDouble(nativeSend, i) + ", expected " + sum(2, i));
                }
            }
        });
    }

    @ParameterizedTest(name = "{0} floats")
    @ValueSource(ints = {7, 300001})
    void heapArraysWorkOnTheAsynchronousAndGroupedPathsAndWithRegisteredMemory(int count) {
        ThreadRanks.run(2, comm -> {
            float[] a = new float[count];
            float[] b = new float[count];
            for (int i = 0; i < count; i++) {
                a[i] = input(comm.rank(), i);
            }
            MemorySegment registered = comm.allocate(4L * count);
            registered.copyFrom(MemorySegment.ofArray(a));
            comm.allReduceAsync(MemorySegment.ofArray(a), MemorySegment.ofArray(b), count, DataType.FLOAT32,
                    RedOp.SUM).join();
            try (Group g = Jccl.group()) {
                comm.allReduce(a, RedOp.SUM);
            }
            float[] c = new float[count];
            comm.allReduce(registered, MemorySegment.ofArray(c), count, DataType.FLOAT32, RedOp.SUM);
            for (int i = 0; i < count; i++) {
                if (a[i] != sum(2, i) || b[i] != sum(2, i) || c[i] != sum(2, i)) {
                    throw new AssertionError("element " + i + ": async " + b[i] + ", grouped " + a[i]
                            + ", registered send " + c[i] + ", expected " + sum(2, i));
                }
            }
        });
    }

    @Test
    void heapBuffersWorkOverSockets() {
        System.setProperty("NCCL_SHM_DISABLE", "1");
        try {
            ThreadRanks.run(3, comm -> {
                int count = 200_001;
                ByteBuffer b = ByteBuffer.allocate(4 * count).order(ByteOrder.nativeOrder());
                for (int i = 0; i < count; i++) {
                    b.putFloat(4 * i, input(comm.rank(), i));
                }
                comm.allReduce(b, b, count, DataType.FLOAT32, RedOp.SUM);
                for (int i = 0; i < count; i++) {
                    if (b.getFloat(4 * i) != sum(3, i)) {
                        throw new AssertionError("element " + i + ": " + b.getFloat(4 * i));
                    }
                }
            });
        } finally {
            System.clearProperty("NCCL_SHM_DISABLE");
        }
    }

    @Test
    void closedAndConfinedArenasAreRefusedOnEveryPath() {
        ThreadRanks.run(2, comm -> {
            int r = comm.rank();
            MemorySegment closed;
            try (Arena a = Arena.ofShared()) {
                closed = a.allocate(64);
            }
            MemorySegment ok = Arena.ofAuto().allocate(64);
            refused(() -> comm.allReduce(closed, ok, 4, DataType.FLOAT32, RedOp.SUM), r, Collective.ALL_REDUCE,
                    "send buffer is no longer valid: its arena was closed");
            refused(() -> comm.recv(closed, 4, DataType.FLOAT32, 1 - r), r, Collective.RECV,
                    "receive buffer is no longer valid: its arena was closed");
            try (Arena confined = Arena.ofConfined()) {
                MemorySegment mine = confined.allocate(64);
                String what = "buffer belongs to a confined arena (Arena.ofConfined())";
                // refused even where a small synchronous call could have run on this thread
                refused(() -> comm.allReduce(mine, mine, 4, DataType.FLOAT32, RedOp.SUM), r, Collective.ALL_REDUCE,
                        "send " + what, "Arena.ofShared()");
                refused(() -> comm.allGather(ok.asSlice(0, 16), mine, 4, DataType.FLOAT32), r,
                        Collective.ALL_GATHER, "receive " + what);
                assertThatThrownBy(() -> comm.allReduceAsync(mine, ok, 4, DataType.FLOAT32, RedOp.SUM).join())
                        .isInstanceOf(JcclException.class).hasMessageContaining("send " + what);
            }
            assertThat(comm.asyncError()).isNull();
            comm.allReduce(ok, ok, 4, DataType.FLOAT32, RedOp.SUM);
        });
    }

    @Test
    void aBufferThisRankDoesNotUseMayBeNull() {
        ThreadRanks.run(2, comm -> {
            ByteBuffer b = ByteBuffer.allocate(16).order(ByteOrder.nativeOrder());
            if (comm.rank() == 0) {
                b.putInt(0, 42).putInt(12, 7);
            }
            comm.broadcast(comm.rank() == 0 ? b : null, b, 4, DataType.INT32, 0);
            assertThat(b.getInt(0)).isEqualTo(42);
            assertThat(b.getInt(12)).isEqualTo(7);
            assertThat(MemorySegment.ofBuffer(b).get(ValueLayout.JAVA_INT_UNALIGNED, 0)).isEqualTo(42);
        });
    }
}
