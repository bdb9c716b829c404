package io.jccl.internal.ras;

import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.ProcessResources;
import io.jccl.internal.debug.Subsys;
import io.jccl.internal.param.Params;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.Semaphore;
import java.util.function.Supplier;

/**
 * The status port of this process (NCCL's RAS client port): started when a communicator whose rank 0 lives here is
 * created (and {@code NCCL_RAS_ENABLE} is not 0), on {@code NCCL_RAS_ADDR} (default 127.0.0.1:28028, an ephemeral
 * port when that one is taken). A client sends one line ("status", "json" or "help") and reads the answer until the
 * connection closes. Each client is served on its own virtual thread with a 2 s deadline and a 256-byte request
 * limit; at most 64 at once.
 *
 * <p>Owned by: its accept thread "jccl-ras"; the registry of communicators is shared. Mirrors: ras.cc's client
 * listener and client.cc.
 */
public final class RasServer {
    static final int REQUEST_MAX_BYTES = 256;
    static final int CLIENT_TIMEOUT_MS = 2_000;
    private static final Set<PeerMonitor> COMMS = ConcurrentHashMap.newKeySet();
    /** More of the status answer, by a key that orders them: what the GPU communicators of this process report. */
    private static final java.util.Map<String, Supplier<String>> SECTIONS = new ConcurrentSkipListMap<>();
    private static final Semaphore CLIENTS = new Semaphore(64);
    private static volatile ServerSocket server;

    private RasServer() {
    }

    /** Commands a client may send. */
    public enum Command {
        STATUS, JSON, HELP;

        /** Parses a request line (ASCII, at most {@link #REQUEST_MAX_BYTES}); null when it is not a command. */
        public static Command parse(byte[] request, int length) {
            if (length < 0 || length > REQUEST_MAX_BYTES || length > request.length) {
                return null;
            }
            String s = new String(request, 0, length,
                    StandardCharsets.US_ASCII).strip().toLowerCase(java.util.Locale.ROOT);
            return switch (s) {
                case "", "status" -> STATUS;
                case "json" -> JSON;
                case "help" -> HELP;
                default -> null;
            };
        }
    }

    static void register(PeerMonitor m) {
        COMMS.add(m);
        if (m.rank() == 0 && server == null && Params.RAS_ENABLE.get() != 0) {
            startOnce();
        }
    }

    static void unregister(PeerMonitor m) {
        COMMS.remove(m);
    }

    /**
     * Adds {@code section} to every status answer of this process (after the communicators), until
     * {@link #removeSection} with the same key; sections appear in key order. The supplier runs on the client's thread.
     */
    public static void addSection(String key, Supplier<String> section) {
        SECTIONS.put(key, section);
    }

    /** Removes the section added with {@code key}. */
    public static void removeSection(String key) {
        SECTIONS.remove(key);
    }

    /** Where this process answers status queries, or null when it does not. */
    public static InetSocketAddress address() {
        ServerSocket s = server;
        return s == null ? null : (InetSocketAddress) s.getLocalSocketAddress();
    }

    private static synchronized void startOnce() {
        if (server != null) {
            return;
        }
        String addr = Params.RAS_ADDR.get();
        ServerSocket ss;
        try {
            int colon = addr.lastIndexOf(':');
            InetAddress host = InetAddress.getByName(colon > 0 ? addr.substring(0, colon) : addr);
            int port = colon > 0 ? Integer.parseInt(addr.substring(colon + 1).strip()) : 28028;
            ss = bind(new InetSocketAddress(host, port));
            if (ss == null) {
                ss = bind(new InetSocketAddress(host, 0));
            }
        } catch (IOException | RuntimeException e) {
            Log.warn(-1, "RAS: cannot use %s=%s (%s); no status port", Params.RAS_ADDR.name(), addr, e.getMessage());
            return;
        }
        if (ss == null) {
            Log.warn(-1, "RAS: cannot listen on %s or an ephemeral port; no status port", addr);
            return;
        }
        server = ss;
        ServerSocket s = ss;
        Log.info(Subsys.RAS, -1, "RAS: status port %s (./jccl ras --host %s --port %d)", s.getLocalSocketAddress(),
                s.getInetAddress().getHostAddress(), s.getLocalPort());
        Thread t = new Thread(() -> acceptLoop(s), "jccl-ras");
        t.setDaemon(true);
        t.start();
    }

