package io.jccl;

import io.jccl.testing.ThreadRanks;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A {@link ByteBuffer} in the other byte order than the platform's (a heap buffer's default is big-endian) is refused
 * naming the byte order, on every ByteBuffer overload, instead of being reduced as byte-swapped numbers; in the
 * platform's order the same buffers give exact results; one-byte types take any order.
 */
class ByteOrderTest {
    private static final ByteOrder OTHER = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN
            ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;

    @Test
    void aBufferInTheOtherByteOrderIsRefusedNamingIt() {
        ThreadRanks.run(2, comm -> {
            int n = comm.size();
            ByteBuffer wrong = ByteBuffer.allocate(4 * 8 * n).order(OTHER);
            ByteBuffer right = ByteBuffer.allocate(4 * 8 * n).order(ByteOrder.nativeOrder());
            String order = OTHER.toString();
            assertRefused(() -> comm.allReduce(wrong, right, 8, DataType.FLOAT32, RedOp.SUM), "AllReduce", order);
            assertRefused(() -> comm.allReduce(right, wrong, 8, DataType.FLOAT32, RedOp.SUM), "AllReduce", order);
            assertRefused(() -> comm.broadcast(wrong, wrong, 8, DataType.INT32, 0), "Broadcast", order);
            assertRefused(() -> comm.reduce(wrong, right, 8, DataType.FLOAT64, RedOp.MAX, 0), "Reduce", order);
            assertRefused(() -> comm.allGather(wrong, right, 8, DataType.FLOAT16), "AllGather", order);
            assertRefused(() -> comm.reduceScatter(wrong, right, 8, DataType.BFLOAT16, RedOp.SUM), "ReduceScatter",
                    order);
            assertRefused(() -> comm.allToAll(wrong, right, 8, DataType.INT64), "AllToAll", order);
            assertRefused(() -> comm.send(wrong, 8, DataType.FLOAT32, 1 - comm.rank()), "Send", order);
            assertRefused(() -> comm.recv(wrong, 8, DataType.FLOAT32, 1 - comm.rank()), "Recv", order);
            // refused before anything moved: the communicator still works, and one-byte types take any order
            ByteBuffer bytes = ByteBuffer.allocate(8).order(OTHER);
            for (int i = 0; i < 8; i++) {
                bytes.put(i, (byte) (comm.rank() + i));
            }
            comm.allReduce(bytes, bytes, 8, DataType.INT8, RedOp.SUM);
            for (int i = 0; i < 8; i++) {
                assertThat(bytes.get(i)).isEqualTo((byte) (1 + 2 * i));
            }
        });
    }

    @Test
    void heapBuffersInThePlatformOrderGiveExactResults() {
        ThreadRanks.run(3, comm -> {
            int count = 1000;
            ByteBuffer b = ByteBuffer.allocate(4 * count).order(ByteOrder.nativeOrder());
            for (int i = 0; i < count; i++) {
                b.putFloat(4 * i, comm.rank() * 0.5f + i);
            }
            comm.allReduce(b, b, count, DataType.FLOAT32, RedOp.SUM);
            for (int i = 0; i < count; i++) {
                assertThat(b.getFloat(4 * i)).isEqualTo(1.5f + 3 * i);
            }
        });
    }

    private static void assertRefused(Runnable call, String name, String order) {
        assertThatThrownBy(call::run).isInstanceOf(JcclException.class)
                .satisfies(e -> assertThat(((JcclException) e).result()).isEqualTo(Result.INVALID_ARGUMENT))
                .hasMessageContaining(name).hasMessageContaining(order).hasMessageContaining("rank ");
    }
}
