package io.jccl.tools.run;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The remote script, run on this host: {@code env} stands in for an exec-style remote shell ({@code ip netns exec}),
 * and {@code sh -c} for the login shell that sshd hands ssh's joined arguments to.
 */
class RemoteShellTest {
    private static final String SECRET = "ab".repeat(32);
    private static final Map<String, String> VARS = Map.of(RemoteShell.SECRET, SECRET, "FOO", "a b'c $HOME",
            "RANK", "3");
    private static final List<String> PRINT = List.of("sh", "-c", "echo \"$JCCL_COMM_SECRET|$FOO|$RANK|$(pwd)\"");

    @Test
    void execStyleShellsGetAnArgvAndTheSecretTravelsOnStdin() throws Exception {
        List<String> argv = RemoteShell.parse("env").argv("X=1", PRINT, VARS, "/tmp");
        assertThat(RemoteShell.parse("ip netns exec").joinsArguments()).isFalse();
        assertThat(String.join(" ", argv)).doesNotContain(SECRET);
        Run r = start(argv);
        assertThat(r.finish(10)).isEqualTo(SECRET + "|a b'c $HOME|3|/tmp\n");
        assertThat(r.process.exitValue()).isZero();
    }

    @Test
    void sshStyleShellsGetOneQuotedCommandForTheRemoteShell() throws Exception {
        RemoteShell ssh = RemoteShell.parse(" /usr/bin/ssh  -o BatchMode=yes ");
        assertThat(ssh.words()).containsExactly("/usr/bin/ssh", "-o", "BatchMode=yes");
        assertThat(ssh.joinsArguments()).isTrue();
        List<String> argv = ssh.argv("node1", PRINT, VARS, "/");
        assertThat(argv.subList(0, 4)).containsExactly("/usr/bin/ssh", "-o", "BatchMode=yes", "node1");
        assertThat(argv).hasSize(5);
        // what sshd does with it: the user's shell runs the joined string
        Run r = start(List.of("sh", "-c", argv.get(4)));
        assertThat(r.finish(10)).isEqualTo(SECRET + "|a b'c $HOME|3|/\n");
    }

    @Test
    void closingStdinStopsTheRankAndItsExitCodeComesBack() throws Exception {
        // the remote script's shell reports the rank it stopped ("Terminated") on stderr: kept out of the build's log
        Run r = start(RemoteShell.parse("env").argv("X=1", List.of("sleep", "60"), VARS, "/"),
                ProcessBuilder.Redirect.DISCARD);
        Thread.sleep(300);
        assertThat(r.process.isAlive()).isTrue();
        r.process.getOutputStream().close();
        assertThat(r.process.waitFor(10, TimeUnit.SECONDS)).as("stopped on end of stdin").isTrue();
        assertThat(r.process.exitValue()).isEqualTo(128 + 15);

        Run exit = start(RemoteShell.parse("env").argv("X=1", List.of("sh", "-c", "exit 7"), VARS, "/"));
        exit.finish(10);
        assertThat(exit.process.exitValue()).isEqualTo(7);
    }

    private record Run(Process process) {
        /** Waits for the end with stdin open (its end-of-file would stop the rank), then closes it. */
        String finish(int seconds) throws Exception {
            assertThat(process.waitFor(seconds, TimeUnit.SECONDS)).isTrue();
            process.getOutputStream().close();
            return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static Run start(List<String> argv) throws IOException {
        return start(argv, ProcessBuilder.Redirect.INHERIT);
    }

    private static Run start(List<String> argv, ProcessBuilder.Redirect stderr) throws IOException {
        Process p = new ProcessBuilder(argv).redirectError(stderr).start();
        p.getOutputStream().write((SECRET + "\n").getBytes(StandardCharsets.US_ASCII));
        p.getOutputStream().flush();
        return new Run(p);
    }
}
