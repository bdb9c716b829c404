package io.jccl.internal.param;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

import static io.jccl.internal.param.ParamCategory.BOOTSTRAP;
import static io.jccl.internal.param.ParamCategory.DEBUG;
import static io.jccl.internal.param.ParamCategory.INIT;
import static io.jccl.internal.param.ParamCategory.NET;
import static io.jccl.internal.param.ParamCategory.PROFILE;
import static io.jccl.internal.param.ParamCategory.SHM;
import static io.jccl.internal.param.ParamCategory.TUNING;

/**
 * The parameter registry: every NCCL_* / JCCL_* variable and {@code jccl.*} system property JCCL reads is declared
 * once, here (the communicator's own) or in {@link ExternalParams} (topology, tuning, tools, CUDA) and
 * {@link InternalProperties} (tuning knobs). {@link #all()} lists them for {@code ./jccl params}, the documentation
 * and the unknown-name check.
 *
 * <p>Owned by: any thread (immutable). Mirrors: NCCL's scattered NCCL_PARAM declarations, gathered in one place.
 */
public final class Params {
    private static final List<Param<?>> CORE = new ArrayList<>();

    // ---- logging ---------------------------------------------------------------------------------------------
    public static final Param<String> DEBUG_LEVEL = add(Param.ofChoice("NCCL_DEBUG", "WARN",
            List.of("NONE", "VERSION", "WARN", "INFO", "TRACE"), DEBUG,
            "log level: VERSION prints the version once, WARN problems, INFO init and tuning details, TRACE more"));
    public static final Param<String> DEBUG_SUBSYS = add(Param.ofString("NCCL_DEBUG_SUBSYS", "INIT,BOOTSTRAP,ENV",
            DEBUG, "subsystems logged at INFO/TRACE: comma list of INIT, COLL, P2P, SHM, NET, GRAPH, TUNING, ENV, "
                    + "ALLOC, CALL, PROXY, NVLS, BOOTSTRAP, REG, PROFILE, RAS or ALL; a leading ^ excludes them")
            .checkedBy(Params::checkSubsys, "INIT,COLL,...|ALL|^LIST"));
    public static final Param<String> DEBUG_FILE = add(Param.ofString("NCCL_DEBUG_FILE", "", DEBUG,
            "write log lines to this file instead of stderr; %h is replaced by the host name, %p by the process id"));
    public static final Param<String> DEBUG_SINK = add(Param.ofChoice("JCCL_DEBUG_SINK", "AUTO",
            List.of("AUTO", "STDERR", "SYSTEM"), DEBUG,
            "where log lines go: STDERR (NCCL's line format), SYSTEM (java.lang.System.Logger, named "
                    + "io.jccl.<subsys>), "
                    + "AUTO (System.Logger when the application installed a logging bridge, else stderr)"));
    public static final Param<String> CONF_FILE = add(Param.ofString("NCCL_CONF_FILE", "", INIT,
            "config file of NAME=value lines read after the environment (default ~/.nccl.conf, then /etc/nccl.conf)"));

    // ---- communicator --------------------------------------------------------------------------------------
    public static final Param<Long> TIMEOUT_MS = add(Param.ofLong("JCCL_TIMEOUT_MS", 120_000L, INIT,
            "deadline of any single wait (peer data, credits, bootstrap; a GPU kernel's wait for a peer) in "
                    + "milliseconds").range(1, Long.MAX_VALUE));
    public static final Param<Long> BUFFSIZE = add(Param.ofLong("NCCL_BUFFSIZE", 4L << 20, INIT,
            "bytes of each ring connector's FIFO (8 slots); default: 1 MiB when every rank is on one host (the slots "
                    + "stay in cache), 4 MiB across hosts (NCCL's)").range(8 * 4096, 8L << 30));
    public static final Param<Long> P2P_BUFFSIZE = add(Param.ofLong("JCCL_P2P_BUFFSIZE", 1L << 20, INIT,
            "bytes of each point-to-point connector's FIFO when it is not shared with a ring").range(8 * 4096,
                    8L << 30));
    public static final Param<Integer> MIN_NCHANNELS = add(Param.ofInt("NCCL_MIN_NCHANNELS", 0, INIT,
            "minimum number of channels (0: automatic)").range(0, 64));
    public static final Param<Integer> MAX_NCHANNELS = add(Param.ofInt("NCCL_MAX_NCHANNELS", 0, INIT,
            "maximum number of channels (0: automatic)").range(0, 64));
    public static final Param<Long> TWOSHOT_MAX_BYTES = add(Param.ofLong("JCCL_TWOSHOT_MAX_BYTES", -1L, INIT,
            "largest allReduce (bytes per rank) done two-shot through shared memory (each rank reduces its slice from "
                    + "its peers' copies, then gathers the others' slices) on a single-host communicator, above the "
                    + "one-shot limit; 0 disables; -1: 512 KiB with 2 ranks (one-shot then ends at 64 KiB), unlimited "
                    + "with more ranks on one channel, off with several channels")
            .range(-1, 1L << 40));
    public static final Param<Long> ONESHOT_MAX_BYTES = add(Param.ofLong("JCCL_ONESHOT_MAX_BYTES", -1L, INIT,
            "largest allReduce (bytes per rank) done one-shot through shared memory on a single-host communicator; "
                    + "0 disables; -1: 64 KiB with 2 ranks (512 KiB when two-shot is off), else 64 KiB / (ranks - 1), "
                            + "at "
                    + "least 4 KiB (each rank reads every peer's data)")
            .range(-1, 1L << 30));
    public static final Param<Integer> INLINE_MAX_BYTES = add(Param.ofInt("JCCL_INLINE_MAX_BYTES", Integer.MAX_VALUE,
            INIT,
            "largest operation the caller's thread runs itself when the communicator is idle and the work fits one "
                    + "channel; default: any size (handing it to the channel thread costs two thread wake-ups, "
                    + "measured 30-40% of a 2-4 MiB allReduce on 2 cores)").range(0, Integer.MAX_VALUE));

