package io.jccl.internal.comm;

import io.jccl.Communicator;
import io.jccl.Config;
import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.UniqueId;
import io.jccl.internal.bootstrap.BootstrapRoot;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;
import io.jccl.internal.param.Params;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * Builds a communicator from what a launcher put in the environment (torchrun, mpirun, srun, {@code ./jccl run}):
 * the root address from JCCL_COMM_ID / NCCL_COMM_ID or MASTER_ADDR:MASTER_PORT, rank and size from RANK /
 * WORLD_SIZE, OMPI_COMM_WORLD_RANK / _SIZE, SLURM_PROCID / SLURM_NTASKS or PMI_RANK / PMI_SIZE. Rank 0 starts the
 * bootstrap root on that address. The handle's magic and secret come from JCCL_COMM_SECRET when the launcher set
 * one, else from the address (which then authenticates nothing: set a secret on shared networks).
 *
 * <p>Owned by: the calling thread. Mirrors: NCCL_COMM_ID handling in bootstrapNetInit / ncclGetUniqueId.
 */
final class EnvLaunch {
    private EnvLaunch() {
    }

    /** Rank, size and root address as found in an environment map. */
    record Placement(int rank, int size, String rootHostPort, String source) {
    }

    static Communicator init(Config config) {
        return initRanks(config, 1).getFirst();
    }

    /**
     * This process's {@code perProcess} ranks of a communicator of {@code WORLD_SIZE × perProcess} ranks: process p
     * holds ranks {@code p·perProcess} to {@code p·perProcess + perProcess - 1}.
     */
    static List<Communicator> initRanks(Config config, int perProcess) {
        if (perProcess < 1) {
            throw new JcclException(Result.INVALID_ARGUMENT, "ranks per process must be at least 1, got " + perProcess);
        }
        Placement p = placement(System.getenv());
        InetSocketAddress root = parseHostPort(p.rootHostPort());
        byte[] secret = secret(p.rootHostPort());
        long magic = magicOf(secret);
        UniqueId id = UniqueId.create(root, magic, secret);
        int nRanks = Math.multiplyExact(p.size(), perProcess);
        int[] ranks = new int[perProcess];
        for (int i = 0; i < perProcess; i++) {
            ranks[i] = p.rank() * perProcess + i;
        }
        if (perProcess == 1) {
            Log.info(Subsys.BOOTSTRAP, p.rank(), "environment launch (%s): rank %d of %d, root %s", p.source(),
                    p.rank(),
                    p.size(), p.rootHostPort());
        } else {
            Log.info(Subsys.BOOTSTRAP, ranks[0], "environment launch (%s): process %d of %d holds ranks %d-%d of %d, "
                    + "root %s", p.source(), p.rank(), p.size(), ranks[0], ranks[perProcess - 1], nRanks,
                            p.rootHostPort());
        }
        if (p.rank() == 0) {
            BootstrapRoot.startAt(new InetSocketAddress(root.getPort()), id);
        }
        return perProcess == 1 ? List.of(CommFactory.init(id, nRanks, ranks[0], config))
                : CommFactory.initRanks(id, nRanks, ranks, config);
    }

    static Placement placement(Map<String, String> env) {
        String[][] styles = {
            {"RANK", "WORLD_SIZE", "torchrun"},
            {"JCCL_RANK", "JCCL_WORLD_SIZE", "jccl"},
            {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "mpirun (Open MPI)"},
            {"PMI_RANK", "PMI_SIZE", "PMI (MPICH)"},
            {"SLURM_PROCID", "SLURM_NTASKS", "srun (Slurm)"},
        };
        for (String[] s : styles) {
            String r = env.get(s[0]);
            String n = env.get(s[1]);
            if (r != null && n != null) {
                int rank = parseInt(r, s[0]);
                int size = parseInt(n, s[1]);
                if (rank < 0 || rank >= size) {
                    throw new JcclException(Result.INVALID_ARGUMENT, s[0] + "=" + r + " is not in [0, " + s[1] + "="
                            + n + ")");
                }
                return new Placement(rank, size, rootAddress(env, s[2]), s[2]);
            }
        }
        throw new JcclException(Result.INVALID_ARGUMENT, "no launcher environment found: set RANK and WORLD_SIZE "
                + "(torchrun), or start with mpirun, srun or ./jccl run; plus JCCL_COMM_ID or MASTER_ADDR/MASTER_PORT");
    }

    private static String rootAddress(Map<String, String> env, String style) {
        String id = firstSet(env, Params.JCCL_COMM_ID.name(), Params.COMM_ID.name());
        if (id != null) {
            return id;
        }
        String addr = env.get("MASTER_ADDR");
        String port = env.get("MASTER_PORT");
        if (addr != null && port != null) {
            return addr + ":" + port;
        }
        throw new JcclException(Result.INVALID_ARGUMENT, "launched by " + style + " but no root address: set "
                + "JCCL_COMM_ID=host:port (or NCCL_COMM_ID) or MASTER_ADDR and MASTER_PORT");
    }

    private static String firstSet(Map<String, String> env, String... names) {
        for (String n : names) {
            String v = System.getProperty(n, env.get(n));
            if (v != null && !v.isBlank()) {
                return v.trim();
            }
        }
        return null;
    }

    static InetSocketAddress parseHostPort(String hp) {
        int colon = hp.lastIndexOf(':');
        if (colon <= 0 || colon == hp.length() - 1) {
            throw new JcclException(Result.INVALID_ARGUMENT, "root address '" + hp + "' is not host:port");
        }
        String host = hp.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port = parseInt(hp.substring(colon + 1), "port of " + hp);
        try {
            return new InetSocketAddress(InetAddress.getByName(host), port);
        } catch (UnknownHostException e) {
            throw new JcclException(Result.INVALID_ARGUMENT, "cannot resolve root host '" + host + "'", e);
        }
    }

    private static byte[] secret(String rootHostPort) {
        String hex = Params.COMM_SECRET.get();
        if (!hex.isEmpty()) {
            try {
                byte[] s = HexFormat.of().parseHex(hex);
                if (s.length == 32) {
                    return s;
                }
            } catch (IllegalArgumentException ignored) {
                // reported below
            }
            throw new JcclException(Result.INVALID_ARGUMENT, "JCCL_COMM_SECRET must be 64 hexadecimal characters");
        }
        return sha256("jccl-env-secret|" + rootHostPort);
    }

    private static long magicOf(byte[] secret) {
        byte[] d = sha256("jccl-magic|" + HexFormat.of().formatHex(secret));
        long m = 0;
        for (int i = 0; i < 8; i++) {
            m = (m << 8) | (d[i] & 0xff);
        }
        return m;
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new JcclException(Result.INTERNAL_ERROR, "SHA-256 unavailable", e);
        }
    }

    private static int parseInt(String v, String what) {
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new JcclException(Result.INVALID_ARGUMENT, what + "='" + v + "' is not a number");
        }
    }
}
