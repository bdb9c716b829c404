package io.jccl.examples;

import io.jccl.Communicator;

import java.io.PrintStream;

/**
 * {@link AllReduceExample} as a launcher's worker, with a crash on demand for testing a launcher's restarts and
 * failure reports: each rank first prints which communicator it joined in which attempt ({@code rank R attempt A:
 * communicator ID of N ranks}, A being torchrun's {@code TORCHELASTIC_RESTART_COUNT}, 0 when unset). With
 * {@code EXAMPLE_EXIT_RANK=r}, rank r then dies at once with status {@code EXAMPLE_EXIT_CODE} (default 3),
 * without closing anything, as a crashed process would; with {@code EXAMPLE_EXIT_ATTEMPT=a} only in attempt a (the
 * names lack JCCL's prefix: they are the example's, not the library's).
 * The other ranks go on to the allReduce and report how it ended. Runs on the process's main thread.
 *
 * <pre>{@code torchrun --nproc_per_node 4 --no_python ./jccl java io.jccl.examples.LaunchedAllReduce 4096}</pre>
 */
public final class LaunchedAllReduce {
    private LaunchedAllReduce() {
    }

    public static void main(String[] args) {
        int n = Examples.intArg(args, 0, 1 << 20);
        Examples.main("LaunchedAllReduce", (comm, out) -> run(comm, out, n));
    }

    private static boolean run(Communicator comm, PrintStream out, int count) {
        String attempt = System.getenv().getOrDefault("TORCHELASTIC_RESTART_COUNT", "0");
        out.printf("rank %d attempt %s: communicator %s of %d ranks%n", comm.rank(), attempt, comm.id(), comm.size());
        String exitRank = System.getenv("EXAMPLE_EXIT_RANK");
        String exitAttempt = System.getenv("EXAMPLE_EXIT_ATTEMPT");
        if (exitRank != null && Integer.parseInt(exitRank.trim()) == comm.rank()
                && (exitAttempt == null || exitAttempt.trim().equals(attempt))) {
            int code = Integer.parseInt(System.getenv().getOrDefault("EXAMPLE_EXIT_CODE", "3").trim());
            out.printf("rank %d attempt %s: exiting with status %d (EXAMPLE_EXIT_RANK)%n", comm.rank(), attempt,
                    code);
            out.flush();
            Runtime.getRuntime().halt(code);
        }
        return AllReduceExample.run(comm, out, count);
    }
}
