package io.jccl.internal.topology.discovery;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Tolerant reads of sysfs/procfs files under a root directory ("/" in production, a fake tree in tests): a missing or
 * unreadable file gives null, never an exception, because containers and VMs hide much of sysfs.
 *
 * <p>Immutable; the file reading NCCL does with fopen/realpath in src/graph/xml.cc.
 */
final class Sysfs {
    private final Path root;

    Sysfs(Path root) {
        this.root = root;
    }

    /** The path of an absolute sysfs name ({@code /sys/bus/pci/devices}) under the root. */
    Path path(String absolute) {
        return root.resolve(absolute.startsWith("/") ? absolute.substring(1) : absolute);
    }

    /** First line of a file, trimmed; null when unreadable or empty. */
    static String read(Path file) {
        try {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            if (lines.isEmpty() || lines.get(0).isBlank()) {
                return null;
            }
            return lines.get(0).trim();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    static List<String> readAll(Path file) {
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }

    /** Entries of a directory sorted by name; empty when unreadable. */
    static List<Path> list(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            List<Path> r = new ArrayList<>(s.toList());
            r.sort(null);
            return r;
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }

    /** The real path (symlinks resolved); null when it does not exist. */
    static Path real(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** An integer file (decimal or 0x hex), or {@code dflt}. */
    static long readLong(Path file, long dflt) {
        String s = read(file);
        if (s == null) {
            return dflt;
        }
        try {
            return s.startsWith("0x") ? Long.parseLong(s.substring(2), 16) : Long.parseLong(s);
        } catch (NumberFormatException e) {
            return dflt;
        }
    }
}
