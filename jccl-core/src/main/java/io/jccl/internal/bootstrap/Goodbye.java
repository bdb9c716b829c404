package io.jccl.internal.bootstrap;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The last frame a rank writes on each of its bootstrap connections when it releases the communicator: whether it
 * closed in order or gave up (abort, failure), and why. A connection that ends without one means the process was
 * killed or crashed. Owned by: immutable. Mirrors: nothing in NCCL (whose peers only see the socket drop).
 *
 * @param kind   how the rank left
 * @param reason a short text for error messages
 */
public record Goodbye(Departure kind, String reason) {
    /** Bootstrap tag of the goodbye frame. */
    static final int TAG = 0x4a43_43ff;
    private static final int MAX_REASON_CHARS = 1000;

    /** How a peer left the communicator. */
    public enum Departure {
        /** It closed the communicator after finishing its operations. */
        ORDERLY,
        /** It aborted or failed, and said so. */
        FAILED,
        /** Its connection ended without a goodbye: the process was killed, crashed or hung up. */
        VANISHED
    }

    byte[] encode() {
        try {
            ByteArrayOutputStream bos = new ByteArrayOutputStream();
            DataOutputStream d = new DataOutputStream(bos);
            d.writeByte(kind.ordinal());
            d.writeUTF(reason.length() > MAX_REASON_CHARS ? reason.substring(0, MAX_REASON_CHARS) + "..." : reason);
            return bos.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Parses a goodbye; a malformed one still counts as a (failed) departure. */
    static Goodbye decode(byte[] payload) {
        try {
            DataInputStream d = new DataInputStream(new ByteArrayInputStream(payload));
            int k = d.readUnsignedByte();
            String reason = d.readUTF();
            if (k > Departure.FAILED.ordinal()) {
                return new Goodbye(Departure.FAILED, "sent an unknown goodbye kind " + k);
            }
            return new Goodbye(Departure.values()[k],
                    Handshake.reason(reason.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        } catch (IOException e) {
            return new Goodbye(Departure.FAILED, "sent a malformed goodbye");
        }
    }
}
