package io.jccl.tools.scale;

import io.jccl.Communicator;
import io.jccl.RedOp;
import io.jccl.tools.Cli;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

/**
 * {@code jccl scale}: how init, the first allReduce and close grow with the number of ranks, measured through the
 * public API with every rank a thread of this process ({@code Communicator.initAll(n)}, one allReduce on every rank
 * at once, verified, then close from one thread). Prints one row per rank count: the three times, the same per rank,
 * and the file descriptors and platform threads the process held once init was done.
 *
 * <p>Runs on the main thread; the allReduce runs on one platform thread per rank.
 */
@Command(name = "jccl scale", mixinStandardHelpOptions = true, sortOptions = false,
        versionProvider = io.jccl.tools.JcclVersion.class,
        description = {"Times init, the first allReduce and close of n thread ranks in this process, for n from "
                + "--from to --to, doubling."})
public final class ScaleMain implements Callable<Integer> {
    @Option(names = "--from", description = "smallest rank count (default ${DEFAULT-VALUE})")
    int from = 8;

    @Option(names = "--to", description = "largest rank count (default ${DEFAULT-VALUE})")
    int to = 256;

    @Option(names = "--count", description = "floats per rank in the allReduce (default ${DEFAULT-VALUE})")
    int count = 1024;

    @Option(names = "--again", description = "also time a second allReduce (the first one includes lazy connects)")
    boolean again;

    @Option(names = "--fds", description = "also print the kinds of open files after each init")
    boolean kinds;

    private final PrintStream out = System.out;

    public static void main(String[] args) {
        System.exit(Cli.commandLine(new ScaleMain()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        out.printf(Locale.ROOT, "%6s %9s %9s %9s %11s %11s %11s %7s %8s%n", "ranks", "init s", "first s", "close s",
                "init ms/r", "first ms/r", "close ms/r", "fds", "threads");
        int wrong = 0;
        for (int n = from; n <= to; n *= 2) {
            Row r = measure(n);
            wrong += r.wrong();
            out.printf(Locale.ROOT, "%6d %9.3f %9.3f %9.3f %11.3f %11.3f %11.3f %7d %8d%s%n", n, r.initS(), r.firstS(),
                    r.closeS(), 1e3 * r.initS() / n, 1e3 * r.firstS() / n, 1e3 * r.closeS() / n, r.fds(), r.threads(),
                    r.wrong() > 0 ? "  WRONG " + r.wrong() : "");
            System.gc();
        }
        return wrong == 0 ? 0 : 1;
    }

    private record Row(double initS, double firstS, double closeS, int fds, int threads, int wrong) {
    }

    private Row measure(int n) throws Exception {
        long t0 = System.nanoTime();
        List<Communicator> comms = Communicator.initAll(n, io.jccl.Config.defaults());
        long t1 = System.nanoTime();
        int fds = openFiles();
        if (kinds) {
            out.println("  open files after init of " + n + ": " + fileKinds());
        }
        int threads = ManagementFactory.getThreadMXBean().getThreadCount();
        int wrong = allReduceAll(comms, n);
        long t2 = System.nanoTime();
        if (again) {
            long a0 = System.nanoTime();
            wrong += allReduceAll(comms, n);
            out.printf(Locale.ROOT, "  second allReduce of %d ranks: %.3f s%n", n, (System.nanoTime() - a0) / 1e9);
        }
        long t3 = System.nanoTime();
        for (Communicator c : comms) {
            c.close();
        }
        long t4 = System.nanoTime();
        return new Row((t1 - t0) / 1e9, (t2 - t1) / 1e9, (t4 - t3) / 1e9, fds, threads, wrong);
    }

    /** One allReduce on every rank at once, each on a thread of its own; returns the wrong elements. */
    private int allReduceAll(List<Communicator> comms, int n) throws Exception {
        int wrong = 0;
        try (ExecutorService ex = Executors.newThreadPerTaskExecutor(Thread.ofPlatform().daemon().factory())) {
            List<Future<Integer>> parts = new ArrayList<>(n);
            for (Communicator c : comms) {
                parts.add(ex.submit(() -> allReduce(c, n)));
            }
            for (Future<Integer> f : parts) {
                wrong += f.get();
            }
        }
        return wrong;
    }

    /** Rank r contributes r + i at element i; returns how many elements differ from the sum. */
    private int allReduce(Communicator c, int n) {
        float[] data = new float[count];
        int rank = c.rank();
        for (int i = 0; i < count; i++) {
            data[i] = rank + (i % 7);
        }
        c.allReduce(data, RedOp.SUM);
        int wrong = 0;
        for (int i = 0; i < count; i++) {
            float want = (float) n * (n - 1) / 2 + (float) n * (i % 7);
            wrong += data[i] == want ? 0 : 1;
        }
        return wrong;
    }

    /** Open files by kind (socket, pipe, anon_inode, or the file's directory). */
    private static java.util.Map<String, Integer> fileKinds() {
        java.util.Map<String, Integer> m = new java.util.TreeMap<>();
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            s.forEach(p -> {
                String k;
                try {
                    String t = Files.readSymbolicLink(p).toString();
                    k = t.contains(":") ? t.substring(0, t.indexOf(':')) : Path.of(t).getParent() + "/";
                } catch (IOException | RuntimeException e) {
                    k = "?";
                }
                m.merge(k, 1, Integer::sum);
            });
        } catch (IOException e) {
            m.put("?", -1);
        }
        return m;
    }

    private static int openFiles() {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return (int) s.count();
        } catch (IOException e) {
            return -1;
        }
    }
}
