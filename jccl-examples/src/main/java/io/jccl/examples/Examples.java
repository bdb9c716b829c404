package io.jccl.examples;

import io.jccl.Communicator;
import io.jccl.JcclException;

import java.io.PrintStream;

/**
 * What every example's {@code main} does around its body: join the communicator the launcher described
 * ({@link Communicator#fromEnvironment()}), run, close, and exit 0 when the results were right, 1 otherwise (with
 * the error's message on stderr). Runs on the process's main thread.
 */
final class Examples {
    /** One example's work on one rank; returns true when the results were right. */
    @FunctionalInterface
    interface Body {
        boolean run(Communicator comm, PrintStream out);
    }

    private Examples() {
    }

    static void main(String name, Body body) {
        boolean ok;
        try (Communicator comm = Communicator.fromEnvironment()) {
            ok = body.run(comm, System.out);
        } catch (JcclException e) {
            System.err.println(name + ": " + e.getMessage());
            ok = false;
        }
        System.out.flush();
        System.exit(ok ? 0 : 1);
    }

    /** The {@code int} argument {@code i} of {@code args}, or {@code dflt} when absent. */
    static int intArg(String[] args, int i, int dflt) {
        return args.length > i ? Integer.parseInt(args[i]) : dflt;
    }
}
