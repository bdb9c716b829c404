package io.jccl.cuda.internal.comm;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.comm.GpuAccess;
import io.jccl.internal.debug.Log;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The call ledger across hosts: ranks on different hosts share no memory, so each process keeps a {@link CallLedger}
 * of its own and this link tells the other hosts what it records, over the host communicator's bootstrap:
 * <ul>
 *   <li>each collective's fingerprint to the next rank of the ring ({@code rank + 1}), which compares it with its own
 *       call at that position: every pair of neighbours compares, so all ranks' calls are equal or some rank sees
 *       the difference;</li>
 *   <li>each send's and each receive's byte count to the peer of the call, which compares it with its own receive or
 *       send;</li>
 *   <li>a stop, with the cause, to every rank when this rank stops the communicator (a call refused here, an
 *       {@code abort()}): their kernels stop and they report the same cause.</li>
 * </ul>
 * Whichever of two calls is recorded second does the comparison, as on one host: at the call when the peer's message
 * came first (the call is refused), on the message's arrival otherwise (the communicator is stopped; the kernels
 * already launched return and {@code asyncError()} names both calls).
 *
 * <p>Thread: {@link #collective}, {@link #send} and {@link #recv} on the rank's issuing thread (one rank per process
 * across hosts); arrivals on the bootstrap's reader thread of each peer. Mirrors nothing in NCCL (see
 * {@link CallLedger}).
 */
public final class LedgerLink {
    /** Bootstrap tag of the ledger's messages. */
    static final int TAG = 0x4a43_4c47;
    private static final byte COLLECTIVE = 1;
    private static final byte SEND = 2;
    private static final byte RECV = 3;
    private static final byte STOP = 4;
    /** How long a stop notice may take to reach one peer. */
    private static final long STOP_SEND_MS = 500;

    private final int rank;
    private final int nRanks;
    private final CallLedger ledger;
    private final SharedControl control;
    private final GpuAccess access;
    private final String where;
    /** The issuing thread's message (the bootstrap writes it out before send returns). */
    private final byte[] out = new byte[1 + Long.BYTES];

    private LedgerLink(int rank, int nRanks, CallLedger ledger, SharedControl control, GpuAccess access,
                       String where) {
        this.rank = rank;
        this.nRanks = nRanks;
        this.ledger = ledger;
        this.control = control;
        this.access = access;
        this.where = where;
    }

    /** Links {@code control}'s ledger with the other ranks'; every rank calls it during setup. */
    static LedgerLink start(int rank, int nRanks, SharedControl control, GpuAccess access, String where) {
        LedgerLink link = new LedgerLink(rank, nRanks, control.calls(), control, access, where);
        access.onMessage(TAG, link::arrived);
        control.link(link);
        return link;
    }

    /** This rank recorded a collective: its ring successor compares. */
    public void collective(long fingerprint) {
        if (nRanks > 1) {
            tell((rank + 1) % nRanks, COLLECTIVE, fingerprint);
        }
    }

    /** This rank recorded a send of {@code bytes} to {@code peer}. */
    public void send(int peer, long bytes) {
        tell(peer, SEND, bytes);
    }

    /** This rank recorded a receive of {@code bytes} from {@code peer}. */
    public void recv(int peer, long bytes) {
        tell(peer, RECV, bytes);
    }

    private void tell(int peer, byte kind, long value) {
        if (peer == rank) {
            return;
        }
        synchronized (out) {
            out[0] = kind;
            for (int i = 0; i < Long.BYTES; i++) {
                out[1 + i] = (byte) (value >>> (56 - 8 * i));
            }
            if (!access.trySend(peer, TAG, out, STOP_SEND_MS * 10)) {
                Log.warn(rank, "%s: could not tell rank %d of this rank's call (its host is "
                        + "unreachable); the host communicator reports the lost rank", where, peer);
            }
        }
    }

    /** A message from {@code peer}'s host (its reader thread). */
    private void arrived(int peer, byte[] m) {
        if (m.length < 1) {
            return;
        }
        if (m[0] == STOP) {
            ByteBuffer b = ByteBuffer.wrap(m, 1, m.length - 1);
            int ordinal = b.getInt();
            Result[] results = Result.values();
            Result r = ordinal >= 0 && ordinal < results.length ? results[ordinal] : Result.REMOTE_ERROR;
            String text = new String(m, 5, m.length - 5, StandardCharsets.UTF_8);
            control.failFromRemote(new JcclException(r, text));
            return;
        }
        if (m.length != 1 + Long.BYTES) {
            return;
        }
        long value = ByteBuffer.wrap(m, 1, Long.BYTES).getLong();
        JcclException refused = switch (m[0]) {
            case COLLECTIVE -> ledger.recordFrom(peer, value, rank, where);
            case SEND -> ledger.recordSendFrom(peer, rank, value, where);
            case RECV -> ledger.recordRecvFrom(peer, rank, value, where);
            default -> null;
        };
        if (refused != null) {
            Log.warn(rank, "%s", refused.getMessage());
            control.fail(refused);
        }
    }

    /** This rank stopped the communicator first: every other rank stops too, with the same cause. */
    void stopAll(JcclException cause) {
        byte[] text = String.valueOf(cause.getMessage()).getBytes(StandardCharsets.UTF_8);
        int n = Math.min(text.length, StopNote.MAX_MESSAGE_BYTES);
        byte[] m = ByteBuffer.allocate(5 + n).put(STOP).putInt(cause.result().ordinal()).put(text, 0, n).array();
        for (int p = 0; p < nRanks; p++) {
            if (p != rank) {
                access.trySend(p, TAG, m, STOP_SEND_MS);
            }
        }
    }
}
