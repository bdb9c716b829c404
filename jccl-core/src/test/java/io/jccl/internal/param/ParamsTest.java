package io.jccl.internal.param;

import io.jccl.JcclException;
import io.jccl.Result;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

class ParamsTest {

    @Test
    void everyParameterIsDeclaredOnceWithAPrefixAndADoc() {
        Set<String> names = new HashSet<>();
        for (Param<?> p : Params.all()) {
            assertThat(names.add(p.name())).as("declared twice: %s", p.name()).isTrue();
            assertThat(p.doc()).as(p.name()).isNotBlank();
            if (p.kind() == Param.Kind.PROPERTY) {
                assertThat(p.name()).startsWith("jccl.");
            } else {
                assertThat(p.name()).matches("(NCCL|JCCL)_[A-Z0-9_]+");
            }
            if (!p.defaultText().equals("(unset)")) {
                assertThat(p.problemWith(p.defaultText())).as("the default of %s must be valid", p.name()).isNull();
            }
        }
        assertThat(names).contains("NCCL_DEBUG", "NCCL_BUFFSIZE", "NCCL_ALGO", "NCCL_TOPO_FILE", "JCCL_TIMEOUT_MS",
                "JCCL_HOST_SHM_BW_GBPS_LL128", "JCCL_PERF_JIT_WARMUP", "jccl.spins", "jccl.cuda.ringSlotBytes");
    }

    @Test
    void numbersParseLikeStrtollWithSizeSuffixes() {
        assertThat(ParamType.parseLong("4194304")).isEqualTo(4194304);
        assertThat(ParamType.parseLong("0x10")).isEqualTo(16);
        assertThat(ParamType.parseLong("010")).isEqualTo(8);
        assertThat(ParamType.parseLong("4M")).isEqualTo(4L << 20);
        assertThat(ParamType.parseLong("2k")).isEqualTo(2048);
        assertThat(ParamType.parseLong("-3")).isEqualTo(-3);
        assertThatThrownBy(() -> ParamType.parseLong("four")).isInstanceOf(NumberFormatException.class);
        assertThatThrownBy(() -> ParamType.parseLong("9999999999G")).isInstanceOf(NumberFormatException.class);
        assertThat(ParamType.parseBoolean("On")).isTrue();
        assertThat(ParamType.parseBoolean("0")).isFalse();
    }

    @Test
    void systemPropertyBeatsEnvironmentBeatsDefault() {
        try (var s = ParamSources.use(ParamSources.of(Map.of(), Map.of("NCCL_BUFFSIZE", "8M")))) {
            assertThat(Params.BUFFSIZE.get()).isEqualTo(8L << 20);
            assertThat(Params.BUFFSIZE.source()).isEqualTo("environment");
        }
        try (var s = ParamSources.use(ParamSources.of(Map.of("NCCL_BUFFSIZE", "2M"), Map.of("NCCL_BUFFSIZE", "8M")))) {
            assertThat(Params.BUFFSIZE.get()).isEqualTo(2L << 20);
            assertThat(Params.BUFFSIZE.source()).isEqualTo("system property");
        }
        try (var s = ParamSources.use(ParamSources.of(Map.of(), Map.of("NCCL_BUFFSIZE", "  ")))) {
            assertThat(Params.BUFFSIZE.isSet()).isFalse();
            assertThat(Params.BUFFSIZE.get()).isEqualTo(4L << 20);
            assertThat(Params.BUFFSIZE.source()).isEqualTo("default");
        }
    }

    @Test
    void badValuesAreErrorsNamingTheVariableAndWhereItWasSet() {
        try (var s = ParamSources.use(ParamSources.of(Map.of(), Map.of("NCCL_BUFFSIZE", "big", "NCCL_MAX_NCHANNELS",
                "65", "NCCL_DEBUG", "LOUD", "JCCL_JMX", "maybe")))) {
            assertThatThrownBy(Params.BUFFSIZE::get).isInstanceOf(JcclException.class)
                    .hasMessageContaining("NCCL_BUFFSIZE=big (environment) is not an integer")
                    .satisfies(e -> assertThat(((JcclException) e).result()).isEqualTo(Result.INVALID_ARGUMENT));
            assertThatThrownBy(Params.MAX_NCHANNELS::get).hasMessageContaining("must be within 0..64");
            assertThatThrownBy(Params.DEBUG_LEVEL::get).hasMessageContaining("'LOUD' is not one of NONE, VERSION");
            assertThatThrownBy(Params.JMX::get).hasMessageContaining("not a boolean");
            assertThat(Params.MAX_NCHANNELS.valueText()).isEqualTo("65 (invalid)");
        }
        try (var s = ParamSources.use(ParamSources.of(Map.of(), Map.of("NCCL_DEBUG", "info", "NCCL_DEBUG_SUBSYS",
                "INIT,GRAF")))) {
            assertThat(Params.DEBUG_LEVEL.get()).isEqualTo("INFO");
            assertThat(Params.DEBUG_SUBSYS.problem()).contains("unknown subsystem 'GRAF'");
        }
    }

