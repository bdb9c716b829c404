package io.jccl.internal.transport.net;

import io.jccl.internal.base.AuthKeys;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The first message on every data connection, whatever the plugin: the sender's rank, the channel and
 * {@code HMAC(netKey, nonce, rank, channel)}, where the nonce is a random challenge the receiver put in its
 * connection offer. The receiver accepts only the expected peer of the same communicator.
 *
 * <p>Owned by: any thread (stateless). Mirrors: nothing in NCCL (its data connections are not authenticated).
 */
public final class NetHello {
    /** Bytes of a hello. */
    public static final int BYTES = 4 + 4 + AuthKeys.MAC_BYTES;
    /** The plugin tag of the hello message (data messages carry their step number). */
    public static final int TAG = -1;
    private static final byte[] LABEL = "net-hello".getBytes(StandardCharsets.UTF_8);

    private NetHello() {
    }

    /** The hello rank {@code rank} sends for {@code channel} to a receiver that offered {@code nonce}. */
    public static byte[] hello(AuthKeys keys, long nonce, int rank, int channel) {
        return ByteBuffer.allocate(BYTES).putInt(rank).putInt(channel)
                .put(keys.mac(AuthKeys.Purpose.NET, LABEL, AuthKeys.bytes(nonce), AuthKeys.bytes(rank),
                        AuthKeys.bytes(channel))).array();
    }

    /** True if {@code hello} comes from rank {@code peer} for {@code channel} of this communicator, for this offer. */
    public static boolean check(AuthKeys keys, long nonce, int peer, int channel, byte[] hello) {
        if (hello == null || hello.length != BYTES) {
            return false;
        }
        ByteBuffer b = ByteBuffer.wrap(hello);
        if (b.getInt() != peer || b.getInt() != channel) {
            return false;
        }
        byte[] mac = new byte[AuthKeys.MAC_BYTES];
        b.get(mac);
        return keys.verify(AuthKeys.Purpose.NET, mac, LABEL, AuthKeys.bytes(nonce), AuthKeys.bytes(peer),
                AuthKeys.bytes(channel));
    }
}
