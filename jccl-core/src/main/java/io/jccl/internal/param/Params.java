package io.jccl.internal.param;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;

/**
 * The parameter registry: every NCCL_* / JCCL_* variable JCCL reads is declared here, once.
 * Owned by: any thread (immutable). Mirrors: NCCL's scattered NCCL_PARAM declarations, gathered in one place.
 */
public final class Params {
    private static final List<Param<?>> ALL = new ArrayList<>();

    public static final Param<Long> TIMEOUT_MS = longParam("JCCL_TIMEOUT_MS", 120_000L,
            "deadline of any single wait (peer data, credits, bootstrap) in milliseconds");
    public static final Param<Long> BUFFSIZE = longParam("NCCL_BUFFSIZE", 4L << 20,
            "bytes of each ring connector's FIFO (NCCL_STEPS slots)");
    public static final Param<Long> P2P_BUFFSIZE = longParam("JCCL_P2P_BUFFSIZE", 1L << 20,
            "bytes of each point-to-point connector's FIFO when it is not shared with a ring");
    public static final Param<Integer> MIN_NCHANNELS = intParam("NCCL_MIN_NCHANNELS", 0,
            "minimum number of channels (0: automatic)");
    public static final Param<Integer> MAX_NCHANNELS = intParam("NCCL_MAX_NCHANNELS", 0,
            "maximum number of channels (0: automatic)");
    public static final Param<String> SOCKET_IFNAME = stringParam("NCCL_SOCKET_IFNAME", "",
            "network interfaces to use: prefixes, ^ to exclude, = for exact names");
    public static final Param<String> SOCKET_FAMILY = stringParam("NCCL_SOCKET_FAMILY", "",
            "AF_INET or AF_INET6 to restrict the address family");
    public static final Param<String> COMM_ID = stringParam("NCCL_COMM_ID", "",
            "host:port of the bootstrap root (rank 0 starts it)");
    public static final Param<String> JCCL_COMM_ID = stringParam("JCCL_COMM_ID", "",
            "host:port of the bootstrap root; takes precedence over NCCL_COMM_ID");
    public static final Param<String> COMM_SECRET = stringParam("JCCL_COMM_SECRET", "",
            "64 hex characters shared by all ranks, authenticating them (launchers set it)");
    public static final Param<String> HOSTID = stringParam("NCCL_HOSTID", "",
            "overrides the host identity used to decide which ranks share a host");
    public static final Param<Integer> SHM_DISABLE = intParam("NCCL_SHM_DISABLE", 0,
            "1: never use shared memory between ranks of one host (use sockets)");
    public static final Param<Long> ONESHOT_MAX_BYTES = longParam("JCCL_ONESHOT_MAX_BYTES", 64L << 10,
            "largest allReduce (bytes per rank) done one-shot through shared memory on a single-host communicator; 0 disables");
    public static final Param<Integer> INLINE_MAX_BYTES = intParam("JCCL_INLINE_MAX_BYTES", 1 << 20,
            "largest operation the caller's thread runs itself when the communicator is idle");
    public static final Param<Long> HEARTBEAT_MS = longParam("JCCL_HEARTBEAT_MS", 1000L,
            "period of the heartbeats ranks send each other over the bootstrap connections (0: no heartbeats)");
    public static final Param<Long> HEARTBEAT_TIMEOUT_MS = longParam("JCCL_HEARTBEAT_TIMEOUT_MS", 20_000L,
            "a peer silent this long is declared lost (stopped, hung or unreachable); 0: never");
    public static final Param<Integer> RAS_ENABLE = intParam("NCCL_RAS_ENABLE", 1,
            "1: the process holding rank 0 of a communicator answers status queries (./jccl ras); 0: no status port");
    public static final Param<String> RAS_ADDR = stringParam("NCCL_RAS_ADDR", "127.0.0.1:28028",
            "host:port of the status port (an ephemeral port is used when it is taken)");

    private Params() {
    }

    /** Every declared parameter, in declaration order. */
    public static List<Param<?>> all() {
        return Collections.unmodifiableList(ALL);
    }

    private static <T> Param<T> add(Param<T> p) {
        ALL.add(p);
        return p;
    }

    static Param<Long> longParam(String name, long def, String doc) {
        return add(new Param<>(name, def, doc, Params::parseLong));
    }

    static Param<Integer> intParam(String name, int def, String doc) {
        return add(new Param<>(name, def, doc, s -> Math.toIntExact(parseLong(s))));
    }

    static Param<String> stringParam(String name, String def, String doc) {
        return add(new Param<>(name, def, doc, Function.identity()));
    }

    /** Parses like strtoll(s, 0): decimal, 0x hex or leading-0 octal; K/M/G suffixes (1024-based) allowed. */
    static long parseLong(String s) {
        String t = s.trim();
        long mult = 1;
        char last = Character.toUpperCase(t.charAt(t.length() - 1));
        if (last == 'K' || last == 'M' || last == 'G') {
            mult = last == 'K' ? 1L << 10 : last == 'M' ? 1L << 20 : 1L << 30;
            t = t.substring(0, t.length() - 1);
        }
        long v;
        boolean neg = t.startsWith("-");
        String u = neg ? t.substring(1) : t;
        if (u.startsWith("0x") || u.startsWith("0X")) {
            v = Long.parseLong(u.substring(2), 16);
        } else if (u.length() > 1 && u.startsWith("0")) {
            v = Long.parseLong(u.substring(1), 8);
        } else {
            v = Long.parseLong(u);
        }
        return Math.multiplyExact(neg ? -v : v, mult);
    }
}
