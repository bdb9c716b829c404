package io.jccl.tools.run;

import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * Starts one rank's process for {@link LocalJob}: on this host ({@link #local()}), or on another through a remote
 * shell ({@link RemoteRanks}). Called on the launcher thread, once per rank.
 */
public interface RankStarter {

    /**
     * Starts {@code rank}.
     *
     * @param rank    the rank
     * @param command the JVM command line of every rank
     * @param vars    the rank's variables (RANK, JCCL_COMM_ID, ...) to add to its environment
     * @return the process; its stdout and stderr are the rank's
     * @throws IOException when the process cannot be started
     */
    Process start(int rank, List<String> command, Map<String, String> vars) throws IOException;

    /**
     * Where the ranks run, for the launcher's messages.
     *
     * @param rank the rank
     * @return e.g. "this host" or "host node3"
     */
    String where(int rank);

    /**
     * True when every rank runs on this host: the job status port (RAS) on loopback is reachable.
     *
     * @return whether the ranks are local
     */
    boolean isLocal();

    /**
     * Called when a rank's process has ended (closes what the starter kept open for it).
     *
     * @param rank    the rank
     * @param process its process
     */
    default void ended(int rank, Process process) {
    }

    /**
     * Ranks as child processes of this JVM, stdin closed (they read no input).
     *
     * @return the local starter
     */
    static RankStarter local() {
        return new RankStarter() {
            @Override
            public Process start(int rank, List<String> command, Map<String, String> vars) throws IOException {
                ProcessBuilder pb = new ProcessBuilder(command);
                pb.environment().keySet().removeIf(RankEnvironment::isForeign);
                pb.environment().putAll(vars);
                Process p = pb.start();
                try {
                    p.getOutputStream().close();   // the ranks read no input: they see end-of-file
                } catch (IOException ignored) {
                    // nothing to do: the child's stdin is closed either way
                }
                return p;
            }

            @Override
            public String where(int rank) {
                return "this host";
            }

            @Override
            public boolean isLocal() {
                return true;
            }
        };
    }
}
