package io.jccl.internal.profile;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.RedOp;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The probe on every call allocates nothing while no JFR recording runs and no profiler is installed (the
 * communicator-level bound is {@code AllocationTest}; this isolates the probe from the transports).
 */
class ProbeAllocationTest {
    static long allocatedBytes() throws ReflectiveOperationException {
        Class<?> factory = Class.forName("java.lang.management.ManagementFactory");
        Object bean = factory.getMethod("getThreadMXBean").invoke(null);
        return (long) Class.forName("com.sun.management.ThreadMXBean").getMethod("getCurrentThreadAllocatedBytes")
                .invoke(bean);
    }

    @Test
    void beginAndEndAllocateNothingWhenNobodyObserves() throws Exception {
        CommProbe probe = Probes.standalone();
        MemorySegment buf = Arena.ofAuto().allocate(1 << 20, 64);
        assertThat(JfrGate.on()).isFalse();
        assertThat(Profilers.active()).isEmpty();
        for (int i = 0; i < 200_000; i++) {
            call(probe, i, buf);
        }
        long before = allocatedBytes();
        for (int i = 0; i < 100_000; i++) {
            call(probe, i, buf);
        }
        assertThat(allocatedBytes() - before).isLessThanOrEqualTo(4096);
        assertThat(probe.counters().operations()).isEqualTo(900_000);
        assertThat(probe.counters().operationsByAlgorithm()).containsEntry("RING/SIMPLE", 600_000L)
                .containsEntry("P2P/SIMPLE", 300_000L);
    }

    private static void call(CommProbe probe, long seq, MemorySegment buf) {
        probe.begin(Collective.ALL_REDUCE, seq, 256 + (seq & 7), DataType.FLOAT32, RedOp.SUM, -1, -1, buf, buf,
                Probes.choice(Collective.ALL_REDUCE, 256 + (seq & 7)));
        probe.end(null);
        probe.begin(Collective.SEND, seq, 64, DataType.BFLOAT16, null, -1, 1, buf, null,
                Probes.choice(Collective.SEND, 64));
        probe.launched(null);
        probe.begin(Collective.BROADCAST, seq, 64, DataType.INT8, null, 0, -1, buf, buf,
                Probes.choice(Collective.BROADCAST, 64));
        probe.failed(null);
    }
}
