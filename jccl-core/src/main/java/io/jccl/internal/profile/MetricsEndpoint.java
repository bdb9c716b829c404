package io.jccl.internal.profile;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.jccl.JcclException;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;
import io.jccl.internal.param.Params;
import io.jccl.internal.ras.RasServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;

/**
 * The opt-in HTTP endpoint of this process ({@code JCCL_METRICS_PORT=[host:]port}), serving every communicator rank
 * of the process: {@code /health} (200 "ok", or 503 naming the failed communicators and lost ranks: a Kubernetes
 * liveness or readiness probe), {@code /status} (the status port's view as JSON) and {@code /metrics} (Prometheus
 * text format 0.0.4, see {@link MetricsText}). Started when the first communicator of the process finishes its
 * creation; it reads the counters the calls advance, so the call path does nothing for it.
 *
 * <p>Owned by: the JDK HTTP server's dispatcher thread (a daemon) and virtual threads per request; the registry is
 * shared. Mirrors: NCCL's RAS JSON output and the Prometheus output of its Inspector plugin.
 */
public final class MetricsEndpoint {
    private static final Set<CommProbe> PROBES = ConcurrentHashMap.newKeySet();
    private static volatile HttpServer server;

    private MetricsEndpoint() {
    }

    /** A communicator rank finished its creation: it is served from now on (and the endpoint starts if asked for). */
    static void register(CommProbe p) {
        PROBES.add(p);
        if (server == null) {
            String where = Params.METRICS_PORT.get();
            if (!where.isBlank()) {
                startOnce(where);
            }
        }
    }

    /** The communicator rank was destroyed. */
    static void unregister(CommProbe p) {
        PROBES.remove(p);
    }

    /** Where the endpoint listens, or null when it does not. */
    public static InetSocketAddress address() {
        HttpServer s = server;
        return s == null ? null : s.getAddress();
    }

    private static synchronized void startOnce(String where) {
        if (server != null) {
            return;
        }
        InetSocketAddress a;
        try {
            a = parse(where);
        } catch (RuntimeException | IOException e) {
            Log.warn(-1, "%s=%s is not [host:]port (%s); no metrics endpoint", Params.METRICS_PORT.name(), where,
                    e.getMessage());
            return;
        }
        HttpServer[] made = new HttpServer[1];
        IOException[] failed = new IOException[1];
        // the server's dispatcher thread inherits the daemon flag of the thread that starts it
        Thread t = new Thread(() -> {
            try {
                made[0] = start(a);
            } catch (IOException e) {
                failed[0] = e;
            }
        }, "jccl-metrics-start");
        t.setDaemon(true);
        t.start();
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        if (made[0] == null) {
            Log.warn(-1, "metrics endpoint: cannot listen on %s (%s)", where,
                    failed[0] == null ? "?" : failed[0].getMessage());
            return;
        }
        server = made[0];
        InetSocketAddress bound = server.getAddress();
        Log.info(Subsys.INIT, -1, "Metrics endpoint on %s:%d (/health, /status, /metrics)",
                bound.getAddress().getHostAddress(), bound.getPort());
    }

    /** {@code [host:]port}: without a host, every interface (probes and scrapers come from other hosts). */
    static InetSocketAddress parse(String where) throws IOException {
        String s = where.strip();
        int colon = s.lastIndexOf(':');
        String host = colon >= 0 ? s.substring(0, colon) : "";
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port = Integer.parseInt(s.substring(colon + 1).strip());
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is not in [0, 65535]");
        }
        return host.isEmpty() ? new InetSocketAddress(port) : new InetSocketAddress(InetAddress.getByName(host), port);
    }

    private static HttpServer start(InetSocketAddress a) throws IOException {
        HttpServer s = HttpServer.create(a, 16);
        s.setExecutor(Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("jccl-metrics-", 0).factory()));
        s.createContext("/health", x -> serve(x, () -> health()));
        s.createContext("/status", x -> serve(x, () -> new Answer(200, "application/json; charset=utf-8",
                RasServer.statusJson())));
        s.createContext("/metrics", x -> serve(x, () -> new Answer(200, "text/plain; version=0.0.4; charset=utf-8",
                MetricsText.format(probes()))));
        s.start();
        return s;
    }

    /** What a request is answered with. */
    record Answer(int code, String contentType, String body) {
    }

    private static void serve(HttpExchange x, java.util.function.Supplier<Answer> what) throws IOException {
        try (x) {
            Answer a;
            if (!"GET".equals(x.getRequestMethod()) && !"HEAD".equals(x.getRequestMethod())) {
                a = new Answer(405, "text/plain; charset=utf-8", "only GET\n");
            } else {
                try {
                    a = what.get();
                } catch (RuntimeException e) {
                    a = new Answer(500, "text/plain; charset=utf-8", "error: " + e + "\n");
                }
            }
            byte[] body = a.body().getBytes(StandardCharsets.UTF_8);
            x.getResponseHeaders().set("Content-Type", a.contentType());
            boolean head = "HEAD".equals(x.getRequestMethod());
            x.sendResponseHeaders(a.code(), head ? -1 : body.length == 0 ? -1 : body.length);
            if (!head && body.length > 0) {
                try (OutputStream out = x.getResponseBody()) {
                    out.write(body);
                }
            }
        }
    }

    /** 200 "ok" while every communicator rank of the process is healthy; else 503 naming what is not. */
    static Answer health() {
        StringBuilder bad = new StringBuilder();
        for (CommProbe p : probes()) {
            JcclException f = p.failure();
            int[] lost = p.lostRanks();
            if (f == null && lost.length == 0) {
                continue;
            }
            bad.append("communicator ").append(p.commId()).append(" rank ").append(p.rank());
            if (lost.length > 0) {
                bad.append(": lost ranks ").append(Arrays.toString(lost));
            }
            if (f != null) {
                bad.append(": failed: ").append(f.getMessage());
            }
            bad.append('\n');
        }
        return bad.isEmpty() ? new Answer(200, "text/plain; charset=utf-8", "ok\n")
                : new Answer(503, "text/plain; charset=utf-8", "unhealthy\n" + bad);
    }

    /** The registered ranks, by communicator id and rank. */
    static List<CommProbe> probes() {
        List<CommProbe> l = new ArrayList<>(PROBES);
        l.sort(Comparator.comparing(CommProbe::commId).thenComparingInt(CommProbe::rank));
        return l;
    }
}