    // ---- launch and bootstrap ------------------------------------------------------------------------------
    public static final Param<String> COMM_ID = add(Param.ofString("NCCL_COMM_ID", "", BOOTSTRAP,
            "host:port of the bootstrap root (rank 0 starts it)"));
    public static final Param<String> JCCL_COMM_ID = add(Param.ofString("JCCL_COMM_ID", "", BOOTSTRAP,
            "host:port of the bootstrap root; takes precedence over NCCL_COMM_ID"));
    public static final Param<String> COMM_SECRET = add(Param.ofString("JCCL_COMM_SECRET", "", BOOTSTRAP,
            "64 hex characters shared by all ranks, authenticating them (launchers set it; never shown)").secret());
    public static final Param<Integer> RANK = add(Param.ofInt("JCCL_RANK", -1, BOOTSTRAP,
            "this process's rank for Communicator.fromEnvironment() (with JCCL_WORLD_SIZE; RANK/WORLD_SIZE, "
                    + "OMPI_COMM_WORLD_*, PMI_* and SLURM_* work too)").range(-1, Integer.MAX_VALUE));
    public static final Param<Integer> WORLD_SIZE = add(Param.ofInt("JCCL_WORLD_SIZE", 0, BOOTSTRAP,
            "number of ranks for Communicator.fromEnvironment() (with JCCL_RANK)").range(0, Integer.MAX_VALUE));
    public static final Param<Integer> BOOTSTRAP_LOCAL = add(Param.ofInt("JCCL_BOOTSTRAP_LOCAL", 1, BOOTSTRAP,
            "ranks of one process pass bootstrap messages to each other in memory, holding no sockets between them "
                    + "(0: over sockets, as ranks of different processes do)").range(0, 1));
    public static final Param<Long> WAIT_LOG_MS = add(Param.ofLong("JCCL_WAIT_LOG_MS", 10_000L, BOOTSTRAP,
            "while init waits for a missing rank or an unreachable root, a line this often saying who joined, who is "
                    + "missing and the last connect error (milliseconds)").range(100, Long.MAX_VALUE));
    public static final Param<String> RENDEZVOUS = add(Param.ofString("JCCL_RENDEZVOUS", "", BOOTSTRAP,
            "the launcher rendezvous fromEnvironment() uses, by name (address, torchrun, pmix, slurm, kubernetes or a "
                    + "service provider's); default: the detected one of highest priority"));
    public static final Param<String> K8S_SERVICE = add(Param.ofString("JCCL_K8S_SERVICE", "", BOOTSTRAP,
            "Kubernetes Indexed Jobs: the headless Service (the pods' subdomain) under which rank 0 is "
                    + "<job>-0.<service>; needed unless MASTER_ADDR is set"));
    public static final Param<Integer> K8S_PORT = add(Param.ofInt("JCCL_K8S_PORT", 29500, BOOTSTRAP,
            "Kubernetes Indexed Jobs: the port of rank 0's bootstrap root when MASTER_PORT is not set")
            .range(1, 65535));
    public static final Param<String> PMIX_LIBRARY = add(Param.ofString("JCCL_PMIX_LIBRARY", "", BOOTSTRAP,
            "path or name of the PMIx client library the pmix rendezvous opens (under mpirun and srun --mpi=pmix); "
                    + "default: libpmix.so.2, then libpmix.so on the library path"));
    public static final Param<Integer> ROOT_PORT = add(Param.ofInt("JCCL_ROOT_PORT", 0, BOOTSTRAP,
            "port of the bootstrap root the slurm rendezvous starts on the step's first host when MASTER_PORT is "
                    + "unset; 0: derived from SLURM_JOB_ID and SLURM_STEP_ID, in 15000..24999").range(0, 65535));
    public static final Param<String> HOSTID = add(Param.ofString("NCCL_HOSTID", "", BOOTSTRAP,
            "overrides the host identity used to decide which ranks share a host"));

