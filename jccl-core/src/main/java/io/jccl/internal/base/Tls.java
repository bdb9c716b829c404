package io.jccl.internal.base;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.param.Params;

import java.io.DataInputStream;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

/**
 * TLS 1.3 for one communicator's bootstrap and socket-transport connections ({@code JCCL_TLS}), through the JDK's
 * {@link SSLEngine}. Two modes:
 * <ul>
 *   <li>{@code on}: each process makes a fresh P-256 key and a self-signed certificate ({@link SelfSignedCert}); a
 *       certificate alone proves nothing, so every connection is <i>bound</i> to the communicator: once the handshake
 *       is done each end sends {@code HMAC(TLS key, role || exported key)}, the exported key being the session's
 *       RFC 8446 exporter value, which a man in the middle (two sessions) cannot make equal on both sides. Only
 *       holders of the communicator's secret ({@link AuthKeys}) pass.</li>
 *   <li>{@code keystore}: the user's key and chain from {@code JCCL_TLS_KEYSTORE}, peers' chains checked both ways
 *       against {@code JCCL_TLS_TRUSTSTORE} (mutual TLS), and the same binding on top.</li>
 * </ul>
 * The session keys themselves come from TLS 1.3's ephemeral key exchange in both modes.
 *
 * <p>Owned by: immutable; shared by the threads that make a communicator's connections. Mirrors: NCCL 2.32's
 * encryption of its ncclSocket traffic (an OpenSSL build with a configured key).
 */
public final class Tls {
    /** The only protocol offered. */
    public static final String PROTOCOL = "TLSv1.3";
    /** Bytes of the binding MAC each end sends. */
    public static final int BINDING_BYTES = AuthKeys.MAC_BYTES;
    private static final String EXPORTER_LABEL = "EXPORTER-jccl-binding";
    private static final byte[] CLIENT = {'C'};
    private static final byte[] SERVER = {'S'};
    private static final AtomicReference<SSLContext> PROCESS_CONTEXT = new AtomicReference<>();
    private static final AtomicReference<SSLContext> KEYSTORE_CONTEXT = new AtomicReference<>();

    private final SSLContext context;
    private final boolean certificatesChecked;
    private final AuthKeys keys;

    private Tls(SSLContext context, boolean certificatesChecked, AuthKeys keys) {
        this.context = context;
        this.certificatesChecked = certificatesChecked;
        this.keys = keys;
    }

    /** TLS for the communicator whose keys are {@code keys}, or null when {@code JCCL_TLS=off}. */
    public static Tls forComm(AuthKeys keys) {
        return switch (Params.TLS.get()) {
            case "on" -> new Tls(processContext(), false, keys);
            case "keystore" -> new Tls(keystoreContext(), true, keys);
            default -> null;
        };
    }

    /** What the logs say of it, e.g. {@code TLSv1.3 (fresh key, bound to the communicator's secret)}. */
    public String describe() {
        return PROTOCOL + (certificatesChecked ? " (certificates from JCCL_TLS_KEYSTORE, checked both ways, and "
                + "bound to the communicator's secret)" : " (fresh key, bound to the communicator's secret)");
    }

    /** A new engine for one connection's {@code client} or server end. */
    public SSLEngine engine(boolean client) {
        SSLEngine e = context.createSSLEngine();
        e.setUseClientMode(client);
        e.setEnabledProtocols(new String[]{PROTOCOL});
        if (!client && certificatesChecked) {
            e.setNeedClientAuth(true);
        }
        return e;
    }

    /** The MAC this end sends once {@code session} is established. */
    public byte[] binding(SSLSession session, boolean client) throws SSLException {
        return keys.mac(AuthKeys.Purpose.TLS, client ? CLIENT : SERVER, exported(session));
    }

    /** Whether {@code mac}, received from the other end of {@code session}, proves the communicator's secret. */
    public boolean bindingHolds(SSLSession session, boolean client, byte[] mac) throws SSLException {
        return keys.verify(AuthKeys.Purpose.TLS, mac, client ? SERVER : CLIENT, exported(session));
    }

    private static byte[] exported(SSLSession session) throws SSLException {
        if (!(session instanceof ExtendedSSLSession x)) {
            throw new SSLException("the TLS session exports no keying material");
        }
        return x.exportKeyingMaterialData(EXPORTER_LABEL, new byte[0], 32);
    }

