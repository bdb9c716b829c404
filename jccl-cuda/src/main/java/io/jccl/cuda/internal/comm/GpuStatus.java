package io.jccl.cuda.internal.comm;

import io.jccl.JcclException;
import io.jccl.internal.base.Fingerprint;
import io.jccl.internal.ras.RasServer;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * What a GPU communicator shows outside its own calls: its section of this process's status answer ({@code ./jccl
 * ras}, NCCL's RAS), and, through {@link GpuWatch}, the WARN for its stop at the moment it stops. The section says
 * whether it is stopped and why, how many collectives each rank has launched and the last one, the collective that
 * not every rank has launched yet with the ranks that have not (the usual hang: a rank that never reached the call),
 * and sends not yet matched by receives. It reads the call ledger the ranks share ({@link SharedControl}: an
 * {@code initAll} clique's, or the file the processes of one host map), so the process answering sees every rank of
 * its host. One section per communicator, however many of its ranks live here.
 *
 * <p>Thread: registered and released by the threads that create and close the ranks; {@link #report()} runs on the
 * status client's thread (what it reads is shared memory; a section whose memory was just released reports that it
 * failed). Mirrors the per-rank collective operation counts NCCL's RAS gathers, and the mismatches it reports.
 */
public final class GpuStatus {
    private static final Map<String, GpuStatus> OPEN = new ConcurrentHashMap<>();

    private final String commId;
    private final String header;
    private final SharedControl control;
    private final GpuStops stops;
    private final boolean overHost;
    /** The memory of the rank the section is seen from ({@code MemoryStats.describe()}). */
    private final Supplier<String> memory;
    private int users;

    private GpuStatus(String commId, String header, SharedControl control, GpuStops stops, boolean overHost,
                      Supplier<String> memory) {
        this.memory = memory;
        this.commId = commId;
        this.header = header;
        this.control = control;
        this.stops = stops;
        this.overHost = overHost;
    }

    /**
     * Adds the section of the GPU communicator whose host communicator is {@code commId} (once per communicator);
     * {@code overHost}: its collectives are compared over the host (JCCL_CHECK_CALLS=1), not recorded in the ledger;
     * {@code memory}: the rank's memory line (with whether it is suspended).
     */
    public static GpuStatus register(String commId, int nRanks, String rankName, SharedControl control, GpuStops stops,
                                     boolean overHost, Supplier<String> memory) {
        synchronized (OPEN) {
            GpuStatus s = OPEN.computeIfAbsent(commId, id -> new GpuStatus(id, "GPU communicator " + id + ": "
                    + nRanks + " ranks, seen from " + rankName, control, stops, overHost, memory));
            if (s.users++ == 0) {
                RasServer.addSection(s.sectionKey(), s::report);
                GpuWatch.watch(s.stops);
            }
            return s;
        }
    }

    /** One rank of the communicator closed; the last one here removes the section. */
    public void release() {
        synchronized (OPEN) {
            if (--users == 0) {
                OPEN.remove(commId, this);
                RasServer.removeSection(sectionKey());
                GpuWatch.unwatch(stops);
            }
        }
    }

    /** Orders the GPU sections after each other, by communicator. */
    private String sectionKey() {
        return "gpu " + commId;
    }

    /** The section's text. */
    String report() {
        JcclException stop = stops.current();
        return format(header + ": " + (stop == null ? "healthy" : "STOPPED: " + stop.getMessage()) + "\n  memory: "
                + memory.get(), control.calls(), overHost);
    }

    /** The section for a communicator whose ranks' calls are in {@code ledger} (null: the ranks share none). */
    static String format(String header, CallLedger ledger, boolean overHost) {
        StringBuilder sb = new StringBuilder(header).append('\n');
        if (ledger == null) {
            return sb.append("  calls: not visible (the ranks share no control memory)\n").toString();
        }
        int n = ledger.nRanks();
        if (overHost) {
            sb.append("  collectives: compared over the host communicator (JCCL_CHECK_CALLS=1); see its status "
                    + "above\n");
        } else {
            sb.append(String.format(Locale.ROOT, "  %-5s %-12s %s%n", "rank", "collectives", "last collective"));
            long[] made = new long[n];   // read once: the rows and the verdict describe the same moment
            long most = 0;
            int ahead = 0;
            for (int r = 0; r < n; r++) {
                made[r] = ledger.collectives(r);
                long last = ledger.collective(r, made[r]);
                sb.append(String.format(Locale.ROOT, "  %-5d %-12d %s%n", r, made[r],
                        made[r] == 0 ? "-" : last < 0 ? "?" : Fingerprint.describe(last)));
                if (made[r] > most) {
                    most = made[r];
                    ahead = r;
                }
            }
            List<Integer> behind = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                if (made[r] < most) {
                    behind.add(r);
                }
            }
            if (!behind.isEmpty()) {
                long call = ledger.collective(ahead, most);
                sb.append("  collective call ").append(most).append(call < 0 ? "" : ", " + Fingerprint.describe(call))
                        .append(": not yet launched by rank(s) ")
                        .append(behind.stream().map(String::valueOf).collect(Collectors.joining(", ")))
                        .append(" (the kernels of the ranks that did wait for them, up to JCCL_TIMEOUT_MS)\n");
            }
        }
        for (int from = 0; from < n; from++) {
            for (int to = 0; to < n; to++) {
                long sent = ledger.sends(from, to);
                long received = ledger.recvs(to, from);
                if (sent != received) {
                    sb.append(String.format(Locale.ROOT, "  rank %d to rank %d: %d send(s), %d receive(s)%n", from, to,
                            sent, received));
                }
            }
        }
        return sb.toString();
    }
}