    private static ServerSocket bind(InetSocketAddress a) {
        try {
            ServerSocket ss = new ServerSocket();
            ss.bind(a, 64);
            return ss;
        } catch (IOException e) {
            return null;
        }
    }

    private static void acceptLoop(ServerSocket s) {
        while (true) {
            try {
                Socket c = s.accept();
                if (!CLIENTS.tryAcquire()) {
                    c.close();
                    continue;
                }
                Thread.ofVirtual().name("jccl-ras-client").start(() -> {
                    try (c) {
                        serve(c);
                    } catch (IOException ignored) {
                        // the client went away
                    } finally {
                        CLIENTS.release();
                    }
                });
            } catch (IOException e) {
                Log.warn(-1, "RAS: status port failed: %s", e.getMessage());
                return;
            }
        }
    }

    private static void serve(Socket c) throws IOException {
        c.setSoTimeout(CLIENT_TIMEOUT_MS);
        InputStream in = c.getInputStream();
        byte[] buf = new byte[REQUEST_MAX_BYTES + 1];
        int n = 0;
        while (n < buf.length) {
            int b = in.read();
            if (b < 0 || b == '\n') {
                break;
            }
            buf[n++] = (byte) b;
        }
        Command cmd = Command.parse(buf, n);
        OutputStream out = c.getOutputStream();
        out.write(answer(cmd).getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /** The text answering {@code cmd} (null: an unknown command). */
    public static String answer(Command cmd) {
        if (cmd == null) {
            return "error: unknown command; send \"status\", \"json\" or \"help\"\n";
        }
        if (cmd == Command.HELP) {
            return "commands: status (every communicator of this process, per rank: state, last completed operation, "
                    + "current operation and what it waits for; GPU communicators: each rank's calls and the one not"
                    + " every rank has made), json (the same per communicator and rank, as JSON), help\n";
        }
        if (cmd == Command.JSON) {
            return statusJson();
        }
        List<StatusReport.Comm> comms = snapshots();
        StringBuilder sb = new StringBuilder(StatusReport.format(ProcessHandle.current().pid(), hostName(), comms));
        sb.append("\nResources: ").append(ProcessResources.summary()).append('\n');
        for (PeerMonitor m : COMMS) {
            String r = m.resources();
            if (!r.isEmpty()) {
                sb.append("  comm ").append(m.commId()).append(" rank ").append(m.rank()).append(": ").append(r)
                        .append('\n');
            }
        }
        for (Supplier<String> section : SECTIONS.values()) {
            String text;
            try {
                text = section.get();
            } catch (RuntimeException e) {
                text = "(a section of this report failed: " + e + ")\n";
            }
            sb.append('\n').append(text);
        }
        return sb.toString();
    }

    /** The status of every communicator of this process as JSON (see {@link StatusJson}). */
    public static String statusJson() {
        return StatusJson.format(ProcessHandle.current().pid(), hostName(), snapshots());
    }

    private static List<StatusReport.Comm> snapshots() {
        List<PeerMonitor> ms = new ArrayList<>(COMMS);
        ms.sort(Comparator.comparing(PeerMonitor::commId).thenComparingInt(PeerMonitor::rank));
        List<StatusReport.Comm> comms = new ArrayList<>();
        for (PeerMonitor m : ms) {
            comms.add(m.snapshot());
        }
        return comms;
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "localhost";
        }
    }
}
