package io.jccl.internal.base;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.UniqueId;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The keys that authenticate one communicator's connections, derived from its {@link UniqueId}'s 32-byte secret
 * (HKDF-style: {@code key = HMAC-SHA256(secret, label)}, one key per purpose, so a MAC made for one kind of
 * connection is never valid for another). Every handshake is a challenge-response: the accepting side sends a fresh
 * random nonce and the connecting side answers {@code HMAC(key, label || nonce || hello)}; the secret itself never
 * travels. Child communicators (split, shrink) derive their secret from the parent's, so no secret is sent either.
 *
 * <p>Owned by: immutable, shared by all threads of a communicator. Mirrors: nothing in NCCL (which compares a plain
 * magic); this replaces that compare.
 */
public final class AuthKeys {
    /** Bytes of a MAC (HMAC-SHA256). */
    public static final int MAC_BYTES = 32;
    /** Bytes of a challenge or nonce. */
    public static final int NONCE_BYTES = 16;
    private static final String ALGORITHM = "HmacSHA256";
    private static final SecureRandom RANDOM = new SecureRandom();

    /** What a key authenticates. */
    public enum Purpose {
        /** Rank ↔ bootstrap root. */
        ROOT("jccl/v1/root"),
        /** Rank ↔ rank bootstrap connections. */
        PEER("jccl/v1/peer"),
        /** Data connections of the socket transport. */
        NET("jccl/v1/net"),
        /** A TLS connection's binding to the communicator: each end's MAC over the session's exported key. */
        TLS("jccl/v1/tls");

        private final String label;

        Purpose(String label) {
            this.label = label;
        }
    }

    private final byte[] secret;
    private final byte[][] keys = new byte[Purpose.values().length][];
    private final long magic;

    private AuthKeys(byte[] secret, long magic) {
        if (secret.length != 32) {
            throw new JcclException(Result.INVALID_ARGUMENT, "a communicator secret has 32 bytes, got "
                    + secret.length);
        }
        this.secret = secret.clone();
        this.magic = magic;
        for (Purpose p : Purpose.values()) {
            keys[p.ordinal()] = hmac(this.secret, p.label.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** The keys of the communicator {@code id} names. */
    public static AuthKeys of(UniqueId id) {
        return new AuthKeys(id.secret(), id.magic());
    }

    /** The communicator's magic (not a secret: it only tells communicators apart in error messages). */
    public long magic() {
        return magic;
    }

    /** A fresh random challenge. */
    public static byte[] nonce() {
        byte[] b = new byte[NONCE_BYTES];
        RANDOM.nextBytes(b);
        return b;
    }

    /** {@code HMAC(key(purpose), parts...)}: the parts are length-prefixed, so different splits never collide. */
    public byte[] mac(Purpose purpose, byte[]... parts) {
        return hmac(keys[purpose.ordinal()], parts);
    }

    /** Constant-time check of a MAC made by {@link #mac}. */
    public boolean verify(Purpose purpose, byte[] mac, byte[]... parts) {
        return mac != null && mac.length == MAC_BYTES && MessageDigest.isEqual(mac(purpose, parts), mac);
    }

    /**
     * A secret for a child communicator (split, shrink) that every member computes alike without any secret on the
     * wire: {@code HMAC(parentSecret, label)}.
     */
    public byte[] childSecret(String label) {
        return hmac(secret, "jccl/v1/child".getBytes(StandardCharsets.UTF_8), label.getBytes(StandardCharsets.UTF_8));
    }

    /** A magic derived from a secret (used for child communicators and environment launches). */
    public static long magicOf(byte[] secret) {
        return ByteBuffer.wrap(hmac(secret, "jccl/v1/magic".getBytes(StandardCharsets.UTF_8))).getLong();
    }

    /** Big-endian bytes of {@code v}, for MAC parts. */
    public static byte[] bytes(long v) {
        return ByteBuffer.allocate(8).putLong(v).array();
    }

    /** Big-endian bytes of {@code v}, for MAC parts. */
    public static byte[] bytes(int v) {
        return ByteBuffer.allocate(4).putInt(v).array();
    }

    private static byte[] hmac(byte[] key, byte[]... parts) {
        try {
            Mac m = Mac.getInstance(ALGORITHM);
            m.init(new SecretKeySpec(key, ALGORITHM));
            for (byte[] p : parts) {
                m.update(bytes(p.length));
                m.update(p);
            }
            return m.doFinal();
        } catch (GeneralSecurityException e) {
            throw new JcclException(Result.SYSTEM_ERROR, "HMAC-SHA256 is not available in this JDK: " + e.getMessage(),
                    e);
        }
    }

    /** Never shows key material. */
    @Override
    public String toString() {
        return "AuthKeys[magic=" + Long.toHexString(magic) + "]";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AuthKeys k && Arrays.equals(k.secret, secret) && k.magic == magic;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(magic);
    }
}
