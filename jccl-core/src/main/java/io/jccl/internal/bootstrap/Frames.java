package io.jccl.internal.bootstrap;

import io.jccl.JcclException;
import io.jccl.Result;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * Length-prefixed frames on a bootstrap socket: {@code [int tag][int length][bytes]}, with a size limit so garbage
 * cannot make a reader allocate gigabytes (a small one during handshakes, 16 MiB once the peer is authenticated). Owned
 * by: the thread doing the I/O. Mirrors: bootstrap.cc's socket framing.
 */
final class Frames {
    /** Largest bootstrap payload accepted (16 MiB). */
    static final int MAX_PAYLOAD = 16 << 20;

    private Frames() {
    }

    /** A received frame. */
    record Frame(int tag, byte[] payload) {
    }

    static void write(DataOutputStream out, int tag, byte[] payload) throws IOException {
        out.writeInt(tag);
        out.writeInt(payload.length);
        out.write(payload);
        out.flush();
    }

    static Frame read(DataInputStream in) throws IOException {
        return read(in, MAX_PAYLOAD);
    }

    /**
     * Reads one frame whose payload may not exceed {@code maxBytes} (handshakes use a few hundred bytes, so a peer that
     * is not yet authenticated cannot make this side allocate more than that).
     */
    static Frame read(DataInputStream in, int maxBytes) throws IOException {
        int tag = in.readInt();
        int len = in.readInt();
        if (len < 0 || len > maxBytes) {
            int type = tag >>> 24;
            if (type >= 0x14 && type <= 0x17 && ((tag >>> 16) & 0xff) == 0x03) {
                throw new IOException("the other end speaks TLS and this one does not (JCCL_TLS must be the same on "
                        + "every rank)");
            }
            throw new IOException("bad bootstrap frame: length " + len + " (limit " + maxBytes + ")");
        }
        byte[] b = new byte[len];
        in.readFully(b);
        return new Frame(tag, b);
    }

    static void writeAddress(DataOutputStream out, InetSocketAddress a) throws IOException {
        byte[] ip = a.getAddress().getAddress();
        out.writeByte(ip.length);
        out.write(ip);
        out.writeShort(a.getPort());
    }

    static InetSocketAddress readAddress(DataInputStream in) throws IOException {
        int len = in.readUnsignedByte();
        if (len != 4 && len != 16) {
            throw new IOException("bad address length " + len);
        }
        byte[] ip = new byte[len];
        in.readFully(ip);
        int port = in.readUnsignedShort();
        try {
            return new InetSocketAddress(InetAddress.getByAddress(ip), port);
        } catch (UnknownHostException e) {
            throw new IOException(e);
        }
    }

    static boolean isEof(IOException e) {
        return e instanceof EOFException;
    }

    static JcclException remote(String what, IOException e) {
        return new JcclException(Result.REMOTE_ERROR, what + ": " + e.getMessage(), e);
    }
}
