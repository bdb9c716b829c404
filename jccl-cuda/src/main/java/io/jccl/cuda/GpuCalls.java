package io.jccl.cuda;

import io.jccl.Collective;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.Result;
import io.jccl.cuda.internal.comm.CallCheck;
import io.jccl.cuda.internal.comm.Clique;
import io.jccl.cuda.internal.comm.GpuRings;
import io.jccl.cuda.internal.comm.GpuStops;
import io.jccl.cuda.internal.enqueue.ArgChecks;
import io.jccl.cuda.internal.enqueue.Enqueuer;
import io.jccl.cuda.internal.enqueue.GpuGroups;
import io.jccl.cuda.internal.enqueue.KernelArgs;
import io.jccl.cuda.internal.enqueue.P2pQueue;
import io.jccl.internal.tuning.Selection;

import java.util.List;

/**
 * The calls of one GPU rank on their way to the GPU: each call's arguments checked (sizes, ranks, devices, streams,
 * overlaps), compared with the other ranks' calls ({@link CallCheck}), then handed to the enqueuer's kernels or, for
 * the byte-moving collectives on a window under {@link CtaPolicy#ZERO}, to the copy engines. {@link GpuCommunicator}
 * is the public face and checks the communicator's state first; this class is the rest of each call.
 *
 * <p>Thread: the thread issuing the communicator's calls. Mirrors NCCL's argument checks before enqueueing
 * ({@code ncclEnqueueCheck}, {@code ArgsCheck}) and its choice of the copy-engine path.
 */
final class GpuCalls {
    private final int rank;
    private final int nRanks;
    private final CudaDevice device;
    private final GpuOptions options;
    private final Clique clique;
    private final Enqueuer enqueuer;
    private final CallCheck check;
    private final OpenWindows windows;
    /** The communicator's stops and limit, for the waits its windows keep from the host. */
    private final GpuStops stops;

    GpuCalls(int rank, int nRanks, CudaDevice device, GpuOptions options, Clique clique, Enqueuer enqueuer,
             CallCheck check, OpenWindows windows, GpuStops stops) {
        this.rank = rank;
        this.nRanks = nRanks;
        this.device = device;
        this.options = options;
        this.clique = clique;
        this.enqueuer = enqueuer;
        this.check = check;
        this.windows = windows;
        this.stops = stops;
    }

    void allReduce(String w, DeviceBuffer send, DeviceBuffer recv, long count, DataType type, RedOp op,
            CudaStream stream) {
        long bytes = ArgChecks.bytes(w, count, type, 1);
        ArgChecks.call(w, device, stream, send, recv, bytes, bytes);
        ArgChecks.op(w, op, type);
        ArgChecks.overlap(w, send.address(), bytes, recv.address(), bytes, 0);
        GpuWindow win = count > 0 ? windowOf(send.address(), bytes, recv.address(), bytes) : null;
        check.collective(w, Collective.ALL_REDUCE, count, type, op, 0, win != null);
        if (count > 0) {
            PeerReach.require(clique, enqueuer, w, send, recv, count, type, op);
            enqueuer.collective(Collective.ALL_REDUCE, send.address(), recv.address(), count, type, op, 0,
                    bases(win), stream);
            symmetricCall(win, stream);
        }
    }

    void broadcast(String w, DeviceBuffer send, DeviceBuffer recv, long count, DataType type, int root,
            CudaStream stream) {
        long bytes = ArgChecks.bytes(w, count, type, 1);
        ArgChecks.rank(w, "root", root, nRanks);
        ArgChecks.present(w, "send", rank == root ? send : recv);
        ArgChecks.present(w, "receive", recv);
        ArgChecks.call(w, device, stream, rank == root ? send : null, recv, bytes, bytes);
        long in = rank == root ? send.address() : recv.address();
        if (rank == root) {
            ArgChecks.overlap(w, in, bytes, recv.address(), bytes, 0);
        }
        check.collective(w, Collective.BROADCAST, count, type, null, root);
        GpuWindow ce = count > 0 ? copyEngineWindow(recv.address(), bytes, stream) : null;
        if (ce != null) {
            ce.copyEngineBroadcast(ce.offsetOf(recv.address(), bytes), in, bytes, root, stream, enqueuer);
        } else if (count > 0) {
            GpuWindow win = windowOf(in, bytes, recv.address(), bytes);
            enqueuer.collective(Collective.BROADCAST, in, recv.address(), count, type, RedOp.SUM, root, bases(win),
                    stream);
            symmetricCall(win, stream);
        }
    }

