package io.jccl.tools.run.netns;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * N "hosts" on this machine for a test: network namespaces on a private bridge, made and removed by
 * {@code scripts/netns-hosts.sh}. Names are unique per JVM and per instance ({@code jt<pid><letter>-h0},
 * {@code -e0} inside the namespace, {@code -v0} on the bridge), so parallel test runs do not clash; the bridge has
 * no address in the root namespace, so every instance can use the same 10.77.0.0/24. {@link #close()} removes
 * everything (also killing processes left in the namespaces); {@link #create} first removes what crashed earlier
 * runs (whose JVM is gone) left behind. Tests are skipped (JUnit assumption) when not root or without {@code ip}.
 * Owned by the test thread that creates it.
 */
public final class NetnsHosts implements AutoCloseable {
    private static final Pattern OURS = Pattern.compile("^(jt(\\d+)[a-z])-h\\d+$");
    private static final AtomicInteger INSTANCES = new AtomicInteger();
    private static final long COMMAND_TIMEOUT_MS = 20_000;

    private final String prefix;
    private final int nHosts;
    private final String rate;
    private boolean closed;

    private NetnsHosts(String prefix, int nHosts, String rate) {
        this.prefix = prefix;
        this.nHosts = nHosts;
        this.rate = rate;
    }

    /**
     * Makes {@code nHosts} namespace hosts; {@code rate} (e.g. "10gbit") shapes their links with tbf, or null.
     * Skips the calling test when this machine cannot make namespaces (not root, no iproute2).
     */
    public static NetnsHosts create(int nHosts, String rate) {
        assumeTrue(isRoot(), "network namespace hosts need root (CI runs as root); skipped as uid " + uid());
        assumeTrue(hasIp(), "network namespace hosts need iproute2's 'ip' command (apt-get install iproute2)");
        removeLeftovers();
        long pid = ProcessHandle.current().pid();
        int k = INSTANCES.getAndIncrement();
        String prefix = "jt" + pid + (char) ('a' + k % 26);
        NetnsHosts hosts = new NetnsHosts(prefix, nHosts, rate);
        List<String> up = new ArrayList<>(List.of(script().toString(), "up", Integer.toString(nHosts), "--prefix",
                prefix));
        if (rate != null) {
            up.add("--rate");
            up.add(rate);
        }
        try {
            Commands.check(COMMAND_TIMEOUT_MS, up);
        } catch (RuntimeException e) {
            hosts.close();
            throw e;
        }
        return hosts;
    }

    /** The namespace of host {@code i}, e.g. {@code jt1234a-h0}. */
    public String namespace(int i) {
        checkIndex(i);
        return prefix + "-h" + i;
    }

    /** Host {@code i}'s address on the bridge. */
    public String address(int i) {
        checkIndex(i);
        return "10.77.0." + (i + 1);
    }

    /** The veth end inside host {@code i}'s namespace. */
    public String innerLink(int i) {
        checkIndex(i);
        return prefix + "-e" + i;
    }

    /** The veth end on the bridge (root namespace) for host {@code i}: taking it down cuts that host off. */
    public String bridgeLink(int i) {
        checkIndex(i);
        return prefix + "-v" + i;
    }

    /** The NCCL_SOCKET_IFNAME value that selects the veths in every host (a prefix). */
    public String socketIfName() {
        return prefix + "-e";
    }

    public int size() {
        return nHosts;
    }

    public String rate() {
        return rate;
    }

    /** The argv prefix that runs a command in host {@code i}. */
    public List<String> exec(int i) {
        return List.of("ip", "netns", "exec", namespace(i));
    }

    /** Writes an Open MPI style hostfile ({@code <namespace> slots=S} per host) into {@code dir}. */
    public Path hostfile(Path dir, int slotsPerHost) {
        StringBuilder sb = new StringBuilder("# ").append(nHosts).append(" namespace hosts\n");
        for (int i = 0; i < nHosts; i++) {
            sb.append(namespace(i)).append(" slots=").append(slotsPerHost).append('\n');
        }
        try {
            return Files.writeString(dir.resolve(prefix + ".hosts"), sb.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Takes host {@code i}'s link down ({@code up=false}) or brings it back. */
    public void setLink(int i, boolean up) {
        Commands.check(COMMAND_TIMEOUT_MS, List.of("ip", "link", "set", bridgeLink(i), up ? "up" : "down"));
        Commands.check(COMMAND_TIMEOUT_MS, List.of("ip", "netns", "exec", namespace(i), "ip", "link", "set",
                innerLink(i), up ? "up" : "down"));
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            Commands.check(COMMAND_TIMEOUT_MS, List.of(script().toString(), "down", "--prefix", prefix));
        }
    }

    private void checkIndex(int i) {
        if (i < 0 || i >= nHosts) {
            throw new IndexOutOfBoundsException("host " + i + " of " + nHosts);
        }
    }

    /**
     * Removes namespaces, bridges and veths whose creating JVM no longer runs: what a crashed or killed test run
     * left behind.
     */
    static void removeLeftovers() {
        String namespaces = Commands.check(COMMAND_TIMEOUT_MS, List.of("ip", "netns", "list"));
        String links = Commands.check(COMMAND_TIMEOUT_MS, List.of("ip", "-o", "link", "show"));
        java.util.stream.Stream.concat(namespaces.lines().map(l -> l.split(" ")[0]),
                        links.lines().map(l -> l.split(": ")).filter(a -> a.length > 1)
                                .map(a -> a[1].replaceAll("@.*", "").replaceFirst("-(br|v\\d+|e\\d+)$", "-h0")))
                .map(OURS::matcher).filter(Matcher::matches)
                .filter(m -> ProcessHandle.of(Long.parseLong(m.group(2))).isEmpty())
                .map(m -> m.group(1)).distinct()
                .forEach(p -> Commands.check(COMMAND_TIMEOUT_MS, List.of(script().toString(), "down", "--prefix", p)));
    }

    /** {@code scripts/netns-hosts.sh} of this checkout (tests run in a module directory). */
    static Path script() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null) {
            Path s = dir.resolve("scripts").resolve("netns-hosts.sh");
            if (Files.isRegularFile(s)) {
                return s;
            }
            dir = dir.getParent();
        }
        throw new IllegalStateException("scripts/netns-hosts.sh not found above " + Path.of("").toAbsolutePath());
    }

    static boolean isRoot() {
        return "0".equals(uid());
    }

    private static String uid() {
        try {
            return Commands.check(5_000, List.of("id", "-u")).trim();
        } catch (RuntimeException e) {
            return "?";
        }
    }

    private static boolean hasIp() {
        try {
            Commands.check(5_000, List.of("ip", "-V"));
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }
}
