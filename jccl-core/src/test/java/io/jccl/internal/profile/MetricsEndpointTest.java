package io.jccl.internal.profile;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.jccl.Communicator;
import io.jccl.Config;
import io.jccl.RedOp;
import org.hawkular.agent.prometheus.text.TextPrometheusMetricDataParser;
import org.hawkular.agent.prometheus.types.Counter;
import org.hawkular.agent.prometheus.types.Gauge;
import org.hawkular.agent.prometheus.types.Metric;
import org.hawkular.agent.prometheus.types.MetricFamily;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The metrics endpoint (JCCL_METRICS_PORT=0) of communicators in this JVM: /metrics parsed by a Prometheus text-format
 * parser, /status by a JSON parser, /health before and after a rank aborts.
 */
class MetricsEndpointTest {
    private static final int N = 3;

    @BeforeAll
    static void ephemeralPort() {
        System.setProperty("JCCL_METRICS_PORT", "127.0.0.1:0");
    }

    @AfterAll
    static void unset() {
        System.clearProperty("JCCL_METRICS_PORT");
    }

    @Test
    void countersHealthAndStatusOfARunningJob() throws Exception {
        List<Communicator> comms = Communicator.initAll(N, Config.defaults().withName("metrics"));
        try {
            onEveryRank(comms, c -> {
                for (int i = 0; i < 5; i++) {
                    c.allReduce(new float[1000], RedOp.SUM);
                }
                for (int i = 0; i < 2; i++) {
                    c.broadcast(new int[64], 0);
                }
            });
            InetSocketAddress a = MetricsEndpoint.address();
            assertThat(a).as("the endpoint started").isNotNull();
            String commId = Probes.of(comms.get(0)).commId();

            Map<String, MetricFamily> families = scrape(a);
            assertThat(families).containsKeys("jccl_calls_total", "jccl_bytes_total", "jccl_seconds_total",
                    "jccl_errors_total", "jccl_communicator_failed", "jccl_lost_ranks", "jccl_init_seconds");
            for (int r = 0; r < N; r++) {
                assertThat(sum(families.get("jccl_calls_total"), commId, r, "AllReduce")).isEqualTo(5);
                assertThat(sum(families.get("jccl_calls_total"), commId, r, "Broadcast")).isEqualTo(2);
                assertThat(sum(families.get("jccl_bytes_total"), commId, r, "AllReduce")).isEqualTo(5 * 4000);
                assertThat(sum(families.get("jccl_bytes_total"), commId, r, "Broadcast")).isEqualTo(2 * 256);
                assertThat(sum(families.get("jccl_seconds_total"), commId, r, "AllReduce")).isPositive();
                assertThat(value(families.get("jccl_errors_total"), commId, r)).isZero();
                assertThat(value(families.get("jccl_communicator_failed"), commId, r)).isZero();
                assertThat(value(families.get("jccl_lost_ranks"), commId, r)).isZero();
                assertThat(value(families.get("jccl_init_seconds"), commId, r)).isPositive();
            }
            for (Metric m : families.get("jccl_calls_total").getMetrics()) {
                assertThat(m.getLabels()).containsKeys("comm", "rank", "collective", "algorithm", "protocol");
            }

            assertThat(get(a, "/health")).isEqualTo("200 ok\n");

            JsonObject status = JsonParser.parseString(get(a, "/status").substring(4)).getAsJsonObject();
            assertThat(status.get("pid").getAsLong()).isEqualTo(ProcessHandle.current().pid());
            JsonObject comm = null;
            for (var e : status.getAsJsonArray("communicators")) {
                if (e.getAsJsonObject().get("id").getAsString().equals(commId)) {
                    comm = e.getAsJsonObject();
                }
            }
            assertThat(comm).as("/status lists the communicator").isNotNull();
            assertThat(comm.get("name").getAsString()).isEqualTo("metrics");
            assertThat(comm.get("healthy").getAsBoolean()).isTrue();
            JsonArray ranks = comm.getAsJsonArray("ranks");
            assertThat(ranks.size()).isEqualTo(N);
            assertThat(ranks.get(1).getAsJsonObject().get("state").getAsString()).isEqualTo("alive");

            comms.get(2).abort();
            Thread[] ts = new Thread[2];
            for (int r = 0; r < 2; r++) {
                Communicator c = comms.get(r);
                ts[r] = Thread.ofPlatform().start(() -> {
                    try {
                        c.allReduce(new float[16], RedOp.SUM);
                    } catch (RuntimeException expected) {
                        // rank 2 is gone
                    }
                });
            }
            for (Thread t : ts) {
                t.join(TimeUnit.SECONDS.toMillis(60));
            }
            String health = get(a, "/health");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!health.contains("lost ranks [2]") && System.nanoTime() < deadline) {
                Thread.sleep(20);
                health = get(a, "/health");
            }
            assertThat(health).startsWith("503 unhealthy").contains("communicator " + commId + " rank 0")
                    .contains("lost ranks [2]");
            families = scrape(a);
            assertThat(value(families.get("jccl_communicator_failed"), commId, 0)).isEqualTo(1);
            assertThat(value(families.get("jccl_lost_ranks"), commId, 0)).isEqualTo(1);
            boolean peerLabelled = false;
            for (Metric m : families.get("jccl_rank_lost").getMetrics()) {
                peerLabelled |= m.getLabels().get("comm").equals(commId) && "2".equals(m.getLabels().get("peer"));
            }
            assertThat(peerLabelled).as("jccl_rank_lost{peer=\"2\"}").isTrue();
        } finally {
            comms.forEach(Communicator::abort);
        }
    }

    @Test
    void labelValuesAreEscaped() {
        assertThat(MetricsText.escape(new StringBuilder(), "a\"b\\c\nd").toString()).isEqualTo("a\\\"b\\\\c\\nd");
    }

    @Test
    void hostAndPortAreParsed() throws IOException {
        assertThat(MetricsEndpoint.parse("9400").getPort()).isEqualTo(9400);
        assertThat(MetricsEndpoint.parse("9400").getAddress().isAnyLocalAddress()).isTrue();
        InetSocketAddress a = MetricsEndpoint.parse("127.0.0.1:0");
        assertThat(a.getPort()).isZero();
        assertThat(a.getAddress().isLoopbackAddress()).isTrue();
    }

    private static void onEveryRank(List<Communicator> comms, Consumer<Communicator> work) throws Exception {
        List<Thread> ts = new ArrayList<>();
        Throwable[] err = new Throwable[1];
        for (Communicator c : comms) {
            ts.add(Thread.ofPlatform().start(() -> {
                try {
                    work.accept(c);
                } catch (Throwable e) {
                    err[0] = e;
                }
            }));
        }
        for (Thread t : ts) {
            t.join();
        }
        if (err[0] != null) {
            throw new AssertionError(err[0]);
        }
    }

    /** Every family of /metrics, by name, through the Prometheus text-format parser. */
    private static Map<String, MetricFamily> scrape(InetSocketAddress a) throws IOException {
        String page = get(a, "/metrics");
        assertThat(page).startsWith("200 ");
        Map<String, MetricFamily> m = new HashMap<>();
        try (InputStream in = new ByteArrayInputStream(page.substring(4).getBytes(StandardCharsets.UTF_8))) {
            TextPrometheusMetricDataParser p = new TextPrometheusMetricDataParser(in);
            MetricFamily f;
            while ((f = p.parse()) != null) {
                m.put(f.getName(), f);
            }
        }
        return m;
    }

    private static double sum(MetricFamily f, String comm, int rank, String collective) {
        double s = 0;
        for (Metric m : f.getMetrics()) {
            Map<String, String> l = m.getLabels();
            if (l.get("comm").equals(comm) && l.get("rank").equals(Integer.toString(rank))
                    && l.get("collective").equals(collective)) {
                s += ((Counter) m).getValue();
            }
        }
        return s;
    }

    private static double value(MetricFamily f, String comm, int rank) {
        for (Metric m : f.getMetrics()) {
            Map<String, String> l = m.getLabels();
            if (l.get("comm").equals(comm) && l.get("rank").equals(Integer.toString(rank))) {
                return m instanceof Counter c ? c.getValue() : ((Gauge) m).getValue();
            }
        }
        throw new AssertionError("no " + f.getName() + " for comm " + comm + " rank " + rank);
    }

    /** "CODE body". */
    private static String get(InetSocketAddress a, String path) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create("http://127.0.0.1:" + a.getPort() + path).toURL()
                .openConnection();
        try {
            int code = c.getResponseCode();
            InputStream in = code < 400 ? c.getInputStream() : c.getErrorStream();
            String body = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
            if (path.equals("/metrics")) {
                assertThat(c.getContentType()).isEqualTo("text/plain; version=0.0.4; charset=utf-8");
            }
            return code + " " + body;
        } finally {
            c.disconnect();
        }
    }
}
