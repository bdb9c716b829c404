package io.jccl.tools.run;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * An Open MPI style hostfile: one host per line, {@code name [slots=N] [max_slots=M]}, {@code #} comments, blank
 * lines ignored; {@code slots} defaults to 1. {@code max_slots} is accepted and ignored. A host named twice gets
 * the sum of its slots, at its first position. A value parsed once by the launcher thread; mirrors mpirun's
 * {@code --hostfile}.
 *
 * @param hosts the hosts in file order
 */
public record Hostfile(List<Host> hosts) {

    /**
     * One line of the file.
     *
     * @param name  what the remote shell is given (a host name, an address, or a namespace for {@code ip netns exec})
     * @param slots how many ranks it takes per round
     */
    public record Host(String name, int slots) {
        public Host {
            Objects.requireNonNull(name, "name");
            if (slots < 1) {
                throw new IllegalArgumentException("host " + name + ": slots must be at least 1, got " + slots);
            }
        }
    }

    public Hostfile {
        hosts = List.copyOf(hosts);
        if (hosts.isEmpty()) {
            throw new IllegalArgumentException("the hostfile names no host");
        }
    }

    /** Reads and parses {@code file}. */
    public static Hostfile read(Path file) {
        try {
            return parse(Files.readString(file), file.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the hostfile " + file + ": " + e.getMessage(), e);
        }
    }

    /** Parses the text of a hostfile; {@code source} names it in error messages. */
    public static Hostfile parse(String text, String source) {
        List<Host> hosts = new ArrayList<>();
        int lineNo = 0;
        for (String raw : text.split("\n", -1)) {
            lineNo++;
            int hash = raw.indexOf('#');
            String line = (hash >= 0 ? raw.substring(0, hash) : raw).strip();
            if (line.isEmpty()) {
                continue;
            }
            String[] words = line.split("\\s+");
            int slots = 1;
            for (int i = 1; i < words.length; i++) {
                String w = words[i];
                if (w.startsWith("slots=")) {
                    slots = number(w.substring(6), source, lineNo);
                } else if (w.startsWith("max_slots=") || w.startsWith("max-slots=")) {
                    number(w.substring(10), source, lineNo);
                } else {
                    throw new IllegalArgumentException(source + ":" + lineNo + ": unknown word '" + w
                            + "' (expected 'host slots=N')");
                }
            }
            add(hosts, new Host(words[0], slots));
        }
        return new Hostfile(hosts);
    }

    private static void add(List<Host> hosts, Host h) {
        for (int i = 0; i < hosts.size(); i++) {
            if (hosts.get(i).name().equals(h.name())) {
                hosts.set(i, new Host(h.name(), hosts.get(i).slots() + h.slots()));
                return;
            }
        }
        hosts.add(h);
    }

    private static int number(String s, String source, int lineNo) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(source + ":" + lineNo + ": '" + s + "' is not a number", e);
        }
    }

    /** Slots of every host together. */
    public int totalSlots() {
        return hosts.stream().mapToInt(Host::slots).sum();
    }
}
