package io.jccl.internal.base;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;

/**
 * A fresh P-256 key pair and a self-signed X.509 (v1) certificate for it, made once per process for
 * {@code JCCL_TLS=on}: TLS 1.3 needs a certificate on the server side, but under that mode nobody trusts it for who
 * it names; a peer is
 * accepted only after proving the communicator's secret over the session's exported key ({@link Tls}). The JDK has
 * no public API that writes a certificate, so the few DER structures of RFC 5280 are written here.
 *
 * <p>Owned by: immutable once made. Mirrors: nothing in NCCL (its TLS build takes key files from the user).
 */
record SelfSignedCert(KeyPair keys, X509Certificate certificate) {
    private static final byte[] OID_ECDSA_SHA256 = {0x2A, (byte) 0x86, 0x48, (byte) 0xCE, 0x3D, 0x04, 0x03, 0x02};
    private static final byte[] OID_COMMON_NAME = {0x55, 0x04, 0x03};
    private static final DateTimeFormatter UTC_TIME = DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'");

    /** A new key pair and its certificate, valid from a day ago for {@code days} days, named {@code CN=name}. */
    static SelfSignedCert create(String name, int days) throws GeneralSecurityException {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"));
        KeyPair kp = g.generateKeyPair();
        ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
        byte[] algorithm = der(0x30, der(0x06, OID_ECDSA_SHA256));
        byte[] subject = der(0x30, der(0x31, der(0x30, der(0x06, OID_COMMON_NAME),
                der(0x0C, name.getBytes(StandardCharsets.UTF_8)))));
        byte[] validity = der(0x30, der(0x17, UTC_TIME.format(now.minusDays(1)).getBytes(StandardCharsets.US_ASCII)),
                der(0x17, UTC_TIME.format(now.plusDays(days)).getBytes(StandardCharsets.US_ASCII)));
        byte[] serial = new byte[9];
        new java.security.SecureRandom().nextBytes(serial);
        serial[0] = 0x01; // positive, no leading zero
        byte[] tbs = der(0x30, der(0x02, serial), algorithm, subject, validity, subject, kp.getPublic().getEncoded());
        Signature signer = Signature.getInstance("SHA256withECDSA");
        signer.initSign(kp.getPrivate());
        signer.update(tbs);
        byte[] sig = signer.sign();
        byte[] bits = new byte[sig.length + 1]; // BIT STRING: no unused bits
        System.arraycopy(sig, 0, bits, 1, sig.length);
        byte[] cert = der(0x30, tbs, algorithm, der(0x03, bits));
        X509Certificate x = (X509Certificate) CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(cert));
        x.verify(kp.getPublic());
        return new SelfSignedCert(kp, x);
    }

    /** One DER element: tag, definite length, then the contents in order. */
    static byte[] der(int tag, byte[]... contents) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (byte[] c : contents) {
            body.writeBytes(c);
        }
        int n = body.size();
        ByteArrayOutputStream out = new ByteArrayOutputStream(n + 6);
        out.write(tag);
        if (n < 0x80) {
            out.write(n);
        } else {
            int bytes = n < 0x100 ? 1 : n < 0x10000 ? 2 : 3;
            out.write(0x80 | bytes);
            for (int i = bytes - 1; i >= 0; i--) {
                out.write(n >>> (8 * i));
            }
        }
        out.writeBytes(body.toByteArray());
        return out.toByteArray();
    }
}
