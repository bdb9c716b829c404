package io.jccl;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * The 128-byte handle every rank of a new communicator must hold (NCCL's {@code ncclUniqueId}): a random 64-bit
 * magic, the socket address of the bootstrap root, and a 32-byte random secret that authenticates the ranks.
 * Rank 0 creates it with {@link Jccl#uniqueId()} and hands it to the other ranks out of band
 * ({@link #toBytes()} / {@link #fromBytes(byte[])}); treat it as a secret.
 *
 * <p>Layout: bytes 0-7 magic (big-endian), 8-9 root port, 10 address length (4 or 16), 12-27 address,
 * 32-63 secret, the rest zero.
 */
public final class UniqueId {
    /** Size of the serialized form, as {@code NCCL_UNIQUE_ID_BYTES}. */
    public static final int BYTES = 128;

    private static final SecureRandom RANDOM = new SecureRandom();
    private final byte[] bytes;

    private UniqueId(byte[] bytes) {
        this.bytes = bytes;
    }

    /**
     * Builds a handle for a root that listens (or will listen) at {@code root}, with a fresh random magic and secret.
     * Most programs call {@link Jccl#uniqueId()} instead, which also starts the root.
     *
     * @param root the root's socket address
     * @return the handle
     */
    public static UniqueId create(InetSocketAddress root) {
        byte[] secret = new byte[32];
        RANDOM.nextBytes(secret);
        return create(root, RANDOM.nextLong(), secret);
    }

    /**
     * Builds a handle from its parts (launchers that derive the magic and secret from a shared seed).
     *
     * @param root   the root's socket address
     * @param magic  the 64-bit magic every bootstrap message carries
     * @param secret 32 bytes shared by the ranks
     * @return the handle
     */
    public static UniqueId create(InetSocketAddress root, long magic, byte[] secret) {
        if (root.isUnresolved()) {
            throw new JcclException(Result.INVALID_ARGUMENT, "cannot resolve bootstrap root host "
                    + root.getHostString());
        }
        if (secret.length != 32) {
            throw new JcclException(Result.INVALID_ARGUMENT, "secret must be 32 bytes, got " + secret.length);
        }
        byte[] b = new byte[BYTES];
        ByteBuffer buf = ByteBuffer.wrap(b);
        buf.putLong(0, magic);
        buf.putShort(8, (short) root.getPort());
        byte[] addr = root.getAddress().getAddress();
        b[10] = (byte) addr.length;
        System.arraycopy(addr, 0, b, 12, addr.length);
        System.arraycopy(secret, 0, b, 32, 32);
        return new UniqueId(b);
    }

    /**
     * Reads a handle written by {@link #toBytes()}.
     *
     * @param bytes the 128 bytes
     * @return the handle
     * @throws JcclException with {@link Result#INVALID_ARGUMENT} if the bytes are not a handle
     */
    public static UniqueId fromBytes(byte[] bytes) {
        if (bytes == null || bytes.length != BYTES) {
            throw new JcclException(Result.INVALID_ARGUMENT, "a UniqueId has " + BYTES + " bytes, got "
                    + (bytes == null ? "null" : bytes.length));
        }
        int len = bytes[10];
        if (len != 4 && len != 16) {
            throw new JcclException(Result.INVALID_ARGUMENT, "corrupt UniqueId: address length " + len
                    + " (expected 4 or 16)");
        }
        return new UniqueId(bytes.clone());
    }

    /**
     * The 128 bytes to send to the other ranks.
     *
     * @return a copy of the bytes
     */
    public byte[] toBytes() {
        return bytes.clone();
    }

    /**
     * The random 64-bit magic every bootstrap message carries.
     *
     * @return the magic
     */
    public long magic() {
        return ByteBuffer.wrap(bytes).getLong(0);
    }

    /**
     * The bootstrap root's socket address.
     *
     * @return the address
     */
    public InetSocketAddress rootAddress() {
        int len = bytes[10];
        int port = ByteBuffer.wrap(bytes).getShort(8) & 0xffff;
        try {
            return new InetSocketAddress(InetAddress.getByAddress(Arrays.copyOfRange(bytes, 12, 12 + len)), port);
        } catch (UnknownHostException e) {
            throw new JcclException(Result.INVALID_ARGUMENT, "corrupt UniqueId address", e);
        }
    }

    /**
     * The 32-byte secret from which authentication keys are derived.
     *
     * @return a copy of the secret
     */
    public byte[] secret() {
        return Arrays.copyOfRange(bytes, 32, 64);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof UniqueId u && Arrays.equals(u.bytes, bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    /** Shows the root address and the magic, never the secret. */
    @Override
    public String toString() {
        return "UniqueId[root=" + rootAddress() + ", magic=" + HexFormat.of().toHexDigits(magic()) + "]";
    }
}