    void reduce(String w, DeviceBuffer send, DeviceBuffer recv, long count, DataType type, RedOp op, int root,
            CudaStream stream) {
        long bytes = ArgChecks.bytes(w, count, type, 1);
        ArgChecks.rank(w, "root", root, nRanks);
        ArgChecks.present(w, "send", send);
        ArgChecks.present(w, "receive", rank == root ? recv : send);
        ArgChecks.call(w, device, stream, send, rank == root ? recv : null, bytes, bytes);
        ArgChecks.op(w, op, type);
        long out = rank == root ? recv.address() : send.address();
        if (rank == root) {
            ArgChecks.overlap(w, send.address(), bytes, out, bytes, 0);
        }
        check.collective(w, Collective.REDUCE, count, type, op, root);
        if (count > 0) {
            enqueuer.collective(Collective.REDUCE, send.address(), out, count, type, op, root, stream);
        }
    }

    void allGather(String w, DeviceBuffer send, DeviceBuffer recv, long sendCount, DataType type, CudaStream stream) {
        long bytes = ArgChecks.bytes(w, sendCount, type, 1);
        ArgChecks.call(w, device, stream, send, recv, bytes, bytes * nRanks);
        ArgChecks.overlap(w, send.address(), bytes, recv.address(), bytes * nRanks, bytes * rank);
        GpuWindow ce = sendCount > 0 ? copyEngineWindow(recv.address(), bytes * nRanks, stream) : null;
        GpuWindow win = sendCount > 0 && ce == null ? windowOf(send.address(), bytes, recv.address(), bytes * nRanks)
                : null;
        check.collective(w, Collective.ALL_GATHER, sendCount, type, null, 0, win != null);
        if (ce != null) {
            ce.copyEngineAllGather(ce.offsetOf(recv.address(), bytes * nRanks), send.address(), bytes, stream,
                    enqueuer);
        } else if (sendCount > 0) {
            enqueuer.collective(Collective.ALL_GATHER, send.address(), recv.address(), sendCount, type, RedOp.SUM, 0,
                    bases(win), stream);
            symmetricCall(win, stream);
        }
    }

    void reduceScatter(String w, DeviceBuffer send, DeviceBuffer recv, long recvCount, DataType type, RedOp op,
            CudaStream stream) {
        long bytes = ArgChecks.bytes(w, recvCount, type, 1);
        ArgChecks.call(w, device, stream, send, recv, bytes * nRanks, bytes);
        ArgChecks.op(w, op, type);
        ArgChecks.overlap(w, send.address(), bytes * nRanks, recv.address(), bytes, -bytes * rank);
        GpuWindow win = recvCount > 0 ? windowOf(send.address(), bytes * nRanks, recv.address(), bytes) : null;
        check.collective(w, Collective.REDUCE_SCATTER, recvCount, type, op, 0, win != null);
        if (recvCount > 0) {
            enqueuer.collective(Collective.REDUCE_SCATTER, send.address(), recv.address(), recvCount, type, op, 0,
                    bases(win), stream);
            symmetricCall(win, stream);
        }
    }

    void allToAll(String w, DeviceBuffer send, DeviceBuffer recv, long count, DataType type, CudaStream stream) {
        long bytes = ArgChecks.bytes(w, count, type, 1);
        ArgChecks.call(w, device, stream, send, recv, bytes * nRanks, bytes * nRanks);
        ArgChecks.overlap(w, send.address(), bytes * nRanks, recv.address(), bytes * nRanks, 0);
        check.collective(w, Collective.ALL_TO_ALL, count, type, null, 0);
        GpuWindow ce = count > 0 && send.address() != recv.address()
                ? copyEngineWindow(recv.address(), bytes * nRanks, stream) : null;
        if (ce != null) {
            ce.copyEngineAllToAll(ce.offsetOf(recv.address(), bytes * nRanks), send.address(), bytes, stream,
                    enqueuer);
        } else if (count > 0) {
            enqueuer.collective(Collective.ALL_TO_ALL, send.address(), recv.address(), count, type, RedOp.SUM, 0,
                    stream);
        }
    }

    void gather(String w, DeviceBuffer send, DeviceBuffer recv, long sendCount, DataType type, int root,
            CudaStream stream) {
        long bytes = ArgChecks.bytes(w, sendCount, type, 1);
        ArgChecks.rank(w, "root", root, nRanks);
        ArgChecks.present(w, "send", send);
        ArgChecks.present(w, "receive", rank == root ? recv : send);
        ArgChecks.call(w, device, stream, send, rank == root ? recv : null, bytes, bytes * nRanks);
        if (rank == root) {
            ArgChecks.overlap(w, send.address(), bytes, recv.address(), bytes * nRanks, bytes * rank);
        }
        List<P2pQueue.Op> ops = P2pQueue.rooted(KernelArgs.P2P_SEND, rank, nRanks, root, send.address(),
                rank == root ? recv.address() : 0, bytes);
        check.collective(w, Collective.GATHER, sendCount, type, null, root);
        if (sendCount > 0) {
            enqueuer.p2pNow(Collective.GATHER, sendCount, type, root, ops, stream);
        }
    }

