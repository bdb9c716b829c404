package io.jccl.internal.transport.shm;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.transport.PeerExchange;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Registered buffers (NCCL's {@code ncclMemAlloc} + symmetric window registration, for host memory): every rank of a
 * single-host communicator allocates a buffer of the same size in shared memory, and every rank maps everyone's,
 * so collectives on such buffers read peers' data in place (one copy instead of two). Buffers live until the
 * communicator closes; their files are unlinked as soon as all ranks mapped them.
 *
 * <p>Owned by: the communicator's launching thread (allocate, lookup). Mirrors: NCCL's register.cc /
 * ncclCommWindowRegister, in host memory.
 */
public final class ShmRegistry {
    /** Where a segment lies in the registry: registration {@code index}, byte {@code offset} within it. */
    public record Location(int index, long offset) {
    }

    private final int rank;
    private final String commId;
    private final Arena arena;
    private final List<MemorySegment[]> regs = new ArrayList<>();

    public ShmRegistry(int rank, String commId, Arena arena) {
        this.rank = rank;
        this.commId = commId;
        this.arena = arena;
    }

    /** Collective: allocates this rank's buffer and maps every peer's (all ranks call it with the same size). */
    public MemorySegment allocate(PeerExchange bootstrap, long bytes) {
        if (bytes <= 0) {
            throw new JcclException(Result.INVALID_ARGUMENT, "rank " + rank + ": allocate(" + bytes
                    + "): size must be positive");
        }
        int n = bootstrap.nRanks();
        String name = ShmFiles.PREFIX + commId.substring(0, 8) + "-" + ProcessHandle.current().pid() + "-reg"
                + regs.size() + "-r" + rank + "-" + HexFormat.of().toHexDigits(new SecureRandom().nextInt());
        MemorySegment mine = ShmFiles.create(name, bytes, arena);
        MemorySegment[] all = new MemorySegment[n];
        all[rank] = mine;
        try {
            byte[] me = (bytes + ":" + name).getBytes(StandardCharsets.UTF_8);
            byte[][] everyone = bootstrap.allGather(me);
            for (int p = 0; p < n; p++) {
                String[] parts = new String(everyone[p], StandardCharsets.UTF_8).split(":", 2);
                if (Long.parseLong(parts[0]) != bytes) {
                    throw new JcclException(Result.INVALID_USAGE, "rank " + rank + " allocated " + bytes
                            + " bytes but rank " + p + " allocated " + parts[0] + "; allocate is collective and every "
                            + "rank must ask for the same size");
                }
                if (p != rank) {
                    if (!parts[1].startsWith(ShmFiles.PREFIX) || parts[1].contains("/")) {
                        throw new JcclException(Result.REMOTE_ERROR, "rank " + p + " sent a bad buffer name");
                    }
                    all[p] = ShmFiles.attach(parts[1], bytes, arena);
                }
            }
            bootstrap.barrier();
        } finally {
            ShmFiles.unlink(name);
        }
        regs.add(all);
        return mine;
    }

    /** Where {@code s} lies if it is inside one of this rank's registered buffers, else null. */
    public Location lookup(MemorySegment s) {
        if (s == null || !s.isNative() || regs.isEmpty()) {
            return null;
        }
        long a = s.address();
        for (int i = 0; i < regs.size(); i++) {
            MemorySegment m = regs.get(i)[rank];
            long off = a - m.address();
            if (off >= 0 && off + s.byteSize() <= m.byteSize()) {
                return new Location(i, off);
            }
        }
        return null;
    }

    /** Rank {@code p}'s view of registration {@code index}. */
    public MemorySegment peer(int index, int p) {
        return regs.get(index)[p];
    }

    public boolean isEmpty() {
        return regs.isEmpty();
    }
}
