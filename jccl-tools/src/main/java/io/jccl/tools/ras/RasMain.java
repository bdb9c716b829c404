package io.jccl.tools.ras;

import io.jccl.Jccl;
import io.jccl.internal.param.Params;
import io.jccl.internal.ras.RasClient;
import io.jccl.tools.Cli;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.util.concurrent.Callable;

/**
 * {@code jccl ras [--host H] [--port P] [--command C] [--json]}: asks a job's status port (the process holding rank 0
 * listens on NCCL_RAS_ADDR, default 127.0.0.1:28028; {@code ./jccl run} prints the port it chose) which ranks are
 * alive, each rank's last completed operation, the operation in flight and what it waits for, and prints the
 * answer. Runs on the main thread. Mirrors NCCL's {@code ncclras} client.
 */
@Command(name = "jccl ras", mixinStandardHelpOptions = true, sortOptions = false,
        versionProvider = io.jccl.tools.JcclVersion.class,
        description = {"Shows the status of a running job: per communicator and rank, whether it is alive, its last "
                + "completed operation, the operation in flight and what it waits for, and which ranks a stuck "
                + "operation waits for."},
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:the job answered", "1:nothing answered at that address", "2:bad arguments"})
public final class RasMain implements Callable<Integer> {
    @Option(names = "--host", paramLabel = "H",
            description = "host of the status port (default: from NCCL_RAS_ADDR, or 127.0.0.1)")
    String host;

    @Option(names = "--port", paramLabel = "P", description = "status port (default: from NCCL_RAS_ADDR, or 28028)")
    int port;

    @Option(names = "--command", paramLabel = "C", defaultValue = "status",
            description = "status, json or help (default ${DEFAULT-VALUE})")
    String command;

    @Option(names = "--json", description = "print the status as JSON (the same as --command json and the metrics "
            + "endpoint's /status)")
    boolean json;

    @Option(names = "--timeout", paramLabel = "MS", defaultValue = "5000",
            description = "connect/read timeout in ms (default ${DEFAULT-VALUE})")
    int timeoutMs;

    private PrintStream out = System.out;
    private PrintStream err = System.err;

    public static void main(String[] args) {
        System.exit(Cli.commandLine(new RasMain()).execute(args));
    }

    /** For tests: other streams. */
    RasMain with(PrintStream stdout, PrintStream stderr) {
        this.out = stdout;
        this.err = stderr;
        return this;
    }

    @Override
    public Integer call() {
        InetSocketAddress a = address();
        try {
            out.print(RasClient.query(a, json ? "json" : command, timeoutMs));
            out.flush();
            return 0;
        } catch (ConnectException e) {
            err.println("jccl ras: nothing answers at " + a.getHostString() + ":" + a.getPort() + " (" + e.getMessage()
                    + "): is a job running there? The process holding rank 0 listens on NCCL_RAS_ADDR; ./jccl run "
                    + "prints the port it chose");
        } catch (SocketTimeoutException e) {
            err.println("jccl ras: " + a.getHostString() + ":" + a.getPort() + " did not answer within " + timeoutMs
                    + " ms");
        } catch (IOException e) {
            err.println("jccl ras: cannot query " + a.getHostString() + ":" + a.getPort() + ": " + e.getMessage());
        }
        return 1;
    }

    /** --host/--port, filled in from NCCL_RAS_ADDR (host:port) where not given. */
    InetSocketAddress address() {
        String def = Params.RAS_ADDR.get();
        int colon = def.lastIndexOf(':');
        String h = host != null ? host : colon > 0 ? def.substring(0, colon) : "127.0.0.1";
        int p = port;
        if (p == 0) {
            try {
                p = colon > 0 ? Integer.parseInt(def.substring(colon + 1).strip()) : 28028;
            } catch (NumberFormatException e) {
                p = 28028;
            }
        }
        if (p < 1 || p > 65535) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--port must be in [1, 65535], got " + p);
        }
        return new InetSocketAddress(h, p);
    }
}
