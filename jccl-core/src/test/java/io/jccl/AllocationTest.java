package io.jccl;

import io.jccl.testing.ThreadRanks;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The allReduce path allocates nothing in steady state: 10,000 calls after warm-up (the quietest of five such rounds),
 * measured with the JVM's per-thread allocation counter on the calling thread (small calls run there; the channel
 * workers stay idle).
 */
class AllocationTest {
    /** Bytes tolerated over 10,000 calls (JIT deoptimisation or a lazily created lambda may allocate once or twice). */
    static final long BOUND = 16 * 1024;

    /** This thread's allocated bytes (com.sun.management.ThreadMXBean, reached reflectively: core reads no JMX module). */
    static long allocatedBytes() throws ReflectiveOperationException {
        Class<?> factory = Class.forName("java.lang.management.ManagementFactory");
        Object bean = factory.getMethod("getThreadMXBean").invoke(null);
        return (long) Class.forName("com.sun.management.ThreadMXBean").getMethod("getCurrentThreadAllocatedBytes")
                .invoke(bean);
    }

    @ParameterizedTest(name = "{0} floats")
    @ValueSource(ints = {2, 256, 60_000})
    void allReduceAllocatesNothing(int count) {
        ThreadRanks.run(2, comm -> {
            MemorySegment send = Arena.ofAuto().allocate(4L * count, 64);
            MemorySegment recv = Arena.ofAuto().allocate(4L * count, 64);
            for (int i = 0; i < 20_000; i++) {
                comm.allReduce(send, recv, count, DataType.FLOAT32, RedOp.SUM);
            }
            // the JIT may still replace code during the first rounds (a transient allocation of ~40 bytes a call while a
            // method is recompiled, which on 2 busy cores can outlast five rounds); steady state is the quietest of
            // fifteen rounds, the same count on every rank
            long allocated = Long.MAX_VALUE;
            for (int round = 0; round < 15; round++) {
                long before = allocatedBytes();
                for (int i = 0; i < 10_000; i++) {
                    comm.allReduce(send, recv, count, DataType.FLOAT32, RedOp.SUM);
                }
                allocated = Math.min(allocated, allocatedBytes() - before);
            }
            assertThat(allocated).as("bytes allocated by rank %d over 10,000 allReduce calls", comm.rank())
                    .isLessThanOrEqualTo(BOUND);
        });
    }
}
