package io.jccl.internal.bootstrap;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.UniqueId;
import io.jccl.internal.base.AuthKeys;
import io.jccl.internal.base.Tls;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * A rank's side of a bootstrap with several roots (NCCL's ncclCommInitRankScalable): the rank says hello to the root
 * of its group (see {@link RootGroups}) and, when it is the first rank of its group, also to the previous group's
 * root, both at once (each root answers only once its whole group and its neighbour joined, so one after the other
 * could wait on each other around the ring of roots). The answers give the rank its ring successor and predecessor;
 * {@link LogGather#ringJumps} then finds the ranks farther away. Each root authenticates the rank with the keys of
 * its own id; the communicator's keys are those of the first id. When one hello fails, the other's wait is ended,
 * and the first error is thrown.
 *
 * <p>Owned by: the rank's init thread, with one virtual thread for the second hello. Mirrors: bootstrapInit's
 * sendToRoot calls for nroots > 1 (bootstrap.cc).
 */
final class RootGroupJoin {
    private RootGroupJoin() {
    }

    /** A digest of the roots of {@code ids}, in order (magic and address; never the secret). */
    static long digest(List<UniqueId> ids) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            for (UniqueId id : ids) {
                InetSocketAddress a = id.rootAddress();
                md.update(ByteBuffer.allocate(8 + 4).putLong(id.magic()).putInt(a.getPort()).array());
                md.update(a.getAddress().getAddress());
            }
            return ByteBuffer.wrap(md.digest()).getLong();
        } catch (NoSuchAlgorithmException e) {
            throw new JcclException(Result.INTERNAL_ERROR, "no SHA-256 in this JVM", e);
        }
    }

    /**
     * Asks the roots this rank talks to for its ring neighbours and stores them in {@code peers}: its successor at
     * rank + 1 and its predecessor at rank - 1 (mod n).
     */
    static void join(List<UniqueId> ids, RootGroups groups, int rank, InetSocketAddress me, long timeoutNs,
            InetSocketAddress[] peers) {
        int nRanks = groups.nRanks();
        long digest = digest(ids);
        int own = groups.rootOf(rank);
        int prevRoot = groups.neighbourRootOf(rank);
        List<Socket> open = new CopyOnWriteArrayList<>();
        AtomicReference<RuntimeException> first = new AtomicReference<>();
        CompletableFuture<InetSocketAddress[]> fromPrev = new CompletableFuture<>();
        Consumer<Socket> opened = s -> {
            open.add(s);
            if (first.get() != null) {
                PeerLinks.closeQuietly(s);
            }
        };
        if (prevRoot >= 0) {
            Thread.ofVirtual().name("jccl-bootstrap-hello-r" + rank).start(() -> {
                try {
                    fromPrev.complete(ask(ids, prevRoot, groups, rank, me, timeoutNs, digest, opened));
                } catch (RuntimeException e) {
                    failed(first, e, open);
                    fromPrev.completeExceptionally(e);
                }
            });
        } else {
            fromPrev.complete(new InetSocketAddress[2]);
        }
        InetSocketAddress[] mine = null;
        try {
            mine = ask(ids, own, groups, rank, me, timeoutNs, digest, opened);
        } catch (RuntimeException e) {
            failed(first, e, open);
        }
        InetSocketAddress[] theirs = null;
        try {
            theirs = fromPrev.get();
        } catch (ExecutionException e) {
            // recorded in first
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failed(first, new JcclException(Result.INTERNAL_ERROR, "rank " + rank + ": interrupted in bootstrap",
                    e), open);
        }
        if (first.get() != null) {
            throw first.get();
        }
        InetSocketAddress next = mine[0];
        InetSocketAddress prev = mine[1] != null ? mine[1] : theirs[1];
        if (next == null || prev == null) {
            throw new JcclException(Result.INTERNAL_ERROR, "rank " + rank + ": the bootstrap roots did not name its "
                    + (next == null ? "successor" : "predecessor"));
        }
        peers[(rank + 1) % nRanks] = next;
        peers[(rank - 1 + nRanks) % nRanks] = prev;
    }

    /** The first failure wins and ends the other hello's wait by closing its connection. */
    private static void failed(AtomicReference<RuntimeException> first, RuntimeException e, List<Socket> open) {
        if (first.compareAndSet(null, e)) {
            for (Socket s : open) {
                PeerLinks.closeQuietly(s);
            }
        }
    }

    /** {next, prev} from root {@code g} (either may be null). */
    private static InetSocketAddress[] ask(List<UniqueId> ids, int g, RootGroups groups, int rank,
            InetSocketAddress me, long timeoutNs, long digest, Consumer<Socket> opened) {
        UniqueId id = ids.get(g);
        AuthKeys keys = AuthKeys.of(id);
        PeerLinks toRoot = new PeerLinks(rank, keys, Tls.forComm(keys), new InetSocketAddress[0]);
        RootHelloClient c = new RootHelloClient(keys, rank, groups.nRanks(), timeoutNs, g, groups.nRoots(), digest);
        return c.neighbours(id.rootAddress(), me, toRoot, opened);
    }
}
