package io.jccl.internal.tuning;

import io.jccl.Collective;
import io.jccl.internal.topology.Fixtures;
import io.jccl.internal.topology.TopoEnv;
import io.jccl.internal.topology.TopoParams;
import io.jccl.internal.topology.setup.TopoSetup;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The allocation-free {@link Tuner#choose} agrees with {@link Tuner#select} and allocates nothing. */
class TunerChooseTest {
    private static final Collective[] TUNED = {Collective.BROADCAST, Collective.REDUCE, Collective.ALL_GATHER,
        Collective.REDUCE_SCATTER, Collective.ALL_REDUCE};

    private static TuningTopology topo(String fixture, int nRanks) {
        return TuningTopology.from(TopoSetup.simulate(Fixtures.xml(fixture), nRanks, 0, TopoParams.defaults(), 0, 0,
                2, 6));
    }

    @Test
    void chooseAndSelectAgreeEverywhere() {
        List<Tuner> tuners = List.of(
                Tuner.forGpu(topo(Fixtures.DGX_H100, 8), TuningParams.defaults(), null),
                Tuner.forGpu(topo(Fixtures.DGX_H100, 64), TuningParams.defaults(), null),
                Tuner.forGpu(topo(Fixtures.TWO_GPU_NIC_NODE, 4), TuningParams.defaults(), null),
                Tuner.forGpu(topo(Fixtures.PCIE_2SOCKET, 4),
                        TuningParams.from(TopoEnv.of(Map.of("NCCL_PROTO", "^LL"))), null),
                Tuner.forGpu(topo(Fixtures.NVLINK_PAIR, 2), TuningParams.defaults(), new TestTunerPlugin()),
                Tuner.forHost(topo(Fixtures.PCIE_2SOCKET, 4), TuningParams.defaults(), HostModelParams.defaults(),
                        null));
        int checked = 0;
        for (Tuner t : tuners) {
            for (Collective c : TUNED) {
                for (long n = 0; n <= 1L << 32; n = n == 0 ? 1 : n * 3) {
                    ModelChoice s = t.select(c, n, 1);
                    long packed = t.choose(c, n, 1);
                    String what = c + " " + n + " " + t.model().name();
                    assertThat(Tuner.algorithmOf(packed)).as(what).isEqualTo(s.algorithm());
                    assertThat(Tuner.protocolOf(packed)).as(what).isEqualTo(s.protocol());
                    assertThat(Tuner.channelsOf(packed)).as(what).isEqualTo(s.nChannels());
                    assertThat(Tuner.threadsOf(packed)).as(what).isEqualTo(s.nThreads());
                    checked++;
                }
            }
            t.close();
        }
        assertThat(checked).isGreaterThan(500);
    }

    /**
     * Bytes allocated so far by this thread, through com.sun.management.ThreadMXBean (reached reflectively: the test
     * is compiled into the io.jccl module, which does not read java.management).
     */
    private static long allocatedBytes() {
        try {
            Object mx = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean")
                    .invoke(null);
            Method m = Class.forName("com.sun.management.ThreadMXBean").getMethod("getCurrentThreadAllocatedBytes");
            return (long) m.invoke(mx);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("cannot read allocated bytes", e);
        }
    }

    @Test
    void chooseAllocatesNothing() {
        Tuner gpu = Tuner.forGpu(topo(Fixtures.DGX_H100, 16), TuningParams.defaults(), null);
        Tuner withPlugin = Tuner.forGpu(topo(Fixtures.NVLINK_PAIR, 2), TuningParams.defaults(), new NoOpPlugin());
        long sink = 0;
        for (int i = 0; i < 20_000; i++) { // warm up (class init, JIT)
            sink += gpu.choose(Collective.ALL_REDUCE, 1L << (i % 30), 1);
            sink += withPlugin.choose(Collective.ALL_GATHER, 1L << (i % 30), 1);
        }
        long before = allocatedBytes();
        for (int i = 0; i < 100_000; i++) {
            sink += gpu.choose(TUNED[i % 5], 1L << (i % 33), 1);
            sink += withPlugin.choose(TUNED[i % 5], 1L << (i % 33), 1);
        }
        long allocated = allocatedBytes() - before;
        assertThat(sink).isNotZero();
        assertThat(allocated).as("bytes allocated by 200000 choose() calls").isLessThan(4096);
    }

    /** A plugin that leaves everything as it is (and allocates nothing). */
    private static final class NoOpPlugin implements TunerPlugin {
        @Override
        public String name() {
            return "noop";
        }

        @Override
        public void init(int nRanks, int nNodes) {
        }

        @Override
        public int getCollInfo(Collective coll, long nBytes, int numPipeOps, CostTable table, int maxChannels) {
            return maxChannels;
        }

        @Override
        public void close() {
        }
    }
}
