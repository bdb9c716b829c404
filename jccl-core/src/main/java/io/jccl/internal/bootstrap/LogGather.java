package io.jccl.internal.bootstrap;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.transport.PeerExchange;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The two allGathers of the bootstrap network, each in ceil(log2 n) steps over tagged messages, so each rank talks
 * to about log2(n) peers and a thousand ranks need 10 steps instead of the ring's 999 (NCCL's bootstrap passes them
 * around the ring): the gather of every rank's listen address during init, and the allGather of any bytes after it.
 * With several bootstrap roots, no root knows every address, and {@link #ringJumps} first finds the ranks at
 * distance 2, 4, … from the ring neighbours.
 *
 * <p>Stateless; runs on the thread that calls it (the communicator's init thread). Mirrors: bootstrap.cc
 * bootstrapAllGather / ringAllInfo.
 */
final class LogGather {
    /** Tag of the address allGather during init. */
    static final int TAG_RING_ADDR = 0x4a43_4311;
    /** Tags of {@link #ringJumps}: an address ahead of the receiver, and one behind it. */
    static final int TAG_JUMP_AHEAD = 0x4a43_4313;
    static final int TAG_JUMP_BACK = 0x4a43_4314;

    private LogGather() {
    }

    /**
     * Fills {@code peers} with every rank's listen address: at distance d = 1, 2, 4, … a rank sends the addresses it
     * holds (its own and those of the ranks just behind it) to rank + d, whose address it must already hold, and
     * receives those of rank - d and the ranks behind that one.
     */
    static void addresses(PeerExchange ex, InetSocketAddress[] peers) {
        int rank = ex.rank();
        int nRanks = ex.nRanks();
        int held = 1;
        for (int d = 1; held < nRanks; d *= 2) {
            int m = Math.min(d, nRanks - held);
            int to = (rank + d) % nRanks;
            int from = (rank - d + nRanks) % nRanks;
            ByteBuffer out = ByteBuffer.allocate(4 + m * (4 + 1 + 16 + 2));
            out.putInt(m);
            for (int j = 0; j < m; j++) {
                int idx = (rank - j + nRanks) % nRanks;
                byte[] ip = peers[idx].getAddress().getAddress();
                out.putInt(idx).put((byte) ip.length).put(ip).putShort((short) peers[idx].getPort());
            }
            ex.send(to, TAG_RING_ADDR, Arrays.copyOf(out.array(), out.position()));
            byte[] got = ex.recv(from, TAG_RING_ADDR, "bootstrap address allGather");
            try {
                DataInputStream in = new DataInputStream(new ByteArrayInputStream(got));
                if (in.readInt() != m) {
                    throw new JcclException(Result.INTERNAL_ERROR, "bootstrap address allGather: rank " + from
                            + " sent a wrong number of addresses");
                }
                for (int j = 0; j < m; j++) {
                    int idx = in.readInt();
                    if (idx != (from - j + nRanks) % nRanks) {
                        throw new JcclException(Result.INTERNAL_ERROR, "bootstrap address allGather out of order: "
                                + "got rank " + idx + " from rank " + from);
                    }
                    peers[idx] = Frames.readAddress(in);
                }
            } catch (IOException e) {
                throw new JcclException(Result.INTERNAL_ERROR, "bad address in bootstrap allGather from rank " + from,
                        e);
            }
            held += m;
        }
    }

    /**
     * From the ring neighbours {@code peers[rank ± 1]}, fills {@code peers[rank ± d]} for every power of two d below
     * n by pointer jumping: at distance d a rank tells rank + d the address of rank - d, and rank - d the address of
     * rank + d, so each rank learns the ranks at distance 2d both ways. Two messages a round, log2(n) rounds; then
     * {@link #addresses} has every address it sends to.
     */
    static void ringJumps(PeerExchange ex, InetSocketAddress[] peers) {
        int rank = ex.rank();
        int nRanks = ex.nRanks();
        for (int d = 1; 2 * d < nRanks; d *= 2) {
            int ahead = (rank + d) % nRanks;
            int behind = (rank - d + nRanks) % nRanks;
            ex.send(ahead, TAG_JUMP_BACK, encode(peers[behind]));
            ex.send(behind, TAG_JUMP_AHEAD, encode(peers[ahead]));
            String what = "bootstrap ring jump at distance " + d;
            InetSocketAddress far = decode(ex.recv(ahead, TAG_JUMP_AHEAD, what), ahead);
            InetSocketAddress back = decode(ex.recv(behind, TAG_JUMP_BACK, what), behind);
            peers[(rank + 2 * d) % nRanks] = far;
            peers[(rank - 2 * d + nRanks) % nRanks] = back;
        }
    }

    private static byte[] encode(InetSocketAddress a) {
        ByteBuffer b = ByteBuffer.allocate(1 + 16 + 2);
        byte[] ip = a.getAddress().getAddress();
        b.put((byte) ip.length).put(ip).putShort((short) a.getPort());
        return Arrays.copyOf(b.array(), b.position());
    }

    private static InetSocketAddress decode(byte[] got, int from) {
        try {
            return Frames.readAddress(new DataInputStream(new ByteArrayInputStream(got)));
        } catch (IOException e) {
            throw new JcclException(Result.INTERNAL_ERROR, "bad address in bootstrap ring jump from rank " + from, e);
        }
    }

    /**
     * Every rank's {@code mine}, indexed by rank (Bruck's allGather: at distance d = 1, 2, 4, … a rank sends the
     * blocks it holds to rank - d and receives rank + d's).
     */
    static byte[][] blocks(PeerExchange ex, int tag, byte[] mine) {
        int rank = ex.rank();
        int nRanks = ex.nRanks();
        byte[][] all = new byte[nRanks][];
        all[rank] = mine;
        int held = 1;
        for (int d = 1; held < nRanks; d *= 2) {
            int m = Math.min(d, nRanks - held);
            int to = (rank - d + nRanks) % nRanks;
            int from = (rank + d) % nRanks;
            ex.send(to, tag, pack(all, rank, m));
            byte[] got = ex.recv(from, tag, "bootstrap allGather step at distance " + d);
            unpack(rank, got, all, from, m);
            held += m;
        }
        return all;
    }

    /** Blocks {@code first} .. {@code first + m - 1} (mod n) of {@code all}, each with its length. */
    private static byte[] pack(byte[][] all, int first, int m) {
        int n = all.length;
        int size = 4;
        for (int i = 0; i < m; i++) {
            size += 4 + all[(first + i) % n].length;
        }
        ByteBuffer b = ByteBuffer.allocate(size);
        b.putInt(m);
        for (int i = 0; i < m; i++) {
            byte[] x = all[(first + i) % n];
            b.putInt(x.length).put(x);
        }
        return b.array();
    }

    private static void unpack(int rank, byte[] got, byte[][] all, int first, int m) {
        int n = all.length;
        try {
            ByteBuffer b = ByteBuffer.wrap(got);
            if (b.getInt() != m) {
                throw new JcclException(Result.INTERNAL_ERROR, "rank " + rank + ": bootstrap allGather step from rank "
                        + first + " carries a wrong number of blocks (ranks made different bootstrap calls?)");
            }
            for (int i = 0; i < m; i++) {
                byte[] x = new byte[b.getInt()];
                b.get(x);
                all[(first + i) % n] = x;
            }
        } catch (BufferUnderflowException | NegativeArraySizeException e) {
            throw new JcclException(Result.INTERNAL_ERROR, "rank " + rank + ": malformed bootstrap allGather step from "
                    + "rank " + first, e);
        }
    }
}