    void scatter(String w, DeviceBuffer send, DeviceBuffer recv, long recvCount, DataType type, int root,
            CudaStream stream) {
        long bytes = ArgChecks.bytes(w, recvCount, type, 1);
        ArgChecks.rank(w, "root", root, nRanks);
        ArgChecks.present(w, "send", rank == root ? send : recv);
        ArgChecks.present(w, "receive", recv);
        ArgChecks.call(w, device, stream, rank == root ? send : null, recv, bytes * nRanks, bytes);
        if (rank == root) {
            ArgChecks.overlap(w, send.address(), bytes * nRanks, recv.address(), bytes, -bytes * rank);
        }
        List<P2pQueue.Op> ops = P2pQueue.rooted(KernelArgs.P2P_RECV, rank, nRanks, root, recv.address(),
                rank == root ? send.address() : 0, bytes);
        check.collective(w, Collective.SCATTER, recvCount, type, null, root);
        if (recvCount > 0) {
            enqueuer.p2pNow(Collective.SCATTER, recvCount, type, root, ops, stream);
        }
    }

    void send(String w, DeviceBuffer buf, long count, DataType type, int peer, CudaStream stream) {
        long bytes = ArgChecks.bytes(w, count, type, 1);
        ArgChecks.rank(w, "peer", peer, nRanks);
        ArgChecks.call(w, device, stream, buf, null, bytes, 0);
        check.send(w, peer, bytes);
        enqueuer.p2p(KernelArgs.P2P_SEND, peer, buf.address(), bytes, stream);
    }

    void recv(String w, DeviceBuffer buf, long count, DataType type, int peer, CudaStream stream) {
        long bytes = ArgChecks.bytes(w, count, type, 1);
        ArgChecks.rank(w, "peer", peer, nRanks);
        ArgChecks.call(w, device, stream, null, buf, 0, bytes);
        check.recv(w, peer, bytes);
        enqueuer.p2p(KernelArgs.P2P_RECV, peer, buf.address(), bytes, stream);
    }

    /** {@link GpuCommunicator#allocateWindow}'s checks and allocation on {@code owner}'s ranks ({@code hosts}). */
    GpuWindow allocateWindow(String w, GpuCommunicator owner, Communicator host, long bytes) {
        if (bytes < 1) {
            throw new JcclException(Result.INVALID_ARGUMENT, w + ": a window needs at least 1 byte, got " + bytes);
        }
        return windows.add(GpuWindow.open(owner, host, DeviceBuffer.allocate(device, bytes), true,
                windows.freeNetSlot(), stops, w));
    }

    /** {@link GpuCommunicator#registerWindow}'s checks and registration. */
    GpuWindow registerWindow(String w, GpuCommunicator owner, Communicator host, DeviceBuffer buffer) {
        ArgChecks.present(w, "window", buffer);
        if (buffer.device() != device) {
            throw new JcclException(Result.INVALID_ARGUMENT, w + ": the buffer is on GPU " + buffer.device().ordinal()
                    + ", this rank's GPU is " + device.ordinal());
        }
        return windows.add(GpuWindow.open(owner, host, buffer, false, windows.freeNetSlot(), stops,
                w));
    }

    /** What {@code coll} runs and why ({@code window}: its buffers lie in a window): the planner's one decision. */
    Selection selectionFor(Collective coll, long count, DataType type, RedOp op, boolean window) {
        return enqueuer.planner().select(coll, Math.multiplyExact(count, (long) type.sizeBytes()),
                op == null ? RedOp.Kind.SUM : op.kind(), window);
    }

    /** algorithmFor's words for {@code s}: algorithm, grid, chunk, ring orders, and across hosts the predicted time. */
    String describe(Selection s, int[][] rings) {
        String grid = s.algorithm() + " x" + s.nChannels() + (s.chunkBytes() > 0 ? " chunk " + s.chunkBytes() : "");
        String priced = s.predictedUs() >= 0 ? String.format(java.util.Locale.ROOT,
                ", %.1f us predicted by NCCL's model over NET", s.predictedUs()) : "";
        return (s.algorithm().equals("ring") ? grid + " rings " + GpuRings.describe(rings) : grid) + priced;
    }

