package io.jccl.tools;

import picocli.CommandLine;

import java.io.PrintWriter;

/**
 * Shared picocli setup of the tools: a failure inside a command prints one line, {@code jccl <tool>: <message>
 * <- <cause>...}, and exits 1 instead of dumping a stack trace (set {@code JCCL_TRACE=1} to get the trace too).
 * Stateless; used on the main thread of each tool.
 */
public final class Cli {
    private Cli() {
    }

    /** A command line for {@code command} with the tools' error handling. */
    public static CommandLine commandLine(Object command) {
        CommandLine cl = new CommandLine(command);
        cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            PrintWriter err = commandLine.getErr();
            err.println(commandLine.getCommandName() + ": " + describe(ex));
            if (traceWanted()) {
                ex.printStackTrace(err);
            }
            err.flush();
            return 1;
        });
        return cl;
    }

    /** JCCL_TRACE: print stack traces too (any value but 0/false counts, as before the registry). */
    static boolean traceWanted() {
        String v = io.jccl.internal.param.ExternalParams.TRACE.raw();
        return v != null && !v.equals("0") && !v.equalsIgnoreCase("false");
    }

    /** The message of {@code t} and of its causes, on one line. */
    public static String describe(Throwable t) {
        StringBuilder sb = new StringBuilder();
        int depth = 0;
        for (Throwable c = t; c != null && depth < 8; c = c.getCause(), depth++) {
            String m = c.getMessage() != null ? c.getMessage() : c.getClass().getSimpleName();
            if (sb.indexOf(m) >= 0) {
                continue;
            }
            if (!sb.isEmpty()) {
                sb.append(" <- ");
            }
            sb.append(m);
        }
        return sb.toString();
    }
}
