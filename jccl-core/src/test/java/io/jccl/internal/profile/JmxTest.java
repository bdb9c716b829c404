package io.jccl.internal.profile;

import io.jccl.CommunicatorMXBean;
import io.jccl.DataType;
import io.jccl.RedOp;
import io.jccl.internal.param.ParamSources;
import io.jccl.testing.ThreadRanks;
import org.junit.jupiter.api.Test;

import javax.management.JMX;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class JmxTest {

    @Test
    void countersAreReadableOverJmxWhileTheCommunicatorIsOpen() {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        Set<ObjectName> names = ConcurrentHashMap.newKeySet();
        ThreadRanks.run(2, comm -> {
            float[] small = {1, 2, 3};
            comm.allReduce(small, RedOp.SUM);
            comm.allReduce(small, RedOp.MAX);
            MemorySegment big = Arena.ofAuto().allocate(4L * 200_000);   // above 2 ranks' one-shot limit (512 KiB)
            comm.allReduce(big, big, 200_000, DataType.FLOAT32, RedOp.SUM);
            comm.broadcast(big, big, 1000, DataType.INT64, 0);
            ObjectName name = Probes.of(comm).jmx().registration().get(30, TimeUnit.SECONDS);
            names.add(name);
            assertThat(name).isEqualTo(CommJmx.objectName(comm.id(), comm.rank()));
            CommunicatorMXBean bean = JMX.newMXBeanProxy(server, name, CommunicatorMXBean.class);
            assertThat(bean.getCommId()).isEqualTo(comm.id());
            assertThat(bean.getRank()).isEqualTo(comm.rank());
            assertThat(bean.getSize()).isEqualTo(2);
            assertThat(bean.getNodes()).isEqualTo(1);
            assertThat(bean.getChannels()).isPositive();
            assertThat(bean.isBroken()).isFalse();
            assertThat(bean.getAsyncError()).isEmpty();
            assertThat(bean.getOperations()).isEqualTo(4);
            assertThat(bean.getBytes()).isEqualTo(12 + 12 + 800_000 + 8000);
            assertThat(bean.getFailedOperations()).isZero();
            assertThat(bean.getOperationsByCollective()).isEqualTo(Map.of("AllReduce", 3L, "Broadcast", 1L));
            // the ring calls' protocols are the cost model's choice per size; count them over RING/*
            Map<String, Long> ops = bean.getOperationsByAlgorithm();
            assertThat(ops).containsEntry("ONE_SHOT/SIMPLE", 2L);
            assertThat(ops.entrySet().stream().filter(e -> e.getKey().startsWith("RING/"))
                    .mapToLong(Map.Entry::getValue).sum()).isEqualTo(2L);
            assertThat(bean.getBytesByAlgorithm().entrySet().stream().filter(e -> e.getKey().startsWith("RING/"))
                    .mapToLong(Map.Entry::getValue).sum()).isEqualTo(808_000L);
            assertThat(bean.getInitMillis()).isPositive();
            assertThat(bean.getInitPhaseMillis()).containsOnlyKeys("BOOTSTRAP", "PEER_INFO", "TRANSPORTS", "CONNECT",
                    "SHARED_MEMORY", "RUNTIME");
            assertThat(server.getAttribute(name, "Operations")).isEqualTo(4L);
        });
        assertThat(names).hasSize(2).allSatisfy(n -> assertThat(server.isRegistered(n)).as("%s after close", n)
                .isFalse());
    }

    @Test
    void jcclJmxOffRegistersNothing() {
        try (var s = ParamSources.use(ParamSources.of(Map.of(), Map.of("JCCL_JMX", "0")))) {
            ThreadRanks.run(2, comm -> assertThat(Probes.of(comm).jmx()).isNull());
        }
    }
}
