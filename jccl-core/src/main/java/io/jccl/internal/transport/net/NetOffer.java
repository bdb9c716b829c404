package io.jccl.internal.transport.net;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.net.NetListen;

import java.nio.ByteBuffer;

/**
 * What a receiver announces (through the bootstrap) for one network connector: the hello challenge, the slot size,
 * whether it checks CRC32C, and the plugin's opaque handle.
 *
 * <p>Owned by: any thread (immutable). Mirrors: the connect info of NCCL's net transport (ncclNetHandle in
 * connectInfo).
 *
 * @param nonce     random challenge the sender's hello must sign
 * @param stepBytes slot size
 * @param checksum  true when the receiver wants a CRC32C per slot
 * @param handle    the plugin's handle from listen
 */
public record NetOffer(long nonce, int stepBytes, boolean checksum, byte[] handle) {
    /** The offer as bytes. */
    public byte[] toBytes() {
        return ByteBuffer.allocate(8 + 4 + 1 + 1 + handle.length).putLong(nonce).putInt(stepBytes)
                .put((byte) (checksum ? 1 : 0)).put((byte) handle.length).put(handle).array();
    }

    /** Parses an offer; a malformed one is an {@link Result#INTERNAL_ERROR}. */
    public static NetOffer fromBytes(byte[] bytes) {
        try {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            long nonce = b.getLong();
            int step = b.getInt();
            int flags = b.get();
            int len = b.get() & 0xff;
            if (step <= 0 || (flags & ~1) != 0 || len == 0 || len > NetListen.MAX_HANDLE_BYTES
                    || b.remaining() != len) {
                throw new IllegalArgumentException("slot size " + step + ", flags " + flags + ", handle of " + len
                        + " bytes with " + b.remaining() + " left");
            }
            byte[] h = new byte[len];
            b.get(h);
            return new NetOffer(nonce, step, flags == 1, h);
        } catch (RuntimeException e) {
            throw new JcclException(Result.INTERNAL_ERROR, "corrupt net connection offer: " + e.getMessage(), e);
        }
    }
}
