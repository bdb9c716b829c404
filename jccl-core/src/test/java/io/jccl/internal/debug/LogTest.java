package io.jccl.internal.debug;

import io.jccl.internal.param.ParamSources;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class LogTest {

    @Test
    void levelsAndSubsystemsFilterLikeNccl() {
        try (LogCapture c = LogCapture.start(Log.Level.INFO, "INIT,NET")) {
            Log.info(Subsys.INIT, 0, "init %d", 1);
            Log.info(Subsys.TUNING, 0, "tuning");
            Log.info(Subsys.NET, 1, "net");
            Log.trace(Subsys.INIT, 0, "trace");
            Log.warn(2, "warn %s", "x");
            Log.version("version");
            assertThat(c.messages()).containsExactly("init 1", "net", "warn x", "version");
            assertThat(c.lines().get(1).rank()).isEqualTo(1);
            assertThat(Log.enabled(Log.Level.INFO, Subsys.TUNING)).isFalse();
        }
        try (LogCapture c = LogCapture.start(Log.Level.TRACE, "^INIT")) {
            Log.trace(Subsys.INIT, 0, "no");
            Log.trace(Subsys.GRAPH, 0, "yes");
            assertThat(c.messages()).containsExactly("yes");
        }
        try (LogCapture c = LogCapture.start(Log.Level.VERSION, "ALL")) {
            Log.warn(0, "warn");
            Log.info(Subsys.INIT, 0, "info");
            Log.version("v");
            assertThat(c.messages()).containsExactly("v");
        }
        try (LogCapture c = LogCapture.start(Log.Level.NONE, "ALL")) {
            Log.warn(0, "warn");
            Log.version("v");
            assertThat(c.messages()).isEmpty();
        }
    }

    @Test
    void parsingFallsBackToNcclDefaults() {
        assertThat(Log.parseLevel(null)).isEqualTo(Log.Level.WARN);
        assertThat(Log.parseLevel("trace")).isEqualTo(Log.Level.TRACE);
        assertThat(Log.parseLevel("LOUD")).isEqualTo(Log.Level.WARN);
        assertThat(Log.parseSubsys(null)).isEqualTo(Subsys.INIT.bit() | Subsys.BOOTSTRAP.bit() | Subsys.ENV.bit());
        assertThat(Log.parseSubsys("coll,p2p")).isEqualTo(Subsys.COLL.bit() | Subsys.P2P.bit());
        assertThat(Log.parseSubsys("^COLL") & Subsys.COLL.bit()).isZero();
        assertThat(Log.parseSubsys("^COLL") & Subsys.NET.bit()).isNotZero();
    }

    @Test
    void linesHaveNcclsShapeOnAStream() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        LineSink.to(new PrintStream(bytes, true, StandardCharsets.UTF_8)).emit(Log.Level.INFO, Subsys.INIT, 3, "hello");
        LineSink.to(new PrintStream(bytes, true, StandardCharsets.UTF_8)).emit(Log.Level.WARN, null, -1, "root");
        List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
        String prefix = LineSink.HOST + ":" + LineSink.PID + ":" + Thread.currentThread().threadId() + " ";
        assertThat(lines).containsExactly(prefix + "[3] JCCL INFO hello", prefix + "JCCL WARN root");
    }

    @Test
    void debugFileExpandsHostAndPidAndAppends(@TempDir Path dir) throws IOException {
        String pattern = dir.resolve("jccl.%h.%p.log").toString();
        Path expected = dir.resolve("jccl." + LineSink.HOST + "." + LineSink.PID + ".log");
        try (var s = ParamSources.use(ParamSources.of(Map.of(), Map.of("NCCL_DEBUG", "INFO", "NCCL_DEBUG_FILE",
                pattern)))) {
            Log.reconfigure();
            Log.info(Subsys.INIT, 0, "to the file");
            Log.warn(1, "also");
            Log.reconfigure();
        } finally {
            Log.reconfigure();
        }
        assertThat(Files.readAllLines(expected)).hasSize(2).first().asString().endsWith("[0] JCCL INFO to the file");
    }

    @Test
    void systemLoggerSinkUsesOneLoggerPerSubsystem() {
        List<String> records = new ArrayList<>();
        SystemLoggerSink sink = new SystemLoggerSink(name -> new System.Logger() {
            @Override
            public String getName() {
                return name;
            }

            @Override
            public boolean isLoggable(Level level) {
                return level != Level.TRACE;
            }

            @Override
            public void log(Level level, java.util.ResourceBundle bundle, String msg, Throwable thrown) {
                records.add(name + " " + level + " " + msg);
            }

            @Override
            public void log(Level level, java.util.ResourceBundle bundle, String format, Object... params) {
                records.add(name + " " + level + " " + format);
            }
        });
        sink.emit(Log.Level.INFO, Subsys.TUNING, 2, "AllReduce: 8 Bytes");
        sink.emit(Log.Level.WARN, null, -1, "careful");
        sink.emit(Log.Level.TRACE, Subsys.NET, 0, "filtered by the framework");
        sink.emit(Log.Level.VERSION, null, -1, "JCCL version x");
        assertThat(records).containsExactly("io.jccl.tuning INFO [2] AllReduce: 8 Bytes", "io.jccl WARNING careful",
                "io.jccl INFO JCCL version x");
        assertThat(SystemLoggerSink.applicationFinderInstalled()).as("the JDK's own finder is in use").isFalse();
        try (var s = ParamSources.use(ParamSources.of(Map.of(), Map.of("JCCL_DEBUG_SINK", "system")))) {
            assertThat(Log.chooseSink(null, "system")).isInstanceOf(SystemLoggerSink.class);
            assertThat(Log.chooseSink(null, "auto")).isInstanceOf(LineSink.class);
            assertThat(Log.chooseSink("/tmp/x-%p.log", "system")).isInstanceOf(LineSink.class);
        }
    }

    @Test
    void theEnvironmentReportWarnsAboutTyposAndEchoesWhatIsSet() {
        String secret = "ab".repeat(32);
        ParamSources s = ParamSources.of(Map.of(), Map.of("NCCL_BUFSIZE", "1M", "NCCL_PROTO", "LL",
                "NCCL_IB_HCA", "mlx5", "NCCL_MIN_NCHANNELS", "x", "JCCL_COMM_SECRET", secret, "NCCL_DEBUG", "INFO"));
        try (LogCapture c = LogCapture.start(Log.Level.INFO, "ENV")) {
            EnvReport.report(0, s);
            assertThat(c.messages()).contains(EnvReport.versionLine(),
                    "NCCL_PROTO set by environment to LL.",
                    "JCCL_COMM_SECRET set by environment to (hidden, 64 characters).",
                    "NCCL_IB_HCA has no effect in JCCL (an NCCL setting JCCL does not implement)");
            assertThat(c.lines()).filteredOn(l -> l.level() == Log.Level.WARN).extracting(LogCapture.Line::message)
                    .anyMatch(m -> m.contains("NCCL_BUFSIZE is set but JCCL does not know it; did you mean NCCL_BUFFSIZE?"))
                    .anyMatch(m -> m.contains("NCCL_MIN_NCHANNELS=x (environment) is not an integer"));
            assertThat(c.messages()).noneMatch(m -> m.contains(secret));
        }
        try (LogCapture c = LogCapture.start(Log.Level.WARN, "")) {
            EnvReport.report(0, ParamSources.of(Map.of(), Map.of()));
            assertThat(c.messages()).as("no version line unless NCCL_DEBUG is set").isEmpty();
        }
        assertThat(EnvReport.versionLine()).startsWith("JCCL version ").contains("Java " + Runtime.version());
    }
}
