package io.jccl.internal.tuning;

import io.jccl.Collective;
import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.topology.Fixtures;
import io.jccl.internal.topology.TopoParams;
import io.jccl.internal.topology.setup.TopoSetup;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URL;
import java.net.URLClassLoader;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TunerPluginTest {
    private static TuningTopology dgx() {
        return TuningTopology.from(TopoSetup.simulate(Fixtures.xml(Fixtures.DGX_H100), 8, 0, TopoParams.defaults(), 0,
                0, 2, 6));
    }

    @BeforeEach
    void reset() {
        TestTunerPlugin.CALLS.clear();
        TestTunerPlugin.failNext = false;
    }

    /**
     * The plugin's service file lives in a directory of its own (not on the test class path), so that no other test
     * picks the plugin up by accident; a class loader over that directory finds it as ServiceLoader would in a jar.
     */
    private static ClassLoader pluginLoader() throws Exception {
        URL dir = TunerPluginTest.class.getResource("/tuner-plugin-fixture/");
        return new URLClassLoader(new URL[] {dir}, TunerPluginTest.class.getClassLoader());
    }

    @Test
    void serviceLoaderFindsThePluginAndTheSettingSelects() throws Exception {
        assertThat(TunerPlugins.available(null)).extracting(TunerPlugin::name).doesNotContain("test-tuner");
        List<TunerPlugin> all = TunerPlugins.available(pluginLoader());
        assertThat(all).extracting(TunerPlugin::name).contains("test-tuner");
        assertThat(TunerPlugins.select(null, all)).isInstanceOf(TestTunerPlugin.class);
        assertThat(TunerPlugins.select("TEST-TUNER", all)).isInstanceOf(TestTunerPlugin.class);
        assertThat(TunerPlugins.select(TestTunerPlugin.class.getName(), all)).isInstanceOf(TestTunerPlugin.class);
        assertThat(TunerPlugins.select("none", all)).isNull();
        assertThat(TunerPlugins.select(null, List.of())).isNull();
        assertThatThrownBy(() -> TunerPlugins.select("libnccl-tuner-x.so", all))
                .isInstanceOfSatisfying(JcclException.class, e -> {
                    assertThat(e.result()).isEqualTo(Result.INVALID_ARGUMENT);
                    assertThat(e.getMessage()).contains("matches no installed tuner plugin").contains("test-tuner");
                });
    }

    @Test
    void pluginEditsTheTableAndCapsChannels() {
        try (Tuner t = Tuner.forGpu(dgx(), TuningParams.defaults(), new TestTunerPlugin())) {
            ModelChoice s = t.select(Collective.ALL_REDUCE, 8, 1);
            // Without the plugin: Ring/LL (15.0 us). The plugin rules it out and makes Tree/Simple 0.5 us.
            assertThat(s.algorithm()).isEqualTo(Algorithm.TREE);
            assertThat(s.protocol()).isEqualTo(Protocol.SIMPLE);
            assertThat(s.timeUs()).isEqualTo(0.5);
            Candidate ringLl = s.candidates().stream().filter(c -> c.algorithm() == Algorithm.RING
                    && c.protocol() == Protocol.LL).findFirst().orElseThrow();
            assertThat(ringLl.disabledBy()).isEqualTo("ruled out by tuner plugin test-tuner");
            Candidate nvls = s.candidates().stream().filter(c -> c.algorithm() == Algorithm.NVLS
                    && c.protocol() == Protocol.SIMPLE).findFirst().orElseThrow();
            assertThat(nvls.usable()).isFalse();
            // 1 GiB would use all 24 channels; the plugin caps them at 3.
            assertThat(t.select(Collective.ALL_REDUCE, 1 << 30, 1).nChannels()).isEqualTo(3);
        }
        assertThat(TestTunerPlugin.CALLS).containsExactly("init 8 1", "getCollInfo AllReduce 8 24",
                "getCollInfo AllReduce 1073741824 24", "close");
    }

    @Test
    void aFailingPluginIsIgnored() {
        try (Tuner t = Tuner.forGpu(dgx(), TuningParams.defaults(), new TestTunerPlugin())) {
            TestTunerPlugin.failNext = true;
            ModelChoice s = t.select(Collective.ALL_REDUCE, 8, 1);
            assertThat(s.algorithm()).isEqualTo(Algorithm.RING);
            assertThat(s.protocol()).isEqualTo(Protocol.LL);
        }
    }

    @Test
    void tiesGoToTheHigherNcclId() {
        // A plugin that makes every usable candidate equally fast: NCCL's list is built by front insertion, so the
        // highest id (Ring = 1, Simple = 2 -> id 5) wins among equals.
        TunerPlugin flat = new TunerPlugin() {
            @Override
            public String name() {
                return "flat";
            }

            @Override
            public void init(int nRanks, int nNodes) {
            }

            @Override
            public int getCollInfo(Collective coll, long nBytes, int numPipeOps, CostTable table, int maxChannels) {
                for (Algorithm a : Algorithm.values()) {
                    for (Protocol p : Protocol.values()) {
                        if (table.get(a, p) > 0) {
                            table.set(a, p, 7.0);
                        }
                    }
                }
                return maxChannels;
            }

            @Override
            public void close() {
            }
        };
        try (Tuner t = Tuner.forGpu(dgx(), TuningParams.defaults(), flat)) {
            ModelChoice s = t.select(Collective.ALL_REDUCE, 1024, 1);
            assertThat(s.algorithm()).isEqualTo(Algorithm.RING);
            assertThat(s.protocol()).isEqualTo(Protocol.SIMPLE);
        }
    }
}
