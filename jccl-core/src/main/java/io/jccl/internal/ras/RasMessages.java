package io.jccl.internal.ras;

import io.jccl.Collective;
import io.jccl.JcclException;
import io.jccl.Result;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The messages ranks exchange for failure detection, as bytes: a heartbeat carrying the sender's operation
 * status and call log, the notice that a rank was lost, and the notice that ranks made different calls. Decoders accept
 * any input and either return a value or throw
 * {@link JcclException} ({@link Result#REMOTE_ERROR}); they never allocate more than the input's size.
 *
 * <p>Owned by: stateless. Mirrors: RAS keep-alive and dead-peer broadcast messages (ras.cc, peers.cc).
 */
public final class RasMessages {
    static final int MAX_TEXT_CHARS = 400;
    private static final int VERSION = 2;
    private static final Collective[] COLLECTIVES = Collective.values();
    private static final Result[] RESULTS = Result.values();

    private RasMessages() {
    }

    /**
     * A rank's status as its heartbeat tells it.
     *
     * @param issuedSeq    last operation issued
     * @param completedSeq highest operation completed
     * @param op           kind of the last operation issued, or null
     * @param inFlightMs   how long the last operation has been running (0 when complete)
     * @param waitingFor   what the running operation waits for (a wait description naming the peer), or ""
     * @param peer         the peer of the last operation issued when it is a send or a receive, else -1
     * @param calls        the sender's last collective calls ({@link CallLog}), oldest first
     */
    public record PeerStatus(long issuedSeq, long completedSeq, Collective op, int inFlightMs, String waitingFor,
                             int peer, CallLog.Entry[] calls) {
        /** A status without a call log (status reports, tests). */
        public PeerStatus(long issuedSeq, long completedSeq, Collective op, int inFlightMs, String waitingFor) {
            this(issuedSeq, completedSeq, op, inFlightMs, waitingFor, -1, new CallLog.Entry[0]);
        }

        public boolean inFlight() {
            return issuedSeq > completedSeq && op != null;
        }

        public byte[] encode() {
            return write(d -> {
                d.writeByte(VERSION);
                d.writeLong(issuedSeq);
                d.writeLong(completedSeq);
                d.writeByte(op == null ? -1 : op.ordinal());
                d.writeInt(inFlightMs);
                d.writeUTF(shorten(waitingFor));
                d.writeInt(peer);
                d.writeByte(calls.length);
                for (CallLog.Entry e : calls) {
                    d.writeLong(e.number());
                    d.writeLong(e.count());
                    d.writeLong(e.shape());
                    d.writeLong(e.digest());
                }
            });
        }

        public static PeerStatus decode(byte[] b) {
            try {
                DataInputStream d = in(b);
                int v = d.readUnsignedByte();
                if (v != VERSION) {
                    throw bad("heartbeat", "version " + v);
                }
                long issued = d.readLong();
                long completed = d.readLong();
                int coll = d.readByte();
                int inFlightMs = d.readInt();
                String wait = d.readUTF();
                int peer = d.readInt();
                int n = d.readUnsignedByte();
                if (issued < 0 || completed < 0 || coll < -1 || coll >= COLLECTIVES.length || inFlightMs < 0
                        || wait.length() > MAX_TEXT_CHARS + 3 || peer < -1 || n > CallLog.DEPTH
                        || d.available() != n * 32) {
                    throw bad("heartbeat", "field out of range");
                }
                CallLog.Entry[] calls = new CallLog.Entry[n];
                for (int i = 0; i < n; i++) {
                    calls[i] = new CallLog.Entry(d.readLong(), d.readLong(), d.readLong(), d.readLong());
                    if (calls[i].number() <= 0 || calls[i].count() < 0 || !CallLog.valid(calls[i].shape())) {
                        throw bad("heartbeat", "call log entry out of range");
                    }
                }
                return new PeerStatus(issued, completed, coll < 0 ? null : COLLECTIVES[coll], inFlightMs, clean(wait),
                        peer, calls);
            } catch (IOException e) {
                throw bad("heartbeat", e.getMessage());
            }
        }
    }

    /**
     * "The ranks made different calls": sent by the rank that found two ranks' calls with one number to differ, to
     * every other rank, so that all fail at once with both calls named. {@code text} is the whole finding.
     */
    public record MismatchNotice(String text) {
        public byte[] encode() {
            return write(d -> {
                d.writeByte(VERSION);
                d.writeUTF(shorten(text));
            });
        }

        public static MismatchNotice decode(byte[] b) {
            try {
                DataInputStream d = in(b);
                int v = d.readUnsignedByte();
                String text = d.readUTF();
                if (v != VERSION || text.length() > MAX_TEXT_CHARS + 3 || d.available() != 0) {
                    throw bad("call-mismatch notice", "field out of range");
                }
                return new MismatchNotice(clean(text));
            } catch (IOException e) {
                throw bad("call-mismatch notice", e.getMessage());
            }
        }
    }

    /**
     * "Rank {@code rank} is gone, because {@code reason}": sent by the rank that noticed to every other, so all
     * survivors fail at once, with the same kind of error, and agree on who is missing. {@code primary}: the sender
     * saw the rank die or go silent (rather than leave after a failure of its own).
     */
    public record LostNotice(int rank, Result result, boolean primary, String reason) {
        public byte[] encode() {
            return write(d -> {
                d.writeByte(VERSION);
                d.writeInt(rank);
                d.writeByte(result.ordinal());
                d.writeBoolean(primary);
                d.writeUTF(shorten(reason));
            });
        }

        /** Parses a notice for a communicator of {@code nRanks} ranks. */
        public static LostNotice decode(byte[] b, int nRanks) {
            try {
                DataInputStream d = in(b);
                int v = d.readUnsignedByte();
                int rank = d.readInt();
                int result = d.readUnsignedByte();
                int primary = d.readUnsignedByte();
                String reason = d.readUTF();
                if (v != VERSION || rank < 0 || rank >= nRanks || result >= RESULTS.length || primary > 1
                        || reason.length() > MAX_TEXT_CHARS + 3 || d.available() != 0) {
                    throw bad("lost-rank notice", "field out of range");
                }
                return new LostNotice(rank, RESULTS[result], primary == 1, clean(reason));
            } catch (IOException e) {
                throw bad("lost-rank notice", e.getMessage());
            }
        }
    }

    static String shorten(String s) {
        return s == null ? "" : s.length() > MAX_TEXT_CHARS ? s.substring(0, MAX_TEXT_CHARS) + "..." : s;
    }

    /** Replaces control characters so a peer's text cannot forge lines in logs or reports. */
    static String clean(String s) {
        return s.replaceAll("\\p{Cntrl}", "?");
    }

    private interface Writer {
        void write(DataOutputStream d) throws IOException;
    }

    private static byte[] write(Writer w) {
        try {
            ByteArrayOutputStream bos = new ByteArrayOutputStream(64);
            w.write(new DataOutputStream(bos));
            return bos.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static DataInputStream in(byte[] b) {
        return new DataInputStream(new ByteArrayInputStream(b));
    }

    private static JcclException bad(String what, String why) {
        return new JcclException(Result.REMOTE_ERROR, "malformed " + what + " (" + why + ")");
    }
}
