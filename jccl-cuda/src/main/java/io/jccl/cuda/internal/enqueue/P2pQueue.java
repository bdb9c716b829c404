package io.jccl.cuda.internal.enqueue;

import io.jccl.JcclException;
import io.jccl.Result;

import java.util.ArrayList;
import java.util.List;

/**
 * The sends and receives a communicator collected inside a group, turned into kernel rounds when the group ends:
 * round k holds, for every peer, this rank's k-th send to it and k-th receive from it (the peer builds the same
 * pairs from its side, so both launch matching operations in the same round), and the k-th send to itself paired
 * with the k-th receive from itself as a local copy. Zero-byte operations are dropped on both sides.
 *
 * <p>Thread: the communicator's calling thread. Mirrors NCCL's per-peer p2p task lists and their scheduling into
 * kernel plans (enqueue.cc scheduleP2pTasksToPlan).
 */
public final class P2pQueue {
    /** One recorded operation: kind is KernelArgs.P2P_SEND or P2P_RECV. */
    public record Op(short kind, int peer, long ptr, long bytes) {
    }

    /** One operation of a round, ready for KernelArgs.setP2p. */
    public record Planned(short kind, int peer, long ptr, long src, long bytes, int blocks) {
    }

    private final List<Op> ops = new ArrayList<>();

    /**
     * A rooted collective lowered to sends and receives, as NCCL lowers gather and scatter: every rank's one
     * {@code own} operation with the root on {@code ownPtr}, and on the root the opposite operation with every rank
     * on block p of {@code rootPtr} ({@code bytes} per block). Gather: {@code own} is a send; scatter: a receive.
     */
    public static List<Op> rooted(short own, int rank, int nRanks, int root, long ownPtr, long rootPtr, long bytes) {
        List<Op> ops = new ArrayList<>();
        ops.add(new Op(own, root, ownPtr, bytes));
        if (rank == root) {
            short other = own == KernelArgs.P2P_SEND ? KernelArgs.P2P_RECV : KernelArgs.P2P_SEND;
            for (int p = 0; p < nRanks; p++) {
                ops.add(new Op(other, p, rootPtr + p * bytes, bytes));
            }
        }
        return ops;
    }

    public void add(Op op) {
        ops.add(op);
    }

    public boolean isEmpty() {
        return ops.isEmpty();
    }

    /** Removes and returns the recorded operations. */
    public List<Op> drain() {
        List<Op> out = List.copyOf(ops);
        ops.clear();
        return out;
    }

    /** The rounds of {@code ops} for {@code rank} of {@code nRanks}; blocks per send/receive from {@code planner}. */
    public static List<List<Planned>> rounds(List<Op> ops, int rank, int nRanks, CollPlanner planner) {
        List<List<Op>> sends = new ArrayList<>();
        List<List<Op>> recvs = new ArrayList<>();
        for (int p = 0; p < nRanks; p++) {
            sends.add(new ArrayList<>());
            recvs.add(new ArrayList<>());
        }
        for (Op op : ops) {
            if (op.bytes() == 0) {
                continue;
            }
            (op.kind() == KernelArgs.P2P_SEND ? sends : recvs).get(op.peer()).add(op);
        }
        if (sends.get(rank).size() != recvs.get(rank).size()) {
            throw new JcclException(Result.INVALID_USAGE, "rank " + rank + " sends " + sends.get(rank).size()
                    + " buffer(s) to itself but receives " + recvs.get(rank).size() + " from itself in this group; "
                    + "every send to self needs a matching receive");
        }
        List<List<Planned>> rounds = new ArrayList<>();
        for (int k = 0; ; k++) {
            List<Planned> round = new ArrayList<>();
            for (int p = 0; p < nRanks; p++) {
                if (p == rank) {
                    continue;
                }
                if (k < sends.get(p).size()) {
                    Op s = sends.get(p).get(k);
                    round.add(new Planned(KernelArgs.P2P_SEND, p, s.ptr(), 0, s.bytes(), planner.p2pBlocks(s.bytes())));
                }
                if (k < recvs.get(p).size()) {
                    Op r = recvs.get(p).get(k);
                    round.add(new Planned(KernelArgs.P2P_RECV, p, r.ptr(), 0, r.bytes(), planner.p2pBlocks(r.bytes())));
                }
            }
            if (k < sends.get(rank).size()) {
                Op s = sends.get(rank).get(k);
                Op r = recvs.get(rank).get(k);
                if (s.bytes() != r.bytes()) {
                    throw new JcclException(Result.INVALID_ARGUMENT, "rank " + rank + " sends " + s.bytes()
                            + " bytes to itself but receives " + r.bytes() + "; the sizes must match");
                }
                round.add(new Planned(KernelArgs.P2P_COPY, rank, r.ptr(), s.ptr(), s.bytes(), CollPlanner.COPY_BLOCKS));
            }
            if (round.isEmpty()) {
                return rounds;
            }
            for (int i = 0; i < round.size(); i += KernelArgs.MAX_P2P_OPS) {
                rounds.add(List.copyOf(round.subList(i, Math.min(round.size(), i + KernelArgs.MAX_P2P_OPS))));
            }
        }
    }
}
