package io.jccl.cuda.internal.comm;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.cuda.CudaDevice;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;
import io.jccl.internal.transport.shm.ShmFiles;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * The host memory every rank of a GPU communicator shares, and what lives in it: the {@link AbortArea} all kernels
 * poll, the {@link StopNote} saying which rank stopped the communicator and why, and the {@link CallLedger} that
 * refuses calls that cannot match. So a timeout, a refused call or an {@code abort()} on one rank stops every rank's
 * kernels at once, and every rank reports the same cause.
 * <ul>
 *   <li>{@code initAll} (one process): the area is pinned host memory, the note and ledger a segment of the
 * process.</li>
 *   <li>One process per GPU: one shared-memory file ({@code /dev/shm/jccl-gpu-*}, or {@code JCCL_SHM_DIR}) created
 *       by rank 0 and mapped by every rank; its first page, the area, is registered with CUDA in every process. The
 *       file is unlinked once every rank has mapped it, so nothing is left behind. Where a rank cannot map or
 *       register it (another container's {@code /dev/shm}), every rank falls back to an area of its own and no
 *       ledger: timeouts then stop only the rank's own kernels, and calls are checked only with
 *       {@code JCCL_CHECK_CALLS=1} (over the host communicator).</li>
 * </ul>
 *
 * <p>Thread: created by the communicator's creator (collective over the host communicator for processes); used
 * from any thread; closed once, by the last rank of a clique or by each process. Mirrors NCCL's host-mapped abort
 * flag (shared by a clique's ranks there too) and its shared-memory setup ({@code ncclShmOpen} then
 * {@code cudaHostRegister}); the note and ledger have no NCCL counterpart.
 */
public final class SharedControl implements AutoCloseable {
    /** The area gets a page of its own: CUDA registers whole pages. */
    private static final long AREA_PAGE = 4096;
    private static final int NAME_BYTES = 64;

    private final AbortArea abortArea;
    private final StopNote note;
    private final CallLedger calls;
    private final Arena arena;
    private boolean closed;
    /** Carries calls and stops to the ranks on other hosts (null on one host). */
    private volatile LedgerLink link;

    private SharedControl(AbortArea abortArea, StopNote note, CallLedger calls, Arena arena) {
        this.abortArea = abortArea;
        this.note = note;
        this.calls = calls;
        this.arena = arena;
    }

    /** For the ranks of an {@code initAll} clique, whose kernels read the area through {@code device}'s mapping. */
    public static SharedControl inProcess(CudaDevice device, int nRanks, long timeoutMs) {
        Arena arena = Arena.ofShared();
        try {
            MemorySegment m = arena.allocate(StopNote.BYTES + CallLedger.bytes(nRanks), 64);
            AbortArea area = AbortArea.allocate(device, timeoutMs);
            return new SharedControl(area, new StopNote(m), new CallLedger(nRanks, m.asSlice(StopNote.BYTES)), arena);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /**
     * For this process's rank of a one-process-per-GPU communicator; collective over {@code host} (every rank calls
     * it, after the ranks have agreed they share a host). Falls back to a per-process area (see the class comment)
     * when any rank cannot map the file, and goes straight to it when {@code unshared} says why the ranks cannot
     * share memory (they run on several hosts; null: try).
     */
    public static SharedControl forProcesses(Communicator host, CudaDevice device, long timeoutMs,
                                             String unshared) {
        int me = host.rank();
        int n = host.size();
        if (unshared != null) {
            return ownArea(me, n, device, timeoutMs, unshared);
        }
        long bytes = AREA_PAGE + StopNote.BYTES + CallLedger.bytes(n);
        Arena arena = Arena.ofShared();
        String name = "";
        String problem = null;
        MemorySegment file = null;
        if (me == 0) {
            name = ShmFiles.PREFIX + "gpu-" + ProcessHandle.current().pid() + "-"
                    + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
            try {
                file = ShmFiles.create(name, bytes, arena);
            } catch (JcclException e) {
                problem = e.getMessage();
                name = "";
            }
        }
        name = broadcastName(host, name);
        AbortArea area = null;
        try {
            if (me != 0 && !name.isEmpty()) {
                file = ShmFiles.attach(name, bytes, arena);
            }
            if (file != null) {
                area = AbortArea.register(device, file.asSlice(0, AREA_PAGE), me == 0, timeoutMs);
            }
        } catch (JcclException e) {
            problem = e.getMessage();
        }
        boolean everyone = allAgree(host, area != null);
        if (me == 0 && !name.isEmpty()) {
            ShmFiles.unlink(name);   // every rank has tried to map it by now
        }
        if (everyone) {
            Log.info(Subsys.INIT, me, "GPU ranks share their abort area, call ledger and stop note through %s/%s"
                    + " (%d bytes, unlinked once mapped)", ShmFiles.dir(), name, bytes);
            MemorySegment rest = file.asSlice(AREA_PAGE);
            return new SharedControl(area, new StopNote(rest), new CallLedger(n, rest.asSlice(StopNote.BYTES)), arena);
        }
        if (area != null) {
            area.close();
        }
        arena.close();
        return ownArea(me, 0, device, timeoutMs, problem != null ? problem
                : "another rank could not map " + ShmFiles.dir() + "/" + name);
    }

    /**
     * An area of this process's own: the fallback when the processes of one host cannot map a file (no ledger,
     * {@code ledgerRanks} 0), or ranks on several hosts, whose ledger of {@code ledgerRanks} ranks and stops the
     * {@link LedgerLink} carries between the hosts.
     */
    private static SharedControl ownArea(int me, int ledgerRanks, CudaDevice device, long timeoutMs, String why) {
        if (ledgerRanks > 0) {
            Log.info(Subsys.INIT, me, "GPU ranks share no control memory (%s): calls are compared and stops "
                    + "passed on over the network", why);
        } else {
            Log.info(Subsys.INIT, me, "GPU ranks share no control memory (%s): a timeout or abort stops this"
                    + " process's kernels only, and calls are checked only with JCCL_CHECK_CALLS=1", why);
        }
        Arena own = Arena.ofShared();
        try {
            MemorySegment m = own.allocate(StopNote.BYTES + (ledgerRanks > 0 ? CallLedger.bytes(ledgerRanks) : 0), 64);
            return new SharedControl(AbortArea.allocate(device, timeoutMs), new StopNote(m),
                    ledgerRanks > 0 ? new CallLedger(ledgerRanks, m.asSlice(StopNote.BYTES)) : null, own);
        } catch (RuntimeException e) {
            own.close();
            throw e;
        }
    }

    /** Rank 0's file name (empty: none) on every rank. */
    private static String broadcastName(Communicator host, String mine) {
        try (Arena a = Arena.ofShared()) {
            MemorySegment s = a.allocate(NAME_BYTES);
            byte[] b = mine.getBytes(StandardCharsets.US_ASCII);
            MemorySegment.copy(b, 0, s, JAVA_BYTE, 0, Math.min(b.length, NAME_BYTES - 1));
            host.broadcast(s, s, NAME_BYTES, DataType.UINT8, 0);
            return s.getString(0, StandardCharsets.US_ASCII);
        }
    }

    /** Whether every rank says {@code ok} (the minimum over the ranks). */
    private static boolean allAgree(Communicator host, boolean ok) {
        try (Arena a = Arena.ofShared()) {
            MemorySegment flag = a.allocate(1);
            flag.set(JAVA_BYTE, 0, (byte) (ok ? 1 : 0));
            host.allReduce(flag, flag, 1, DataType.UINT8, RedOp.MIN);
            return flag.get(JAVA_BYTE, 0) == 1;
        }
    }

    /** The area every rank's kernels poll. */
    public AbortArea abortArea() {
        return abortArea;
    }

    /** Every rank's calls, or {@code null} when the ranks share no memory (processes that fell back). */
    public CallLedger calls() {
        return calls;
    }

    /** Stops every rank's kernels for {@code cause}, which every rank then reports (the first cause is kept). */
    public void fail(JcclException cause) {
        LedgerLink l = link;
        if (raise(cause) && l != null) {
            l.stopAll(cause);   // before returning: an abort's host notice must not overtake it
        }
    }

    /** As {@link #fail}, for a cause a rank on another host reported: not passed on again. */
    public void failFromRemote(JcclException cause) {
        raise(cause);
    }

    /** Posts the cause and raises the area; true when this call posted the first cause. */
    private synchronized boolean raise(JcclException cause) {
        if (closed) {
            return false;   // the memory is gone (a late failure notice from the host communicator)
        }
        boolean first = note.post(cause);
        abortArea.raise();
        return first;
    }

    /**
     * Carries this process's ledger to the other hosts, and this rank's first stop to every rank (set up by
     * {@link LedgerLink#start}).
     */
    void link(LedgerLink l) {
        this.link = l;
    }

    /** What tells the other hosts of this rank's calls, or {@code null} on one host. */
    public LedgerLink link() {
        return link;
    }

    /** What a rank stopped the communicator for ({@link #fail}), or {@code null}. */
    public JcclException failure() {
        return note.read();
    }

    /** Unregisters the area and unmaps (or frees) the memory. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            abortArea.close();
        } finally {
            arena.close();
        }
    }
}
