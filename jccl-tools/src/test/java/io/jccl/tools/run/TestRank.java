package io.jccl.tools.run;

import java.util.List;

/**
 * A tiny rank program for the launcher tests. Modes (first argument):
 * <ul>
 *   <li>{@code env}: prints its rank variables on stdout, one line on stderr, exits 0;</li>
 *   <li>{@code fail R CODE}: rank R exits with CODE after a short pause, the others sleep a minute;</li>
 *   <li>{@code stubborn R CODE}: as fail, but the others ignore SIGTERM for 30 s (a slow shutdown hook);</li>
 *   <li>{@code sleep}: every rank sleeps a minute;</li>
 *   <li>{@code exit CODE}: every rank exits with CODE;</li>
 *   <li>{@code cpus}: prints the CPUs it may run on ({@code CPUS=0-1}) and its processor count.</li>
 * </ul>
 */
public final class TestRank {
    private TestRank() {
    }

    public static void main(String[] args) throws Exception {
        int rank = Integer.parseInt(System.getenv("RANK"));
        switch (args[0]) {
            case "env" -> {
                for (String name : List.of("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR",
                        "MASTER_PORT", "JCCL_COMM_ID", "JCCL_COMM_SECRET", "OMPI_COMM_WORLD_RANK", "EXTRA", "TEST_HOST",
                        "NCCL_PROTO", "NCCL_HOSTID")) {
                    System.out.println(name + "=" + System.getenv(name));
                }
                System.out.print("no newline at the end");
                System.err.println("a line on stderr");
            }
            case "fail", "stubborn" -> {
                if (rank == Integer.parseInt(args[1])) {
                    Thread.sleep(300);
                    System.exit(Integer.parseInt(args[2]));
                }
                if (args[0].equals("stubborn")) {
                    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                        try {
                            Thread.sleep(30_000);
                        } catch (InterruptedException ignored) {
                            // killed
                        }
                    }));
                }
                System.out.println("waiting");
                Thread.sleep(60_000);
            }
            case "sleep" -> Thread.sleep(60_000);
            case "exit" -> System.exit(Integer.parseInt(args[1]));
            case "cpus" -> System.out.println("CPUS=" + io.jccl.internal.topology.CpuSet.ofThisProcess() + " PROCS="
                    + Runtime.getRuntime().availableProcessors());
            default -> throw new IllegalArgumentException(args[0]);
        }
    }
}
