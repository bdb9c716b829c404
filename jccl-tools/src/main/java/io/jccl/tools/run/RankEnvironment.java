package io.jccl.tools.run;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * The environment each local rank gets, as a torchrun or mpirun user would expect it: {@code RANK},
 * {@code WORLD_SIZE}, {@code LOCAL_RANK}, {@code LOCAL_WORLD_SIZE}, {@code MASTER_ADDR}, {@code MASTER_PORT},
 * {@code JCCL_COMM_ID} (host:port where rank 0 starts the bootstrap root) and {@code JCCL_COMM_SECRET} (32 random
 * bytes in hex that authenticate the ranks). Variables another launcher may have left in our own environment
 * (Open MPI's, Slurm's, PMI's, {@code NCCL_COMM_ID}) are removed so they cannot contradict ours.
 * A value computed once per job by the launcher thread; mirrors what {@code mpirun}/{@code torchrun} export.
 *
 * @param masterAddr the bootstrap root's address (loopback when all ranks are local)
 * @param masterPort a port that was free when the job started
 * @param secretHex  64 hex characters
 * @param worldSize  number of ranks
 */
public record RankEnvironment(String masterAddr, int masterPort, String secretHex, int worldSize) {

    /** Loopback: every rank of a local job is on this host. */
    public static final String LOOPBACK = "127.0.0.1";

    private static final SecureRandom RANDOM = new SecureRandom();

    /** Prefixes of variables removed from the children's environment (other launchers' rank variables). */
    static final List<String> FOREIGN_PREFIXES = List.of("OMPI_COMM_WORLD_", "PMI_", "PMIX_RANK", "MV2_COMM_WORLD_");

    /** Exact names removed from the children's environment. */
    static final List<String> FOREIGN_NAMES = List.of("NCCL_COMM_ID", "SLURM_PROCID", "SLURM_NTASKS",
            "SLURM_NPROCS", "SLURM_LOCALID", "SLURM_NODEID", "GROUP_RANK", "ROLE_RANK", "NODE_RANK");

    public RankEnvironment {
        if (worldSize < 1) {
            throw new IllegalArgumentException("world size must be at least 1, got " + worldSize);
        }
        if (masterPort < 1 || masterPort > 65535) {
            throw new IllegalArgumentException("port out of range: " + masterPort);
        }
        if (secretHex.length() != 64 || !secretHex.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
            throw new IllegalArgumentException("the secret must be 64 hex characters");
        }
    }

    /** A new job environment on loopback with a free port and a fresh random secret. */
    public static RankEnvironment create(int worldSize) {
        return create(worldSize, LOOPBACK);
    }

    /**
     * A new job environment whose bootstrap root (rank 0) listens at {@code masterAddr}, with a port that is free
     * here (on another host it is very likely free too) and a fresh random secret.
     *
     * @param worldSize  number of ranks
     * @param masterAddr an address of rank 0's host that every rank can reach
     * @return the environment
     */
    public static RankEnvironment create(int worldSize, String masterAddr) {
        byte[] secret = new byte[32];
        RANDOM.nextBytes(secret);
        return new RankEnvironment(masterAddr, freePort(), HexFormat.of().formatHex(secret), worldSize);
    }

    /** The variables to set for {@code rank}. */
    public Map<String, String> forRank(int rank) {
        if (rank < 0 || rank >= worldSize) {
            throw new IllegalArgumentException("rank " + rank + " out of range [0, " + worldSize + ")");
        }
        Map<String, String> env = new HashMap<>();
        env.put("RANK", Integer.toString(rank));
        env.put("WORLD_SIZE", Integer.toString(worldSize));
        env.put("LOCAL_RANK", Integer.toString(rank));
        env.put("LOCAL_WORLD_SIZE", Integer.toString(worldSize));
        env.put("MASTER_ADDR", masterAddr);
        env.put("MASTER_PORT", Integer.toString(masterPort));
        env.put("JCCL_COMM_ID", masterAddr + ":" + masterPort);
        env.put("JCCL_COMM_SECRET", secretHex);
        return env;
    }

    /** Applies this rank's variables to a child's environment (as given by {@code ProcessBuilder.environment()}). */
    public void applyTo(Map<String, String> childEnv, int rank) {
        childEnv.keySet().removeIf(RankEnvironment::isForeign);
        childEnv.putAll(forRank(rank));
    }

    static boolean isForeign(String name) {
        return FOREIGN_NAMES.contains(name) || FOREIGN_PREFIXES.stream().anyMatch(name::startsWith);
    }

    /** A TCP port on loopback that is free right now (the OS picks it; another program could still take it). */
    public static int freePort() {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(false);
            s.bind(new InetSocketAddress(InetAddress.getByName(LOOPBACK), 0));
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find a free TCP port on " + LOOPBACK
                    + ": is the loopback interface up?", e);
        }
    }
}
