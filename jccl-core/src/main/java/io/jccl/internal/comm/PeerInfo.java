package io.jccl.internal.comm;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.param.Params;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * What every rank tells every other at init (NCCL's {@code ncclPeerInfo}): identity, where it runs, and the local
 * choices the ranks must agree on. {@code hostHash} covers the host name, the boot id and the network namespace, so
 * ranks in different namespaces ("hosts" in tests) are not mistaken for neighbours; NCCL_HOSTID overrides it.
 * {@code machineHash} is the kernel's boot id alone: ranks that share it share the cores, whatever their host hash says
 * (network namespaces or containers on one machine, NCCL_HOSTID), which decides how long waiting threads may spin.
 * {@code cpus} is the rank's affinity mask: ranks bound to disjoint cores do not compete for them.
 *
 * <p>Owned by: immutable, allGathered once at init. Mirrors: ncclPeerInfo and fillInfo().
 */
public record PeerInfo(int rank, long hostHash, long pidHash, String hostName, long pid, String version,
                       int cores, int minChannels, int maxChannels, int stepBytes, int p2pStepBytes,
                       long machineHash, io.jccl.internal.topology.CpuSet cpus) {

    public static PeerInfo local(int rank, String version, int minChannels, int maxChannels, int stepBytes,
                                 int p2pStepBytes) {
        String host = localHostName();
        long pid = ProcessHandle.current().pid();
        String boot = read("/proc/sys/kernel/random/boot_id");
        long hh = hostHash(host, boot);
        return new PeerInfo(rank, hh, hash(hh + ":" + pid), host, pid, version,
                Runtime.getRuntime().availableProcessors(), minChannels, maxChannels, stepBytes, p2pStepBytes,
                boot.isEmpty() ? hh : hash("machine|" + boot), io.jccl.internal.topology.CpuSet.ofThisProcess());
    }

    public byte[] encode() {
        try {
            ByteArrayOutputStream bos = new ByteArrayOutputStream();
            DataOutputStream d = new DataOutputStream(bos);
            d.writeInt(rank);
            d.writeLong(hostHash);
            d.writeLong(pidHash);
            d.writeUTF(hostName);
            d.writeLong(pid);
            d.writeUTF(version);
            d.writeInt(cores);
            d.writeInt(minChannels);
            d.writeInt(maxChannels);
            d.writeInt(stepBytes);
            d.writeInt(p2pStepBytes);
            d.writeLong(machineHash);
            d.writeUTF(cpus.toString());
            return bos.toByteArray();
        } catch (IOException e) {
            throw new JcclException(Result.INTERNAL_ERROR, "cannot encode peer info", e);
        }
    }

    public static PeerInfo decode(byte[] b) {
        try {
            DataInputStream d = new DataInputStream(new ByteArrayInputStream(b));
            PeerInfo p = new PeerInfo(d.readInt(), d.readLong(), d.readLong(), d.readUTF(), d.readLong(), d.readUTF(),
                    d.readInt(), d.readInt(), d.readInt(), d.readInt(), d.readInt(), d.readLong(),
                    io.jccl.internal.topology.CpuSet.parse(d.readUTF()));
            if (d.available() != 0 || p.rank < 0 || p.pid < 0 || p.cores < 0 || p.minChannels < 0 || p.maxChannels < 0
                    || (p.stepBytes <= 0 && p.stepBytes != CommShape.DEFAULT_STEP) || p.p2pStepBytes <= 0) {
                throw new IOException("field out of range or trailing bytes");
            }
            return p;
        } catch (IOException | IllegalArgumentException e) {
            throw new JcclException(Result.INTERNAL_ERROR, "corrupt peer info from bootstrap", e);
        }
    }

    /**
     * The cores the ranks {@code which} selects run on together: the union of their CPU sets, so ranks bound to
     * disjoint cores (taskset, mpirun --bind-to core, jccl run) are not counted as sharing one; the largest
     * processor count among them when some rank's set is unknown.
     */
    static int coresOf(PeerInfo[] peers, java.util.function.Predicate<PeerInfo> which) {
        java.util.List<io.jccl.internal.topology.CpuSet> sets = new java.util.ArrayList<>();
        int most = 1;
        boolean known = true;
        for (PeerInfo p : peers) {
            if (which.test(p)) {
                most = Math.max(most, p.cores());
                known &= !p.cpus().isEmpty();
                sets.add(p.cpus());
            }
        }
        return known && !sets.isEmpty() ? io.jccl.internal.topology.CpuSet.union(sets).size() : most;
    }

    static String localHostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "localhost";
        }
    }

    /**
     * A host id for communicators initialised on the current thread, ahead of NCCL_HOSTID: lets tests run several
     * fake hosts as threads of one JVM (their peers then talk over sockets, as across real hosts). Null: none.
     */
    public static final ThreadLocal<String> THREAD_HOST_ID = new ThreadLocal<>();

    static long hostHash(String host, String bootId) {
        String forThread = THREAD_HOST_ID.get();
        if (forThread != null) {
            return hash(forThread);
        }
        String id = Params.HOSTID.get();
        if (!id.isEmpty()) {
            return hash(id);
        }
        return hash(host + "|" + bootId + "|" + netns());
    }

    private static String netns() {
        try {
            return Files.readSymbolicLink(Path.of("/proc/self/ns/net")).toString();
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return "";
        }
    }

    private static String read(String path) {
        try {
            return Files.readString(Path.of(path)).trim();
        } catch (IOException | SecurityException e) {
            return "";
        }
    }

    static long hash(String s) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
            long h = 0;
            for (int i = 0; i < 8; i++) {
                h = (h << 8) | (d[i] & 0xff);
            }
            return h;
        } catch (NoSuchAlgorithmException e) {
            return s.hashCode();
        }
    }
}