    // ---- network and shared memory -------------------------------------------------------------------------
    public static final Param<String> SOCKET_IFNAME = add(Param.ofString("NCCL_SOCKET_IFNAME", "", NET,
            "network interfaces to use: prefixes, ^ to exclude, = for exact names"));
    public static final Param<String> SOCKET_FAMILY = add(Param.ofString("NCCL_SOCKET_FAMILY", "", NET,
            "AF_INET or AF_INET6 to restrict the address family"));
    public static final Param<String> NET_PLUGIN = add(Param.ofString("NCCL_NET", "", NET,
            "network plugin to use, by name (case-insensitive): Socket (built-in), FaultInject, or one found by "
                    + "ServiceLoader (io.jccl.net.NetPlugin); unset: Socket"));
    public static final Param<Integer> SOCKET_NTHREADS = add(Param.ofInt("NCCL_SOCKET_NTHREADS", 1, NET,
            "socket plugin: helper threads per connection (unset: 1, and 2 x 2 sockets for GPU ranks' connections "
                    + "when NSOCKS_PERTHREAD is unset too); NTHREADS x NSOCKS_PERTHREAD is capped at 64")
            .range(1, 16));
    public static final Param<Integer> NSOCKS_PERTHREAD = add(Param.ofInt("NCCL_NSOCKS_PERTHREAD", 1, NET,
            "socket plugin: data sockets per helper thread; with a product of 1 one socket carries everything")
            .range(1, 64));
    public static final Param<String> NET_CHECKSUM = add(Param.ofChoice("JCCL_NET_CHECKSUM", "auto",
            List.of("on", "off", "auto"), NET,
            "CRC32C of every network slot, host and GPU connectors, checked by the receiving side before it hands "
                    + "the slot on (a mismatch fails the communicator instead of delivering corrupted data); auto: on "
                    + "when ranks span hosts, off when all are on this host (loopback cannot corrupt in transit; "
                    + "there it cost 8-10% of allReduce busbw)"));
    public static final Param<String> TLS = add(Param.ofChoice("JCCL_TLS", "off", List.of("off", "on", "keystore"),
            NET, "TLS 1.3 (the JDK's SSLEngine) on bootstrap and socket-transport connections, every rank alike: on = "
                    + "a fresh key per process, each connection bound to the communicator's secret (both ends prove "
                    + "it over the TLS session's exported key); keystore = certificates from JCCL_TLS_KEYSTORE, "
                    + "checked both ways against JCCL_TLS_TRUSTSTORE, and bound to the secret as well"));
    public static final Param<String> TLS_KEYSTORE = add(Param.ofString("JCCL_TLS_KEYSTORE", "", NET,
            "JCCL_TLS=keystore: the PKCS12 (or JKS) keystore holding this process's key and certificate chain"));
    public static final Param<String> TLS_KEYSTORE_PASSWORD = add(Param.ofString("JCCL_TLS_KEYSTORE_PASSWORD", "",
            NET, "password of JCCL_TLS_KEYSTORE and of its key (and of the truststore unless it has its own)"));
    public static final Param<String> TLS_TRUSTSTORE = add(Param.ofString("JCCL_TLS_TRUSTSTORE", "", NET,
            "JCCL_TLS=keystore: certificates (CAs) a peer's chain must lead to; unset: JCCL_TLS_KEYSTORE"));
    public static final Param<String> NET_FAULT = add(Param.ofString("JCCL_NET_FAULT", "", NET,
            "testing: inject faults into the network plugin, e.g. delay=5ms,drop=after:100,corrupt=p:0.001,seed=1 "
                    + "(also the plugin NCCL_NET=FaultInject, which wraps Socket)"));
    public static final Param<Integer> SHM_DISABLE = add(Param.ofInt("NCCL_SHM_DISABLE", 0, SHM,
            "1: never use shared memory between ranks of one host (use sockets)").range(0, 1));
    public static final Param<String> SHM_DIR = add(Param.ofString("JCCL_SHM_DIR", "/dev/shm", SHM,
            "directory of the shared-memory files (a tmpfs)"));

