package io.jccl.tools.run;

import java.io.PrintStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * Builds the {@link LocalJob} that runs a {@link LaunchSpec} on the hosts of a hostfile: placement by slot, the
 * remote shell ({@code --rsh}, else {@code JCCL_RSH}, else {@link RemoteShell#DEFAULT}), the bootstrap root on rank
 * 0's host ({@code --master-addr}, else that host's name resolved here). Shared by {@code jccl run} and
 * {@code jccl perf}; called on the launcher's main thread.
 */
public final class HostfileJob {
    private HostfileJob() {
    }

    /**
     * The job.
     *
     * @param spec       what to run; {@code spec.nRanks()} ranks
     * @param hostfile   the Open MPI style hostfile
     * @param rsh        the remote shell command, or null for {@code JCCL_RSH} / the default
     * @param masterAddr the address of rank 0's host the others reach, or null to resolve its name
     * @param exports    further variable names to forward (as mpirun's {@code -x})
     * @param out        where the ranks' stdout goes
     * @param err        where their stderr and the launcher's messages go
     * @return the job, not started
     * @throws IllegalArgumentException when the hostfile is unusable or rank 0's host has no reachable address
     */
    public static LocalJob create(LaunchSpec spec, Path hostfile, String rsh, String masterAddr, List<String> exports,
                                  PrintStream out, PrintStream err) {
        RankPlacement placement = RankPlacement.bySlot(Hostfile.read(hostfile), spec.nRanks());
        String fromEnv = System.getenv("JCCL_RSH");
        String rshCommand = rsh != null && !rsh.isBlank() ? rsh
                : fromEnv != null && !fromEnv.isBlank() ? fromEnv : RemoteShell.DEFAULT;
        String root = masterAddr != null && !masterAddr.isBlank() ? masterAddr
                : resolve(placement.hostOfRank().getFirst(), placement.ranksPerHost().size() == 1);
        RankEnvironment env = RankEnvironment.create(spec.nRanks(), root);
        err.println("jccl run: " + spec.nRanks() + " rank(s) on " + placement.ranksPerHost() + " via '" + rshCommand
                + "'; bootstrap root " + root + ":" + env.masterPort());
        RemoteRanks ranks = new RemoteRanks(placement, RemoteShell.parse(rshCommand), System.getenv(),
                Set.copyOf(exports));
        return new LocalJob(spec, JvmCommandLine.current(), ranks, env, out, err);
    }

    /** Rank 0's host name as an address the other hosts can use (loopback only when it is the only host). */
    static String resolve(String host, boolean onlyHost) {
        InetAddress a;
        try {
            a = InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("cannot resolve rank 0's host '" + host + "' to an address; give "
                    + "--master-addr with an address of that host the other hosts reach", e);
        }
        if (a.isLoopbackAddress() && !onlyHost) {
            throw new IllegalArgumentException("rank 0's host '" + host + "' resolves to loopback ("
                    + a.getHostAddress() + "), which the other hosts cannot reach; give --master-addr");
        }
        return a.getHostAddress();
    }
}
