package io.jccl.internal.launch;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.UniqueId;
import io.jccl.internal.bootstrap.BootstrapRoot;
import io.jccl.internal.param.Params;
import io.jccl.launch.Placement;
import io.jccl.launch.Rendezvous;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A root address every process knows beforehand ({@code JCCL_COMM_ID} / {@code NCCL_COMM_ID}, else
 * {@code MASTER_ADDR:MASTER_PORT}): rank 0 starts the bootstrap root on that port, and every process derives the
 * same id from the address. The id's secret comes from {@code JCCL_COMM_SECRET} when the launcher set one (as
 * {@code ./jccl run} does), else from the address, which then authenticates nothing.
 *
 * <p>Owned by: the calling thread (stateless). Mirrors: NCCL_COMM_ID handling in bootstrapNetInit / ncclGetUniqueId.
 */
public final class AddressRendezvous implements Rendezvous {
    @Override
    public String name() {
        return "address";
    }

    /** An address the user set beats every launcher's own way; MASTER_ADDR alone is the fallback. */
    @Override
    public int priority() {
        return explicit(System.getenv()) != null ? 100 : 10;
    }

    @Override
    public boolean detect(Map<String, String> env) {
        return EnvPlacement.find(env).isPresent() && (explicit(env) != null || masterAddress(env) != null);
    }

    @Override
    public Placement placement(Map<String, String> env) {
        return EnvPlacement.require(env, name());
    }

    @Override
    public UniqueId shareId(Placement self, Supplier<UniqueId> newId, Duration timeout) {
        Map<String, String> env = System.getenv();
        String hostPort = rootAddress(env, self.launcher());
        return serveOrJoin(hostPort, parseHostPort(hostPort), "", self.rank());
    }

    /**
     * The id of {@link #idFor(String, InetSocketAddress, String)}; on rank 0 this process also starts the bootstrap
     * root on its port (every interface), which the other ranks then join.
     */
    static UniqueId serveOrJoin(String hostPort, InetSocketAddress resolved, String salt, int rank) {
        UniqueId id = idFor(hostPort, resolved, salt);
        if (rank == 0) {
            BootstrapRoot.startAt(new InetSocketAddress(resolved.getPort()), id);
        }
        return id;
    }

    /** The id every process derives from {@code host:port} (and JCCL_COMM_SECRET). */
    static UniqueId idFor(String hostPort) {
        return idFor(hostPort, parseHostPort(hostPort), "");
    }

    /**
     * The id every process derives from {@code host:port} (and JCCL_COMM_SECRET), with its root at {@code resolved}
     * (the address {@code hostPort} names) and {@code salt} mixed into the magic and the address-derived secret, so
     * that one address gives a different id for each salt (a launcher's run and attempt); "" gives
     * {@link #idFor(String)}'s.
     */
    static UniqueId idFor(String hostPort, InetSocketAddress resolved, String salt) {
        byte[] secret = secret(hostPort + salt);
        return UniqueId.create(resolved, magicOf(HexFormat.of().formatHex(secret) + salt), secret);
    }

    static String rootAddress(Map<String, String> env, String launcher) {
        String id = explicit(env);
        if (id == null) {
            id = masterAddress(env);
        }
        if (id == null) {
            throw new JcclException(Result.INVALID_ARGUMENT, "launched by " + launcher + " but no root address: set "
                    + "JCCL_COMM_ID=host:port (or NCCL_COMM_ID) or MASTER_ADDR and MASTER_PORT");
        }
        return id;
    }

    private static String explicit(Map<String, String> env) {
        for (String n : new String[] {Params.JCCL_COMM_ID.name(), Params.COMM_ID.name()}) {
            String v = System.getProperty(n, env.get(n));
            if (v != null && !v.isBlank()) {
                return v.trim();
            }
        }
        return null;
    }

    private static String masterAddress(Map<String, String> env) {
        String addr = env.get("MASTER_ADDR");
        String port = env.get("MASTER_PORT");
        return addr != null && port != null ? addr + ":" + port : null;
    }

    /** {@code host:port} or {@code [v6]:port}, resolved. */
    public static InetSocketAddress parseHostPort(String hp) {
        int colon = hp.lastIndexOf(':');
        if (colon <= 0 || colon == hp.length() - 1) {
            throw new JcclException(Result.INVALID_ARGUMENT, "root address '" + hp + "' is not host:port");
        }
        String host = hp.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port = EnvPlacement.parseInt(hp.substring(colon + 1), "port of " + hp);
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

    private static long magicOf(String secretHexAndSalt) {
        byte[] d = sha256("jccl-magic|" + secretHexAndSalt);
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
}
