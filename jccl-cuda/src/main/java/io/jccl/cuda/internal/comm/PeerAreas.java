package io.jccl.cuda.internal.comm;

import io.jccl.cuda.DeviceBuffer;
import io.jccl.cuda.internal.enqueue.KernelArgs;
import io.jccl.internal.base.MemoryLedger;

import java.util.ArrayList;
import java.util.List;

/**
 * Every rank's area base address as one rank's GPU reaches it: its own allocation, peers' allocations directly
 * (one process, peer access enabled) or through CUDA IPC mappings (one process per GPU), which this object owns
 * and unmaps on {@link #close()}. Writes the kernels' pointer tables. In a communicator across hosts the ranks of
 * other hosts have no area here (base 0: their signal, LL and push entries are null, which the planner never lets a
 * kernel use) and their connections are elsewhere ({@link Net}: this rank's side in its pinned area, theirs in
 * mirrors of their areas in pinned host memory); ranks of this host keep their mapped areas.
 *
 * <p>Thread: the communicator's owner. Mirrors NCCL's peer pointer exchange in p2pSendConnect/p2pRecvConnect.
 */
public final class PeerAreas implements AutoCloseable {
    private final long[] bases;
    /** The connections to ranks of other hosts, or null when every rank is on this host. */
    private final Net net;
    private final List<DeviceBuffer> mappings;
    /** Where the mappings are counted ({@link MemoryLedger.Kind#PEER_MAPPED}), or null when there are none. */
    private final MemoryLedger ledger;

    /**
     * The connections of a communicator across hosts to the ranks of other hosts ({@link NetAreas}): bit r of
     * {@code remoteMask} set for each such rank r, whose connection area is the mirror at {@code mirrors[r]}, and
     * this rank's own side of those connections in its pinned area at {@code own}.
     */
    public record Net(int remoteMask, long own, long[] mirrors) {
        public Net {
            mirrors = mirrors.clone();
        }

        boolean remote(int r) {
            return (remoteMask >>> r & 1) != 0;
        }
    }

    /** Bases reached by address (one process), no mappings. */
    public PeerAreas(long[] bases) {
        this(bases, null, List.of(), null);
    }

    /**
     * With the connections to ranks of other hosts in {@code net} (null: every rank is on this host), and the CUDA IPC
     * {@code mappings} this object owns from now on, counted on {@code ledger} (which counted them when they were
     * opened; null when there are none).
     */
    public PeerAreas(long[] bases, Net net, List<DeviceBuffer> mappings, MemoryLedger ledger) {
        this.bases = bases.clone();
        this.net = net;
        this.mappings = new ArrayList<>(mappings);
        this.ledger = ledger;
    }

    /** The connections to ranks of other hosts, or null. */
    Net net() {
        return net;
    }

    /** Rank {@code r}'s area base address on this GPU. */
    public long base(int r) {
        return bases[r];
    }

    public int size() {
        return bases.length;
    }

    /** Writes the sig/ll/push/conn tables of {@code args}, and which ranks are on other hosts. */
    public void writeTables(KernelArgs args, AreaLayout layout) {
        for (int r = 0; r < bases.length; r++) {
            long b = bases[r];
            long conn = net != null && net.remote(r) ? net.mirrors()[r] : b + layout.connOffset();
            if (b == 0) {
                args.setAreas(r, 0, 0, 0, conn);
            } else {
                args.setAreas(r, b + layout.signalsOffset(), b + layout.llOffset(), b + layout.pushOffset(), conn);
            }
        }
        args.setNet(net != null ? net.remoteMask() : 0, net != null ? net.own() : 0);
    }

    /** Unmaps the IPC mappings (the peers' own memory stays theirs). Idempotent. */
    @Override
    public void close() {
        RuntimeException first = null;
        for (DeviceBuffer m : mappings) {
            try {
                m.close();
                if (ledger != null) {
                    ledger.remove(MemoryLedger.Kind.PEER_MAPPED, m.sizeBytes());
                }
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        mappings.clear();
        if (first != null) {
            throw first;
        }
    }
}
