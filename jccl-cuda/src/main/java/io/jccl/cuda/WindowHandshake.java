package io.jccl.cuda;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.Result;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

/**
 * What the ranks of a {@link GpuWindow} tell each other over the host communicator when it opens and closes: each
 * rank's pid, memory, signal area and IPC handles, the check that they can share a window, and the agreement that
 * every rank's side worked (so that all throw together, or none).
 *
 * <p>Thread: the thread that issues the communicator's calls, one per rank, collectively. Mirrors the exchange of
 * NCCL's window registration (ncclDevrWindow's all-gather of handles), our own code.
 */
final class WindowHandshake {
    /** What each rank publishes: pid, data address, data bytes, exportable, signal address, two IPC handles. */
    static final int INFO_BYTES = 8 + 8 + 8 + 8 + 8 + 64 + 64;

    private WindowHandshake() {
    }

    /** Opens the IPC handle at {@code off} of a peer's published info. */
    static long map(CudaDevice device, MemorySegment info, long off, long bytes, List<DeviceBuffer> into) {
        byte[] h = new byte[64];
        MemorySegment.copy(info, JAVA_BYTE, off, h, 0, 64);
        DeviceBuffer m = DeviceBuffer.openIpcHandle(device, h, bytes);
        into.add(m);
        return m.address();
    }

    static byte[] exchange(Communicator host, int me, int n, DeviceBuffer data, boolean exportable,
                                   DeviceBuffer signals, byte[] dataHandle) {
        try (Arena a = Arena.ofShared()) {   // the host channel threads read and write these
            MemorySegment send = a.allocate(INFO_BYTES);
            MemorySegment recv = a.allocate((long) INFO_BYTES * n);
            send.set(JAVA_LONG_UNALIGNED, 0, ProcessHandle.current().pid());
            send.set(JAVA_LONG_UNALIGNED, 8, data.address());
            send.set(JAVA_LONG_UNALIGNED, 16, data.sizeBytes());
            send.set(JAVA_LONG_UNALIGNED, 24, exportable ? 1 : 0);
            send.set(JAVA_LONG_UNALIGNED, 32, signals.address());
            MemorySegment.copy(dataHandle, 0, send, JAVA_BYTE, 40, 64);
            MemorySegment.copy(signals.exportIpcHandle(), 0, send, JAVA_BYTE, 104, 64);
            host.allGather(send, recv, INFO_BYTES, DataType.UINT8);
            return recv.toArray(JAVA_BYTE);
        }
    }

    /** What keeps these ranks from sharing a window (the same answer on every rank), or null. */
    static String check(byte[] all, int n, long bytes) {
        MemorySegment s = MemorySegment.ofArray(all);
        long pid0 = s.get(JAVA_LONG_UNALIGNED, 0);
        boolean oneProcess = true;
        for (int r = 0; r < n; r++) {
            oneProcess &= s.get(JAVA_LONG_UNALIGNED, (long) r * INFO_BYTES) == pid0;
        }
        for (int r = 0; r < n; r++) {
            long off = (long) r * INFO_BYTES;
            long b = s.get(JAVA_LONG_UNALIGNED, off + 16);
            if (b != s.get(JAVA_LONG_UNALIGNED, 16)) {
                return "every rank's window must have the same size: rank 0 gave " + s.get(JAVA_LONG_UNALIGNED, 16)
                        + " bytes, rank " + r + " " + b + " (this rank " + bytes + ")";
            }
            if (!oneProcess && s.get(JAVA_LONG_UNALIGNED, off + 24) == 0) {
                return "rank " + r + "'s buffer is a slice or wrapped memory, which ranks of other processes cannot "
                        + "map: register a whole DeviceBuffer.allocate allocation, or use allocateWindow";
            }
        }
        return null;
    }

    /** Every rank says whether its side worked; throws on every rank when one did not. Collective. */
    static void agree(Communicator host, int me, int n, boolean ok, String where) {
        try (Arena a = Arena.ofShared()) {   // the host channel threads read and write these
            MemorySegment send = a.allocate(1);
            MemorySegment recv = a.allocate(n);
            send.set(JAVA_BYTE, 0, (byte) (ok ? 1 : 0));
            host.allGather(send, recv, 1, DataType.UINT8);
            List<Integer> failed = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                if (recv.get(JAVA_BYTE, r) == 0) {
                    failed.add(r);
                }
            }
            if (!failed.isEmpty()) {
                throw new JcclException(Result.INVALID_USAGE, where + ": refused on rank(s) " + failed
                        + (failed.contains(me) ? "" : " (this rank " + me + " was ready)"));
            }
        }
    }
}
