package io.jccl.tools.run;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The command that runs a rank on another host: {@code <rsh words> <host> sh -c <script>}. The rsh is
 * {@code ssh -o BatchMode=yes} by default, {@code JCCL_RSH} or {@code --rsh} otherwise. Programs that hand their
 * arguments to a remote shell as one string (ssh, rsh, oarsh) get the script quoted once more; others exec their
 * arguments directly ({@code ip netns exec}, {@code docker exec}, {@code kubectl exec --}), so the host word is a
 * namespace or container name there.
 * <p>
 * The script reads the job secret from the first line of stdin (so it never shows in {@code ps}), starts the rank
 * with its variables (through {@code env}) in the launcher's working directory, and stops the rank with SIGTERM
 * when stdin reaches end-of-file: the launcher closes it, or the ssh connection to the launcher is gone. That is how
 * "stop the remaining ranks" reaches ranks on hosts where a killed ssh client would otherwise leave them running.
 * The script exits with the rank's exit status. Stateless value; built once by the launcher thread.
 *
 * @param words the rsh program and its options, e.g. {@code [ssh, -o, BatchMode=yes]} or {@code [ip, netns, exec]}
 */
public record RemoteShell(List<String> words) {

    /** The remote shell used when neither {@code --rsh} nor {@code JCCL_RSH} says otherwise. */
    public static final String DEFAULT = "ssh -o BatchMode=yes";

    /** Programs whose remote side runs the command through a shell (arguments joined by spaces). */
    static final Set<String> SHELL_JOINING = Set.of("ssh", "rsh", "oarsh", "autossh", "dbclient");

    /** The variable that carries the job secret; sent on stdin, not on the command line. */
    static final String SECRET = "JCCL_COMM_SECRET";

    public RemoteShell {
        words = List.copyOf(words);
        if (words.isEmpty()) {
            throw new IllegalArgumentException("the remote shell command is empty");
        }
    }

    /** Splits a command such as {@code "ssh -p 2222 -o BatchMode=yes"} on blanks (no quoting supported). */
    public static RemoteShell parse(String command) {
        return new RemoteShell(Arrays.stream(command.strip().split("\\s+")).filter(s -> !s.isEmpty()).toList());
    }

    /** True when the rsh program joins its arguments into one remote shell command (ssh-like). */
    public boolean joinsArguments() {
        String program = Path.of(words.getFirst()).getFileName().toString();
        return SHELL_JOINING.contains(program);
    }

    /**
     * The argv that starts {@code command} on {@code host} with {@code vars} (minus the secret) in its environment.
     *
     * @param host    the host word
     * @param command the rank's argv
     * @param vars    variables to set there; {@link #SECRET} is not put on the command line
     * @param workDir the directory to run in (ignored when it does not exist there)
     * @return the local argv
     */
    public List<String> argv(String host, List<String> command, Map<String, String> vars, String workDir) {
        String script = script(command, vars, workDir);
        List<String> argv = new ArrayList<>(words);
        argv.add(host);
        if (joinsArguments()) {
            argv.add("sh -c " + quote(script));
        } else {
            argv.add("sh");
            argv.add("-c");
            argv.add(script);
        }
        return argv;
    }

    /** The POSIX sh script run on the remote host. */
    static String script(List<String> command, Map<String, String> vars, String workDir) {
        StringBuilder env = new StringBuilder("env");
        vars.entrySet().stream().filter(e -> !e.getKey().equals(SECRET)).sorted(Map.Entry.comparingByKey())
                .forEach(e -> env.append(' ').append(quote(e.getKey() + "=" + e.getValue())));
        StringBuilder cmd = new StringBuilder();
        for (String c : command) {
            cmd.append(' ').append(quote(c));
        }
        return String.join("\n",
                "cd " + quote(workDir) + " 2>/dev/null",
                "IFS= read -r " + SECRET + " || exit 125",
                "export " + SECRET,
                "exec 3<&0",
                env.toString() + cmd + " </dev/null 3<&- &",
                "pid=$!",
                "trap 'kill -TERM $pid 2>/dev/null' HUP INT TERM",
                "(while IFS= read -r _; do :; done <&3; kill -TERM $pid 2>/dev/null) >/dev/null 2>&1 &",
                "w=$!",
                "exec 3<&-",
                "wait $pid; rc=$?",
                "while kill -0 $pid 2>/dev/null; do wait $pid; rc=$?; done",
                "kill $w 2>/dev/null",
                "exit $rc");
    }

    /** Single-quotes {@code s} for a POSIX shell. */
    static String quote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }
}