    /**
     * Blocking sockets (bootstrap): runs the handshake over {@code s} as its {@code client} or server end, then the
     * binding both ways, and returns the TLS socket to use instead of {@code s} (closing it closes {@code s}). Throws
     * naming {@code peer} when the other end does not speak TLS or cannot prove the secret.
     */
    public Socket wrap(Socket s, boolean client, String peer) throws IOException {
        SSLSocketFactory f = context.getSocketFactory();
        SSLSocket t = (SSLSocket) (client
                ? f.createSocket(s, s.getInetAddress().getHostAddress(), s.getPort(), true)
                : f.createSocket(s, null, true));
        t.setUseClientMode(client);
        t.setEnabledProtocols(new String[]{PROTOCOL});
        if (!client && certificatesChecked) {
            t.setNeedClientAuth(true);
        }
        try {
            t.startHandshake();
            OutputStream out = t.getOutputStream();
            out.write(binding(t.getSession(), client));
            out.flush();
            byte[] mac = new byte[BINDING_BYTES];
            new DataInputStream(t.getInputStream()).readFully(mac);
            if (!bindingHolds(t.getSession(), client, mac)) {
                throw new SSLException("the TLS peer did not prove this communicator's secret");
            }
            return t;
        } catch (IOException e) {
            closeQuietly(t);
            throw new IOException("TLS with " + peer + " failed: " + e.getMessage()
                    + " (JCCL_TLS must be the same on every rank)", e);
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // failing anyway
        }
    }

    private static SSLContext processContext() {
        return cached(PROCESS_CONTEXT, Tls::freshKeyContext);
    }

    private static SSLContext keystoreContext() {
        return cached(KEYSTORE_CONTEXT, Tls::fromKeystore);
    }

    /** The context in {@code slot}, made once per process by {@code make}; a failure is not kept. */
    private static SSLContext cached(AtomicReference<SSLContext> slot, Supplier<SSLContext> make) {
        SSLContext c = slot.get();
        if (c == null) {
            synchronized (slot) {
                c = slot.get();
                if (c == null) {
                    c = make.get();
                    slot.set(c);
                }
            }
        }
        return c;
    }

    private static SSLContext freshKeyContext() {
        try {
            SelfSignedCert cert = SelfSignedCert.create("jccl", 365);
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(null, null);
            char[] pw = new char[0];
            ks.setKeyEntry("jccl", cert.keys().getPrivate(), pw, new X509Certificate[]{cert.certificate()});
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, pw);
            SSLContext c = SSLContext.getInstance(PROTOCOL);
            c.init(kmf.getKeyManagers(), new TrustManager[]{new BoundPeers()}, null);
            return c;
        } catch (GeneralSecurityException | IOException e) {
            throw new JcclException(Result.SYSTEM_ERROR, "JCCL_TLS=on: cannot make this process's TLS key: "
                    + e.getMessage(), e);
        }
    }

    private static SSLContext fromKeystore() {
        String path = Params.TLS_KEYSTORE.get().trim();
        if (path.isEmpty()) {
            throw new JcclException(Result.INVALID_ARGUMENT, "JCCL_TLS=keystore needs JCCL_TLS_KEYSTORE (a PKCS12 or "
                    + "JKS file with this process's key and certificate chain)");
        }
        char[] pw = Params.TLS_KEYSTORE_PASSWORD.get().toCharArray();
        String trustPath = Params.TLS_TRUSTSTORE.get().trim();
        try {
            KeyStore ks = load(path, pw, "JCCL_TLS_KEYSTORE");
            KeyStore trust = trustPath.isEmpty() ? ks : load(trustPath, pw, "JCCL_TLS_TRUSTSTORE");
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, pw);
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            SSLContext c = SSLContext.getInstance(PROTOCOL);
            c.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
            return c;
        } catch (GeneralSecurityException e) {
            throw new JcclException(Result.INVALID_ARGUMENT, "JCCL_TLS=keystore: " + path + ": " + e.getMessage(), e);
        }
    }

    private static KeyStore load(String path, char[] pw, String param) {
        try {
            return KeyStore.getInstance(new File(path), pw);
        } catch (GeneralSecurityException | IOException e) {
            throw new JcclException(Result.INVALID_ARGUMENT, param + "=" + path + " cannot be read: " + e.getMessage()
                    + " (is JCCL_TLS_KEYSTORE_PASSWORD right?)", e);
        }
    }

    /**
     * JCCL_TLS=on: any certificate is taken at the handshake, because none is trusted for what it names; the binding
     * that follows every handshake is what admits a peer.
     */
    private static final class BoundPeers implements X509TrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {
            // admitted by the binding, not by the certificate
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {
            // admitted by the binding, not by the certificate
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
