package io.jccl.tools.run.netns;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs a short helper command (ip, tc, the netns script) with a deadline and returns its output; a command that
 * fails or overruns throws with its output in the message, and an overrunning one is killed with its children.
 * Stateless; used by the test thread.
 */
final class Commands {
    private Commands() {
    }

    /** Runs {@code argv}, stderr merged into stdout; throws unless it exits 0 within {@code timeoutMs}. */
    static String check(long timeoutMs, List<String> argv) {
        Process p;
        try {
            p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + argv, e);
        }
        try {
            p.getOutputStream().close();
            CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> {
                try {
                    return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                } catch (IOException e) {
                    return "";
                }
            });
            if (!p.waitFor(timeoutMs, TimeUnit.MILLISECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                throw new IllegalStateException(argv + " did not finish within " + timeoutMs + " ms");
            }
            String text = out.get(5, TimeUnit.SECONDS);
            if (p.exitValue() != 0) {
                throw new IllegalStateException(argv + " exited with " + p.exitValue() + ": " + text.strip());
            }
            return text;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IllegalStateException("interrupted while running " + argv, e);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            p.destroyForcibly();
            throw new IllegalStateException("cannot read the output of " + argv, e);
        }
    }
}