    @Test
    void configFilesComeAfterTheEnvironmentAndTheUserFileBeatsTheSystemFile(@TempDir Path dir) throws IOException {
        Path system = dir.resolve("etc-nccl.conf");
        Path user = dir.resolve("user.conf");
        Files.writeString(system, "# system\nNCCL_SOCKET_IFNAME=eth\nNCCL_BUFFSIZE=1M\nJCCL_TIMEOUT_MS=5000\n");
        Files.writeString(user, "NCCL_BUFFSIZE = 2M\n\nnot a setting\n");
        ParamSources s = ParamSources.withConfigFiles(Map.of(), Map.of("NCCL_CONF_FILE", user.toString(),
                "JCCL_TIMEOUT_MS", "7000"), system);
        try (var installed = ParamSources.use(s)) {
            assertThat(Params.BUFFSIZE.get()).isEqualTo(2L << 20);
            assertThat(Params.BUFFSIZE.source()).isEqualTo("config file " + user);
            assertThat(Params.SOCKET_IFNAME.get()).isEqualTo("eth");
            assertThat(Params.TIMEOUT_MS.get()).isEqualTo(7000L);
        }
        assertThat(s.problems()).singleElement().asString().contains("user.conf:3").contains("expected NAME=value");
        ParamSources missing = ParamSources.withConfigFiles(Map.of(), Map.of("NCCL_CONF_FILE",
                dir.resolve("nope.conf").toString()), system);
        assertThat(missing.problems()).singleElement().asString().contains("does not exist");
    }

    @Test
    void internalPropertiesComeOnlyFromSystemProperties() {
        Param<?> spins = Params.find("jccl.spins").orElseThrow();
        assertThat(spins.kind()).isEqualTo(Param.Kind.PROPERTY);
        try (var s = ParamSources.use(ParamSources.of(Map.of(), Map.of("jccl.spins", "3")))) {
            assertThat(spins.isSet()).isFalse();
        }
        try (var s = ParamSources.use(ParamSources.of(Map.of("jccl.spins", "3"), Map.of()))) {
            assertThat(spins.get()).isEqualTo(3);
        }
    }

    @Test
    void unknownNamesGetASuggestionAndNcclOnlyNamesAreToldApart() {
        ParamSources s = ParamSources.of(Map.of("JCCL_TIMEOUT_MSEC", "5"), Map.of("NCCL_BUFSIZE", "1M",
                "NCCL_IB_HCA", "mlx5_0", "NCCL_ZZZ_QQQ", "1", "NCCL_NCHANNELS", "4", "NCCL_PROTO", "LL",
                "NCCL_CROSS_NIC", "7", "OTHER", "x", "NCCL_SOCKET_IFNAM", "eth0", "NCCL_SOCKET_RETRY_CNT", "4",
                "JCCL_EMU_DEVICES", "4"));   // the test emulator's own setting: not JCCL's, not unknown
        List<ParamCheck.Finding> f = ParamCheck.inspect(s);
        assertThat(f).extracting(ParamCheck.Finding::kind, ParamCheck.Finding::name).containsExactly(
                tuple(ParamCheck.Kind.UNKNOWN, "JCCL_TIMEOUT_MSEC"),
                tuple(ParamCheck.Kind.UNKNOWN, "NCCL_BUFSIZE"),
                tuple(ParamCheck.Kind.UNKNOWN, "NCCL_SOCKET_IFNAM"),
                tuple(ParamCheck.Kind.UNKNOWN, "NCCL_ZZZ_QQQ"),
                tuple(ParamCheck.Kind.NO_EFFECT, "NCCL_IB_HCA"),
                tuple(ParamCheck.Kind.NO_EFFECT, "NCCL_NCHANNELS"),
                tuple(ParamCheck.Kind.NO_EFFECT, "NCCL_SOCKET_RETRY_CNT"),
                tuple(ParamCheck.Kind.INVALID, "NCCL_CROSS_NIC"));
        assertThat(f.get(0).message()).contains("did you mean JCCL_TIMEOUT_MS?");
        assertThat(f.get(1).message()).contains("did you mean NCCL_BUFFSIZE?");
        assertThat(f.get(2).message()).contains("did you mean NCCL_SOCKET_IFNAME?");
        assertThat(f.get(3).message()).doesNotContain("did you mean");
        assertThat(f.get(7).message()).contains("NCCL_CROSS_NIC=7 (environment) must be within 0..2");
        assertThat(ParamCheck.setValues(s)).extracting(v -> v.param().name()).containsExactly("NCCL_CROSS_NIC",
                "NCCL_PROTO");
    }

    @Test
    void levenshteinDistance() {
        assertThat(ParamCheck.distance("NCCL_BUFSIZE", "NCCL_BUFFSIZE")).isEqualTo(1);
        assertThat(ParamCheck.distance("abc", "abc")).isZero();
        assertThat(ParamCheck.distance("", "abc")).isEqualTo(3);
        assertThat(ParamCheck.distance("kitten", "sitting")).isEqualTo(3);
    }
}