    /** {@link GpuCommunicator#putSignal}'s checks and launch; {@code owner}: the communicator the window must be of. */
    void putSignal(String w, GpuCommunicator owner, GpuWindow window, long offset, DeviceBuffer src, long bytes,
            int peer, int signal, CudaStream stream) {
        ArgChecks.rank(w, "peer", peer, nRanks);
        ArgChecks.present(w, "source", src);
        ArgChecks.call(w, device, stream, src, null, bytes, 0);
        GpuWindow.requireUsable(w, window, owner);
        window.put(offset, src, bytes, peer, signal, stream, enqueuer, w);
    }

    /** {@link GpuCommunicator#waitSignal}'s checks and launch. */
    void waitSignal(String w, GpuCommunicator owner, GpuWindow window, int peer, int signal, int count,
            CudaStream stream) {
        ArgChecks.rank(w, "peer", peer, nRanks);
        ArgChecks.call(w, device, stream, null, null, 0, 0);
        GpuWindow.requireUsable(w, window, owner);
        window.await(peer, signal, count, stream, enqueuer, w);
    }

    /**
     * The window holding both of this rank's ranges of a call, else null. Every rank's must lie in its window, or
     * none (NCCL's rule for its symmetric kernels): for allReduce, reduceScatter and allGather the call check then
     * sees two different calls and stops the communicator naming both; a broadcast's ranks run different kernels
     * and wait for each other until the communicator's limit, which names the peer.
     */
    private GpuWindow windowOf(long a, long aBytes, long b, long bBytes) {
        GpuWindow w = windows.count() == 0 ? null : windows.holding(a, aBytes);
        return w == null || w.spansHosts() || w.offsetOf(b, bBytes) < 0 ? null : w;
    }

    /** Every rank's window as the kernels address them, or null for none. */
    private static long[] bases(GpuWindow w) {
        return w == null ? null : w.kernelBases();
    }

    /** After the launch: the window counts the call on {@code stream}, so it cannot close while the call may run. */
    private static void symmetricCall(GpuWindow w, CudaStream stream) {
        if (w != null) {
            w.symmetricCall(stream);
        }
    }

    /**
     * {@link GpuCommunicator#algorithmFor(Collective, long, DataType, RedOp, DeviceBuffer, DeviceBuffer)}: "ce" for an
     * eager call the copy engines take, else the selection, symmetric where every buffer lies in a window.
     */
    String algorithmFor(Collective coll, long count, DataType type, RedOp op, DeviceBuffer send, DeviceBuffer recv,
                        int[][] rings) {
        if (enqueuer.oneRankCopy(op)) {
            return Enqueuer.ONE_RANK;
        }
        long bytes = count * type.sizeBytes() * (coll == Collective.BROADCAST ? 1 : nRanks);
        boolean ce = count > 0 && recv != null && (coll == Collective.ALL_GATHER || coll == Collective.BROADCAST
                || coll == Collective.ALL_TO_ALL) && copyEngineWindow(recv.address(), bytes) != null;
        return ce ? "ce" : describe(selectionFor(coll, count, type, op, inWindow(coll, count, type, send, recv)),
                rings);
    }

    /** Whether a call of {@code coll} on these buffers lies in one window ({@link #windowOf}), for algorithmFor. */
    private boolean inWindow(Collective coll, long count, DataType type, DeviceBuffer send, DeviceBuffer recv) {
        long b = Math.multiplyExact(count, (long) type.sizeBytes());
        boolean symmetric = coll == Collective.ALL_REDUCE || coll == Collective.REDUCE_SCATTER
                || coll == Collective.ALL_GATHER || coll == Collective.BROADCAST;
        return symmetric && send != null && recv != null && windowOf(send.address(),
                coll == Collective.REDUCE_SCATTER ? b * nRanks : b, recv.address(),
                coll == Collective.ALL_GATHER ? b * nRanks : b) != null;
    }

    /**
     * The window the copy engines run a byte-moving collective in ({@link CtaPolicy#ZERO}): the one holding the
     * receive range, outside groups and graph capture (whose replays would repeat the signal counts); else null,
     * and the kernels run. The receive range must lie at the same offset of the window on every rank, as NCCL's
     * symmetric memory requires, so every rank decides alike.
     */
    private GpuWindow copyEngineWindow(long recv, long bytes, CudaStream stream) {
        GpuWindow w = copyEngineWindow(recv, bytes);   // the policy first: a capture query allocates
        return w == null || GpuGroups.inGroup() || stream.isCapturing() ? null : w;
    }

    /** As above, for any call made eagerly outside a group. */
    private GpuWindow copyEngineWindow(long recv, long bytes) {
        if (options.ctaPolicy() != CtaPolicy.ZERO || nRanks == 1) {
            return null;
        }
        GpuWindow w = windows.holding(recv, bytes);
        return w == null || w.spansHosts() ? null : w;
    }
}
