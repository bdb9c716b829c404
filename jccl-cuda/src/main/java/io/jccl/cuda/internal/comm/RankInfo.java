package io.jccl.cuda.internal.comm;

import io.jccl.JcclException;
import io.jccl.Result;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

/**
 * What one process tells the others when a one-process-per-GPU communicator starts (exchanged with the host
 * communicator's allGather): its host and process id, its GPU's bus id and multiprocessor count, the layout of its
 * collective memory, and that memory's 64-byte CUDA IPC handle and address (which ranks of the same process use
 * instead of the handle). Fixed 256-byte encoding.
 *
 * <p>A value. Mirrors NCCL's peerInfo exchange plus the p2p transport's IPC handle exchange (p2p.cc).
 *
 * @param hostHash     its host ({@code PeerInfo.hostHash}: ranks with equal hashes share a host; NCCL_HOSTID)
 * @param pid          process id (on that host)
 * @param busId        the GPU's PCI bus id
 * @param sms          its multiprocessor count
 * @param layout       {@link AreaLayout#fingerprint()} of its collective memory
 * @param areaBytes    size of that memory
 * @param areaBase     its address (valid in the rank's own process)
 * @param ipcHandle    its CUDA IPC handle (64 bytes)
 */
record RankInfo(long hostHash, long pid, String busId, int sms, String layout, long areaBytes, long areaBase,
                       byte[] ipcHandle) {
    /** Bytes of the encoding. */
    public static final int BYTES = 256;
    private static final int HANDLE = 0;
    private static final int AREA = 64;
    private static final int PID = 72;
    private static final int SMS = 80;
    private static final int BASE = 88;
    private static final int HOST = 96;
    private static final int BUS = 128;
    private static final int LAYOUT = 192;
    private static final int TEXT = 64;

    public RankInfo {
        if (ipcHandle.length != 64) {
            throw new IllegalArgumentException("an IPC handle has 64 bytes, got " + ipcHandle.length);
        }
        ipcHandle = ipcHandle.clone();
    }

    /** Writes the encoding into {@code seg} (at least {@link #BYTES} bytes). */
    public void encode(MemorySegment seg) {
        seg.asSlice(0, BYTES).fill((byte) 0);
        MemorySegment.copy(ipcHandle, 0, seg, JAVA_BYTE, HANDLE, 64);
        seg.set(JAVA_LONG_UNALIGNED, AREA, areaBytes);
        seg.set(JAVA_LONG_UNALIGNED, PID, pid);
        seg.set(JAVA_INT_UNALIGNED, SMS, sms);
        seg.set(JAVA_LONG_UNALIGNED, BASE, areaBase);
        seg.set(JAVA_LONG_UNALIGNED, HOST, hostHash);
        text(seg, BUS, busId);
        text(seg, LAYOUT, layout);
    }

    /** Reads an encoding written by {@link #encode}. */
    public static RankInfo decode(MemorySegment seg) {
        byte[] h = seg.asSlice(HANDLE, 64).toArray(JAVA_BYTE);
        return new RankInfo(seg.get(JAVA_LONG_UNALIGNED, HOST), seg.get(JAVA_LONG_UNALIGNED, PID), text(seg, BUS),
                seg.get(JAVA_INT_UNALIGNED, SMS), text(seg, LAYOUT), seg.get(JAVA_LONG_UNALIGNED, AREA),
                seg.get(JAVA_LONG_UNALIGNED, BASE), h);
    }

    /**
     * Checks that every rank has the same memory layout (the same options and rank count) and its own GPU (GPUs of
     * different hosts may have the same bus id).
     *
     * @throws JcclException {@link Result#INVALID_USAGE} naming the ranks that disagree
     */
    public static void checkConsistent(List<RankInfo> all, int me) {
        RankInfo mine = all.get(me);
        for (int r = 0; r < all.size(); r++) {
            RankInfo o = all.get(r);
            if (!o.layout.equals(mine.layout)) {
                throw new JcclException(Result.INVALID_USAGE, "rank " + r + " uses collective memory layout "
                        + o.layout + " but rank " + me + " uses " + mine.layout + " (ranks/llSlotWords/pushSlotBytes/"
                        + "channels/slotBytes): every process must use the same jccl.cuda.* options");
            }
            for (int q = r + 1; q < all.size(); q++) {
                if (o.sameGpu(all.get(q)) && !Clique.sharesDevices()) {
                    throw new JcclException(Result.INVALID_USAGE, "ranks " + r + " and " + q + " both use the GPU at "
                            + o.busId + " of one host; each rank needs its own GPU (set the device from the local"
                            + " rank)");
                }
            }
        }
    }

    /** Whether {@code o} runs in the same process as this rank (the same host and process id). */
    public boolean sameProcess(RankInfo o) {
        return o.hostHash == hostHash && o.pid == pid;
    }

    /** Whether {@code o} uses the same GPU as this rank (the same host and bus id). */
    public boolean sameGpu(RankInfo o) {
        return o.hostHash == hostHash && o.busId.equals(busId);
    }

    private static void text(MemorySegment seg, int off, String s) {
        byte[] b = s.getBytes(StandardCharsets.US_ASCII);
        MemorySegment.copy(b, 0, seg, JAVA_BYTE, off, Math.min(b.length, TEXT - 1));
    }

    private static String text(MemorySegment seg, int off) {
        byte[] b = seg.asSlice(off, TEXT).toArray(JAVA_BYTE);
        int n = 0;
        while (n < b.length && b[n] != 0) {
            n++;
        }
        return new String(b, 0, n, StandardCharsets.US_ASCII);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RankInfo r && r.hostHash == hostHash && r.pid == pid && r.busId.equals(busId)
                && r.sms == sms && r.layout.equals(layout) && r.areaBytes == areaBytes && r.areaBase == areaBase
                && Arrays.equals(r.ipcHandle, ipcHandle);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(ipcHandle) * 31 + busId.hashCode();
    }
}
