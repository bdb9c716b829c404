package io.jccl.internal.transport.net.socket;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * The socket plugin's connection handle: the listener's address and port, a random magic every connection must
 * present first (strays are dropped), and the number of data sockets the receiver expects besides the control one.
 *
 * <p>Owned by: any thread (immutable). Mirrors: net_socket.cc's ncclNetSocketHandle (connectAddr, magic, nSocks).
 *
 * @param address   where the receiver listens
 * @param magic     random number each connection presents
 * @param dataSocks data sockets besides the control socket (0: everything on the control socket)
 */
record SocketHandle(InetSocketAddress address, long magic, int dataSocks) {
    byte[] toBytes() {
        byte[] ip = address.getAddress().getAddress();
        ByteBuffer b = ByteBuffer.allocate(1 + ip.length + 2 + 8 + 1);
        b.put((byte) ip.length).put(ip).putShort((short) address.getPort()).putLong(magic).put((byte) dataSocks);
        return b.array();
    }

    static SocketHandle fromBytes(byte[] bytes) throws IOException {
        try {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            int len = b.get();
            if (len != 4 && len != 16) {
                throw new IOException("address length " + len);
            }
            byte[] ip = new byte[len];
            b.get(ip);
            int port = b.getShort() & 0xffff;
            long magic = b.getLong();
            int socks = b.get();
            if (b.hasRemaining() || port == 0 || socks < 0 || socks > SocketNetPlugin.MAX_SOCKS) {
                throw new IOException("port " + port + ", " + socks + " data sockets, " + b.remaining()
                        + " trailing bytes");
            }
            return new SocketHandle(new InetSocketAddress(InetAddress.getByAddress(ip), port), magic, socks);
        } catch (RuntimeException e) {
            throw new IOException("corrupt socket handle: " + e, e);
        }
    }
}
