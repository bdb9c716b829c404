package io.jccl.testing;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs N ranks as separate JVMs (the real multi-process path: own address spaces, sockets between processes), the
 * way a launcher would: RANK / WORLD_SIZE / JCCL_COMM_ID / JCCL_COMM_SECRET in each child's environment.
 */
public final class ProcessRanks {
    private ProcessRanks() {
    }

    /** What every child printed and how it exited. */
    public record Result(List<Integer> exitCodes, List<String> outputs) {
        public boolean allOk() {
            return exitCodes.stream().allMatch(c -> c == 0);
        }
    }

    public static Result run(int n, Class<?> main, List<String> args, Map<String, String> extraEnv, int limitSeconds)
            throws IOException, InterruptedException {
        return start(n, main, args, extraEnv).await(limitSeconds);
    }

    /** Ranks that are running: their processes (to kill or stop them) and their logs. */
    public static final class Job {
        private final List<Process> procs;
        private final List<Path> logs;

        Job(List<Process> procs, List<Path> logs) {
            this.procs = procs;
            this.logs = logs;
        }

        public Process process(int rank) {
            return procs.get(rank);
        }

        /** What rank {@code rank} printed so far. */
        public String output(int rank) throws IOException {
            return Files.readString(logs.get(rank));
        }

        /** Waits until every rank's output contains {@code marker}, or {@code limitMs} passed; returns whether it did. */
        public boolean awaitOutput(String marker, long limitMs) throws IOException, InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(limitMs);
            for (int r = 0; r < procs.size(); r++) {
                while (!output(r).contains(marker)) {
                    if (System.nanoTime() > deadline || !procs.get(r).isAlive() && !output(r).contains(marker)) {
                        return false;
                    }
                    Thread.sleep(20);
                }
            }
            return true;
        }

        /** Waits for every rank (killing all if the limit passes: their codes are then -1), then reads the logs. */
        public Result await(int limitSeconds) throws IOException, InterruptedException {
            List<Integer> codes = new ArrayList<>();
            List<String> outs = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(limitSeconds);
            for (Process p : procs) {
                boolean done = p.waitFor(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())),
                        TimeUnit.MILLISECONDS);
                if (!done) {
                    procs.forEach(q -> {
                        q.destroyForcibly();
                        ProcessRanks.signal(q.pid(), "CONT");
                    });
                    codes.add(-1);
                } else {
                    codes.add(p.exitValue());
                }
            }
            for (Process p : procs) {
                p.waitFor(10, TimeUnit.SECONDS);
            }
            removeShmFilesOf(procs);
            for (Path log : logs) {
                outs.add(Files.readString(log));
                Files.deleteIfExists(log);
            }
            return new Result(codes, outs);
        }
    }

    /**
     * Removes the shared-memory files a killed rank could not clean up (JCCL names them
     * {@code jccl-<comm>-<pid>-...}), so fault tests leave /dev/shm as they found it.
     */
    static void removeShmFilesOf(List<Process> procs) throws IOException {
        Path dir = Path.of("/dev/shm");
        if (!Files.isDirectory(dir)) {
            return;
        }
        java.util.Set<String> pids = new java.util.HashSet<>();
        for (Process p : procs) {
            pids.add(Long.toString(p.pid()));
        }
        try (java.util.stream.Stream<Path> files = Files.list(dir)) {
            for (Path f : files.toList()) {
                String[] parts = f.getFileName().toString().split("-");
                if (parts.length > 3 && parts[0].equals("jccl") && pids.contains(parts[2])) {
                    Files.deleteIfExists(f);
                }
            }
        }
    }

    /** Starts {@code n} ranks of {@code main} and returns at once. */
    public static Job start(int n, Class<?> main, List<String> args, Map<String, String> extraEnv) throws IOException {
        return start(n, main, args, extraEnv, r -> Map.of());
    }

    /** As {@link #start(int, Class, List, Map)}, with {@code perRank.apply(r)} added to rank r's environment. */
    public static Job start(int n, Class<?> main, List<String> args, Map<String, String> extraEnv,
                            java.util.function.IntFunction<Map<String, String>> perRank) throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<Process> procs = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            List<String> cmd = new ArrayList<>(List.of(javaBin, "--add-modules", "jdk.incubator.vector",
                    "--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
                    "-XX:+UseSerialGC", "-Xss512k",
                    "-cp", System.getProperty("java.class.path"), main.getName()));
            cmd.addAll(args);
            ProcessBuilder pb = new ProcessBuilder(cmd);
            Path log = Files.createTempFile("jccl-rank" + r + "-", ".log");
            pb.redirectErrorStream(true).redirectOutput(log.toFile());
            Map<String, String> env = pb.environment();
            env.put("RANK", Integer.toString(r));
            env.put("WORLD_SIZE", Integer.toString(n));
            env.put("LOCAL_RANK", Integer.toString(r));
            env.put("JCCL_COMM_ID", "127.0.0.1:" + port);
            env.put("JCCL_COMM_SECRET", HexFormat.of().formatHex(secret));
            env.putAll(extraEnv);
            env.putAll(perRank.apply(r));
            procs.add(pb.start());
            logs.add(log);
        }
        return new Job(procs, logs);
    }

    /** Sends {@code kill -SIG pid} (STOP, CONT, KILL...); returns whether it was delivered. */
    public static boolean signal(long pid, String sig) {
        try {
            return new ProcessBuilder("kill", "-" + sig, Long.toString(pid)).redirectErrorStream(true).start()
                    .waitFor(5, TimeUnit.SECONDS);
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
