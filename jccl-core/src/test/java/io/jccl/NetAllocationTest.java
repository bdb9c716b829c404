package io.jccl;

import io.jccl.testing.ThreadRanks;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The network path allocates nothing in steady state: the proxy threads (and the socket plugin's helper threads)
 * of both ranks, measured with the JVM's per-thread allocation counters over rounds of allReduce over TCP.
 */
class NetAllocationTest {
    private static final List<String> PROPS = List.of("NCCL_SHM_DISABLE", "NCCL_SOCKET_NTHREADS",
            "NCCL_NSOCKS_PERTHREAD", "JCCL_NET_CHECKSUM");

    @AfterEach
    void restore() {
        PROPS.forEach(System::clearProperty);
    }

    private static long netThreadsAllocatedBytes() throws ReflectiveOperationException {
        long[] ids = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().endsWith("-proxy") || t.getName().startsWith("jccl-sock-helper"))
                .mapToLong(Thread::threadId).toArray();
        Class<?> factory = Class.forName("java.lang.management.ManagementFactory");
        Object bean = factory.getMethod("getThreadMXBean").invoke(null);
        long[] bytes = (long[]) Class.forName("com.sun.management.ThreadMXBean")
                .getMethod("getThreadAllocatedBytes", long[].class).invoke(bean, (Object) ids);
        long sum = 0;
        for (long b : bytes) {
            sum += Math.max(0, b);
        }
        return sum;
    }

    @ParameterizedTest(name = "{0} threads x {1} sockets, checksum {2}")
    @CsvSource({"1, 1, on", "2, 2, on", "1, 2, off"})
    void proxyAndHelpersAllocateNothing(int threads, int socks, String checksum) {
        System.setProperty("NCCL_SHM_DISABLE", "1");
        System.setProperty("NCCL_SOCKET_NTHREADS", "" + threads);
        System.setProperty("NCCL_NSOCKS_PERTHREAD", "" + socks);
        System.setProperty("JCCL_NET_CHECKSUM", checksum);
        int count = 100_000;
        long[] quietest = {Long.MAX_VALUE};
        ThreadRanks.run(2, comm -> {
            MemorySegment send = Arena.ofAuto().allocate(4L * count, 64);
            MemorySegment recv = Arena.ofAuto().allocate(4L * count, 64);
            for (int i = 0; i < 300; i++) {
                comm.allReduce(send, recv, count, DataType.FLOAT32, RedOp.SUM);
            }
            for (int round = 0; round < 4; round++) {
                comm.barrier();
                long before = comm.rank() == 0 ? netThreadsAllocatedBytes() : 0;
                for (int i = 0; i < 200; i++) {
                    comm.allReduce(send, recv, count, DataType.FLOAT32, RedOp.SUM);
                }
                comm.barrier();
                if (comm.rank() == 0) {
                    quietest[0] = Math.min(quietest[0], netThreadsAllocatedBytes() - before);
                }
            }
        });
        assertThat(quietest[0]).as("bytes allocated by the proxy and helper threads of both ranks over 200 allReduce"
                + " calls of %d floats", count).isLessThanOrEqualTo(AllocationTest.BOUND);
    }
}
