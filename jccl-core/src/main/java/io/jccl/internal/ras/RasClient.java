package io.jccl.internal.ras;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * Asks a status port one question and returns the answer (used by {@code ./jccl ras} and tests). Owned by: the
 * calling thread. Mirrors: NCCL's {@code ncclras} client.
 */
public final class RasClient {
    /** Largest answer read (a status report of a few thousand ranks fits). */
    static final int MAX_ANSWER_BYTES = 16 << 20;

    private RasClient() {
    }

    /**
     * Sends {@code command} to {@code address} and reads the whole answer, waiting at most {@code timeoutMs} per read.
     */
    public static String query(InetSocketAddress address, String command, int timeoutMs) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(address, timeoutMs);
            s.setSoTimeout(timeoutMs);
            s.getOutputStream().write((command + "\n").getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            InputStream in = s.getInputStream();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buf = new byte[8192];
            int n;
            while ((n = in.read(buf)) > 0) {
                out.write(buf, 0, n);
                if (out.size() > MAX_ANSWER_BYTES) {
                    throw new IOException("answer larger than " + MAX_ANSWER_BYTES + " bytes");
                }
            }
            return out.toString(StandardCharsets.UTF_8);
        }
    }
}
