package io.jccl.examples;

import io.jccl.Communicator;
import io.jccl.Config;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;

/** Test helper: runs an example body on n ranks as threads of this JVM and collects results and output. */
final class InProcessRanks {
    record Outcome(List<Boolean> results, String output) {
    }

    private InProcessRanks() {
    }

    static Outcome run(int n, Examples.Body body) throws InterruptedException {
        List<Communicator> comms = Communicator.initAll(n, Config.defaults().withTimeout(Duration.ofSeconds(60)));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        AtomicReferenceArray<Boolean> results = new AtomicReferenceArray<>(n);
        AtomicReferenceArray<Throwable> errors = new AtomicReferenceArray<>(n);
        List<Thread> threads = new ArrayList<>();
        for (Communicator c : comms) {
            threads.add(Thread.ofPlatform().start(() -> {
                try (c) {
                    results.set(c.rank(), body.run(c, out));
                } catch (Throwable t) {
                    errors.set(c.rank(), t);
                }
            }));
        }
        for (Thread t : threads) {
            t.join(120_000);
        }
        List<Boolean> r = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (errors.get(i) != null) {
                throw new AssertionError("rank " + i + " failed", errors.get(i));
            }
            r.add(results.get(i));
        }
        return new Outcome(r, bytes.toString(StandardCharsets.UTF_8));
    }
}
