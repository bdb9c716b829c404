package io.jccl.internal.comm;

import io.jccl.Communicator;
import io.jccl.Config;
import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.UniqueId;
import io.jccl.internal.base.AuthKeys;
import io.jccl.internal.bootstrap.Bootstrap;
import io.jccl.internal.bootstrap.BootstrapRoot;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Creates communicators from an existing one (NCCL's {@code ncclCommSplit} and {@code ncclCommShrink}): the members
 * exchange what they were asked over the parent's bootstrap (its health is ignored, so this works after a peer
 * died), agree on the membership, and the new rank 0 starts a bootstrap root whose address it sends to the other
 * members; everyone then joins through the ordinary {@link CommFactory#init}. The child's secret is derived from the
 * parent's ({@link AuthKeys#childSecret}), so no secret crosses the network.
 *
 * <p>Owned by: the communicator's calling thread (split and shrink are collective calls). Mirrors: bootstrapSplit
 * and the split/shrink paths of init.cc.
 */
final class ChildComms {
    private static final int TAG_INFO = 0x4a43_6000;
    private static final int TAG_ROOT = 0x4a43_7000;
    private static final int GEN_MASK = 0x0fff;
    private static final byte KIND_SPLIT = 1;
    private static final byte KIND_SHRINK = 2;

    private final Bootstrap bootstrap;
    private final Config config;
    private final int rank;
    private final int nRanks;
    private int generation;

    ChildComms(Bootstrap bootstrap, Config config) {
        this.bootstrap = bootstrap;
        this.config = config;
        this.rank = bootstrap.rank();
        this.nRanks = bootstrap.nRanks();
    }

    /** Collective over every rank: ranks with the same {@code color} form a communicator ordered by (key, rank). */
    Communicator split(int color, int key) {
        if (color < Communicator.SPLIT_NOCOLOR) {
            throw new JcclException(Result.INVALID_ARGUMENT, "rank " + rank + ": split color " + color
                    + " is negative (use a color >= 0, or Communicator.SPLIT_NOCOLOR to get no communicator)");
        }
        int gen = ++generation;
        int[] everyone = new int[nRanks];
        Arrays.setAll(everyone, i -> i);
        byte[][] all = exchange(everyone, gen, KIND_SPLIT, ints(color, key), "split #" + gen);
        if (color == Communicator.SPLIT_NOCOLOR) {
            return null;
        }
        List<int[]> same = new ArrayList<>();
        for (int p = 0; p < nRanks; p++) {
            int[] ck = readInts(all[p], 2, p);
            if (ck[0] == color) {
                same.add(new int[] {ck[1], p});
            }
        }
        same.sort(Comparator.<int[]>comparingInt(a -> a[0]).thenComparingInt(a -> a[1]));
        int[] members = same.stream().mapToInt(a -> a[1]).toArray();
        return join(members, gen, "split/" + gen + "/" + color);
    }

    /**
     * Collective over the survivors only: every rank not in {@code excluded} calls it with the same set, and they
     * form a communicator in their old rank order.
     */
    Communicator shrink(int[] excludedRanks) {
        int[] excluded = Arrays.stream(excludedRanks).distinct().sorted().toArray();
        for (int e : excluded) {
            if (e < 0 || e >= nRanks) {
                throw new JcclException(Result.INVALID_ARGUMENT, "rank " + rank + ": shrink excludes rank " + e
                        + ", which is not in [0, " + nRanks + ")");
            }
            if (e == rank) {
                throw new JcclException(Result.INVALID_ARGUMENT, "rank " + rank + " called shrink but excludes itself; "
                        + "only the ranks that stay call shrink");
            }
        }
        int[] members = java.util.stream.IntStream.range(0, nRanks)
                .filter(r -> Arrays.binarySearch(excluded, r) < 0).toArray();
        int gen = ++generation;
        byte[][] all = exchange(members, gen, KIND_SHRINK, ints(excluded), "shrink #" + gen);
        for (int m : members) {
            int[] theirs = readInts(all[m], -1, m);
            if (!Arrays.equals(theirs, excluded)) {
                throw new JcclException(Result.INVALID_USAGE, "rank " + rank + ": shrink #" + gen + ": rank " + m
                        + " excludes " + Arrays.toString(theirs) + " but this rank excludes "
                                + Arrays.toString(excluded)
                        + "; every survivor must pass the same ranks (see Communicator.lostRanks())");
            }
        }
        return join(members, gen, "shrink/" + gen + "/" + Arrays.toString(excluded));
    }

    /**
     * Every member sends {@code mine} to every other member and receives theirs (all-to-all, so a member that is gone
     * is noticed directly instead of stalling a ring); indexed by parent rank.
     */
    private byte[][] exchange(int[] members, int gen, byte kind, byte[] mine, String what) {
        int tag = TAG_INFO | (gen & GEN_MASK);
        byte[] msg = new byte[mine.length + 5];
        msg[0] = kind;
        System.arraycopy(ints(gen), 0, msg, 1, 4);
        System.arraycopy(mine, 0, msg, 5, mine.length);
        for (int m : members) {
            if (m != rank) {
                bootstrap.sendAny(m, tag, msg);
            }
        }
        byte[][] all = new byte[nRanks][];
        all[rank] = mine;
        for (int m : members) {
            if (m == rank) {
                continue;
            }
            byte[] b = bootstrap.recvAny(m, tag, what + " (every member must make the same call)");
            if (b.length < 5 || b[0] != kind || readInt(b, 1) != gen) {
                throw new JcclException(Result.INVALID_USAGE, "rank " + rank + ": " + what + ": rank " + m
                        + " made a different call (" + (b.length > 0 && b[0] == KIND_SPLIT ? "split" : "shrink")
                        + "); split and shrink are collective and must be called in the same order");
            }
            all[m] = Arrays.copyOfRange(b, 5, b.length);
        }
        return all;
    }

    /** The members (parent ranks in new-rank order) form the child; the first one starts its root. */
    private Communicator join(int[] members, int gen, String label) {
        int newRank = -1;
        for (int i = 0; i < members.length; i++) {
            if (members[i] == rank) {
                newRank = i;
            }
        }
        byte[] secret = bootstrap.keys().childSecret(label);
        long magic = AuthKeys.magicOf(secret);
        int tag = TAG_ROOT | (gen & GEN_MASK);
        UniqueId id;
        if (newRank == 0) {
            InetAddress bind = bootstrap.address(rank).getAddress();
            id = BootstrapRoot.startNew(bind, magic, secret);
            byte[] addr = address(id.rootAddress());
            for (int i = 1; i < members.length; i++) {
                bootstrap.sendAny(members[i], tag, addr);
            }
        } else {
            byte[] b = bootstrap.recvAny(members[0], tag, "the address of the new communicator's root (" + label + ")");
            id = UniqueId.create(readAddress(b, members[0]), magic, secret);
        }
        Log.info(Subsys.INIT, rank, "%s: parent rank %d becomes rank %d of %d", label, rank, newRank, members.length);
        return CommFactory.init(id, members.length, newRank, config);
    }

    private static byte[] address(InetSocketAddress a) {
        try {
            ByteArrayOutputStream bos = new ByteArrayOutputStream();
            DataOutputStream d = new DataOutputStream(bos);
            byte[] ip = a.getAddress().getAddress();
            d.writeByte(ip.length);
            d.write(ip);
            d.writeShort(a.getPort());
            return bos.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private InetSocketAddress readAddress(byte[] b, int from) {
        try {
            DataInputStream d = new DataInputStream(new ByteArrayInputStream(b));
            int len = d.readUnsignedByte();
            if (len != 4 && len != 16) {
                throw new IOException("address length " + len);
            }
            byte[] ip = new byte[len];
            d.readFully(ip);
            return new InetSocketAddress(InetAddress.getByAddress(ip), d.readUnsignedShort());
        } catch (IOException e) {
            throw new JcclException(Result.REMOTE_ERROR, "rank " + rank + ": rank " + from
                    + " sent a malformed root address: " + e.getMessage(), e);
        }
    }

    private static byte[] ints(int... v) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(4 * v.length);
        for (int x : v) {
            b.putInt(x);
        }
        return b.array();
    }

    /** {@code n} ints (or as many as there are when {@code n < 0}) from a member's contribution. */
    private int[] readInts(byte[] b, int n, int from) {
        if (b.length % 4 != 0 || (n >= 0 && b.length != 4 * n) || b.length > 4 * nRanks) {
            throw new JcclException(Result.REMOTE_ERROR, "rank " + rank + ": malformed contribution from rank " + from);
        }
        int[] r = new int[b.length / 4];
        for (int i = 0; i < r.length; i++) {
            r[i] = readInt(b, 4 * i);
        }
        return r;
    }

    private static int readInt(byte[] b, int off) {
        return java.nio.ByteBuffer.wrap(b, off, 4).getInt();
    }
}
