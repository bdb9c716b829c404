package io.jccl.internal.debug;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * What this process holds that runs out at scale: open file descriptors (sockets, shared-memory files) and live
 * platform threads, for the init log and the status port. Reading the descriptor table costs a directory listing, so
 * it is done once per init (by rank 0 of a communicator) and per status query, never on the data path.
 *
 * <p>Stateless; any thread. Mirrors: nothing in NCCL, whose logs leave this to lsof.
 */
public final class ProcessResources {
    private ProcessResources() {
    }

    /** Open file descriptors of this process, or -1 where /proc/self/fd cannot be read. */
    public static int openFiles() {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return (int) s.count();
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** Live platform threads of this process (virtual threads are not counted). */
    public static int platformThreads() {
        return ManagementFactory.getThreadMXBean().getThreadCount();
    }

    /** "412 open files, 268 platform threads". */
    public static String summary() {
        return openFiles() + " open files, " + platformThreads() + " platform threads";
    }
}