    // ---- observability -------------------------------------------------------------------------------------
    public static final Param<Boolean> JMX = add(Param.ofBoolean("JCCL_JMX", true, PROFILE,
            "register a JMX MXBean per communicator (io.jccl:type=Communicator,id=...,rank=...) with its counters"));
    public static final Param<String> PROFILER = add(Param.ofString("JCCL_PROFILER", "", PROFILE,
            "profiler plugins (io.jccl.Profiler found by ServiceLoader) to enable: comma list of class names, simple "
                    + "or qualified; 'none' disables them; unset enables every one found"));

    // ---- failure detection and status ----------------------------------------------------------------------
    public static final Param<Long> HEARTBEAT_MS = add(Param.ofLong("JCCL_HEARTBEAT_MS", 1000L, INIT,
            "period of the heartbeats ranks send each other over the bootstrap connections (0: no heartbeats)")
            .range(0, Long.MAX_VALUE));
    public static final Param<Long> HEARTBEAT_TIMEOUT_MS = add(Param.ofLong("JCCL_HEARTBEAT_TIMEOUT_MS", 20_000L, INIT,
            "a peer silent this long is declared lost (stopped, hung or unreachable); 0: never").range(0,
                    Long.MAX_VALUE));
    public static final Param<Integer> CHECK_CALLS = add(Param.ofInt("JCCL_CHECK_CALLS", 0, INIT,
            "GPU communicators with one process per GPU: 1 compares each collective call (collective, count, type, op,"
                    + " root) with every rank's over the host communicator before launching it (an 8-byte allGather"
                    + " per call, waiting for every rank; inside a GPU group, one exchange at its end before any"
                    + " launches) and refuses a difference on every rank, leaving the"
                    + " communicator usable; 0 compares through memory the ranks share (no waiting; a difference stops"
                    + " the communicator, with both calls named), as initAll's communicators always do").range(0, 1));
    public static final Param<Integer> RAS_ENABLE = add(Param.ofInt("NCCL_RAS_ENABLE", 1, PROFILE,
            "1: the process holding rank 0 of a communicator answers status queries (./jccl ras); 0: no status port")
            .range(0, 1));
    public static final Param<String> RAS_ADDR = add(Param.ofString("NCCL_RAS_ADDR", "127.0.0.1:28028", PROFILE,
            "host:port of the status port (an ephemeral port is used when it is taken)"));
    public static final Param<String> METRICS_PORT = add(Param.ofString("JCCL_METRICS_PORT", "", PROFILE,
            "[host:]port of the HTTP endpoint serving /health, /status (JSON) and /metrics (Prometheus) for every "
                    + "communicator of the process; 0: an ephemeral port (logged at INFO); unset: no endpoint"));

    public static final Param<Boolean> REPRODUCIBLE = add(Param.ofBoolean("JCCL_REPRODUCIBLE", false, TUNING,
            "1: host allReduce and reduceScatter results are bitwise identical whatever the algorithm, channels and "
                    + "rank placement (each element summed in rank order 0, 1, ...; slower)"));

    private Params() {
    }

    private static <T> Param<T> add(Param<T> p) {
        CORE.add(p);
        return p;
    }

    /** Every declared parameter: the communicator's, then topology/tuning/tools/CUDA, then internal properties. */
    public static List<Param<?>> all() {
        List<Param<?>> all = new ArrayList<>(CORE);
        all.addAll(ExternalParams.all());
        all.addAll(InternalProperties.all());
        return Collections.unmodifiableList(all);
    }

    /** The parameter called {@code name}, if declared. */
    public static Optional<Param<?>> find(String name) {
        for (Param<?> p : all()) {
            if (p.name().equals(name)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /** The subsystem names NCCL_DEBUG_SUBSYS accepts (kept here so this package needs nothing from the logger). */
    static final List<String> SUBSYSTEMS = List.of("INIT", "COLL", "P2P", "SHM", "NET", "GRAPH", "TUNING", "ENV",
            "ALLOC", "CALL", "PROXY", "NVLS", "BOOTSTRAP", "REG", "PROFILE", "RAS", "ALL");

    private static String checkSubsys(String v) {
        String s = v.trim().toUpperCase(Locale.ROOT);
        s = s.startsWith("^") ? s.substring(1) : s;
        for (String part : s.split(",")) {
            String p = part.trim();
            if (!p.isEmpty() && !SUBSYSTEMS.contains(p)) {
                return "names an unknown subsystem '" + p + "' (known: " + String.join(",", SUBSYSTEMS) + ")";
            }
        }
        return null;
    }
}
