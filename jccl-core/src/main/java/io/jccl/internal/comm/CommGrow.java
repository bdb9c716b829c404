package io.jccl.internal.comm;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.UniqueId;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

/**
 * {@link Communicator#grow}: the ranks of a communicator agree on the new size and take rank 0's id over one
 * allGather of this communicator (so they all accept or all refuse), then join a new communicator of that size under
 * their old ranks, beside the newcomers who join the same id with ranks {@code size()..newSize-1}.
 *
 * <p>Thread: the communicator's caller. Mirrors NCCL's ncclCommGrow (a new bootstrap under an id the existing ranks
 * hand out; the old communicator keeps working).
 */
final class CommGrow {
    private static final int BYTES = 8 + 1 + UniqueId.BYTES;

    private CommGrow() {
    }

    static Communicator grow(Communicator comm, int newSize, UniqueId id) {
        int n = comm.size();
        int me = comm.rank();
        byte[] all;
        try (Arena a = Arena.ofShared()) {   // the channel threads read and write these
            MemorySegment send = a.allocate(BYTES);
            MemorySegment recv = a.allocate((long) BYTES * n);
            send.set(JAVA_LONG_UNALIGNED, 0, newSize);
            send.set(JAVA_BYTE, 8, (byte) (id != null ? 1 : 0));
            if (id != null) {
                MemorySegment.copy(id.toBytes(), 0, send, JAVA_BYTE, 9, UniqueId.BYTES);
            }
            comm.allGather(send, recv, BYTES, DataType.UINT8);
            all = recv.toArray(JAVA_BYTE);
        }
        MemorySegment s = MemorySegment.ofArray(all);
        String where = "rank " + me + ": grow of communicator " + comm.id();
        List<String> sizes = new ArrayList<>();
        boolean agree = true;
        for (int r = 0; r < n; r++) {
            long size = s.get(JAVA_LONG_UNALIGNED, (long) r * BYTES);
            sizes.add("rank " + r + ": " + size);
            agree &= size == newSize;
        }
        if (!agree) {
            throw new JcclException(Result.INVALID_USAGE, where + ": the ranks ask for different sizes (" + sizes
                    + ")");
        }
        if (newSize <= n) {
            throw new JcclException(Result.INVALID_ARGUMENT, where + ": the new size " + newSize + " must exceed the "
                    + n + " ranks there are (shrink removes ranks)");
        }
        if (s.get(JAVA_BYTE, 8) == 0) {
            throw new JcclException(Result.INVALID_ARGUMENT, where + ": rank 0 must pass the id the newcomers join "
                    + "with (Jccl.uniqueId()); it passed none");
        }
        byte[] rootId = new byte[UniqueId.BYTES];
        MemorySegment.copy(s, JAVA_BYTE, 9, rootId, 0, UniqueId.BYTES);
        if (Log.enabled(Log.Level.INFO, Subsys.INIT)) {
            Log.info(Subsys.INIT, me, "grow: communicator %s of %d ranks joins one of %d (newcomers take ranks %d..%d)",
                    comm.id(), n, newSize, n, newSize - 1);
        }
        return Communicator.init(UniqueId.fromBytes(rootId), newSize, me, comm.config());
    }
}
