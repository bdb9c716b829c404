package io.jccl.tools.perf;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Facts about this host for the rank lines: the short host name and the CPU model. Read once, cached; any thread.
 * nccl-tests prints {@code gethostname()} up to the first dot, and the GPU name where JCCL on the host prints the CPU.
 */
public final class HostInfo {
    private static volatile String hostName;
    private static volatile String cpuModel;

    private HostInfo() {
    }

    /** The host name up to its first dot. */
    public static String hostName() {
        String h = hostName;
        if (h == null) {
            h = readFirstLine(Path.of("/proc/sys/kernel/hostname"))
                    .or(() -> Optional.ofNullable(System.getenv("HOSTNAME")))
                    .orElseGet(HostInfo::resolveHostName);
            int dot = h.indexOf('.');
            h = dot > 0 ? h.substring(0, dot) : h;
            hostName = h;
        }
        return h;
    }

    /** The CPU's model name from /proc/cpuinfo, or {@code host memory} when it cannot be read. */
    public static String cpuModel() {
        String m = cpuModel;
        if (m == null) {
            m = "host memory";
            try {
                for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                    if (line.startsWith("model name")) {
                        int colon = line.indexOf(':');
                        String v = colon >= 0 ? line.substring(colon + 1).trim() : "";
                        if (!v.isEmpty()) {
                            m = v;
                        }
                        break;
                    }
                }
            } catch (IOException | RuntimeException ignored) {
                // not Linux or not readable: keep the generic name
            }
            cpuModel = m;
        }
        return m;
    }

    private static Optional<String> readFirstLine(Path p) {
        try {
            return Files.readAllLines(p).stream().map(String::trim).filter(s -> !s.isEmpty()).findFirst();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static String resolveHostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "localhost";
        }
    }
}
