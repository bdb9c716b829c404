package io.jccl.tools.perf.gpu;

import io.jccl.Config;
import io.jccl.DataType;
import io.jccl.Group;
import io.jccl.Jccl;
import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.CudaStream;
import io.jccl.cuda.GpuCommunicator;
import io.jccl.tools.perf.Registration;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * What a GPU perf run of this process holds, shared by the JCCL and the NCCL backends so both measure on the same
 * buffers and streams: the GpuCommunicators of this process's ranks (all GPUs of the process with -g G, or the
 * GPU(s) of the local rank under a launcher: -g G GPUs each, from GPU localRank*G), one stream per rank, NCCL
 * communicators over the same GPUs when NCCL is
 * measured, and the device buffers (with pinned host mirrors) in allocation order. With {@code -R 1/2} each library
 * gets its own registered buffers instead ({@link RegisteredBuffers}), released by each rank's thread when that
 * library's run ends. Reference-counted: released when the last backend closes.
 *
 * <p>Thread: created on the main thread; {@link #buffer} from each rank's thread (each its own index space);
 * {@link #release} synchronised. Mirrors what nccl-tests' main sets up (comms, streams, buffers).
 */
final class GpuSession {
    private final List<GpuCommunicator> comms;
    private final List<CudaStream> streams;
    private final NcclLibrary nccl;
    private final MemorySegment[] ncclComms;
    private final List<List<GpuBuffer>> buffers = new ArrayList<>();
    private final Registration registration;
    private final NcclRegistration ncclRegistration;
    /** [library ordinal][local rank]: the registered buffers of -R 1/2, null until first used or once released. */
    private final RegisteredBuffers[][] registered;
    private int refs;

    private GpuSession(List<GpuCommunicator> comms, List<CudaStream> streams, NcclLibrary nccl,
                       MemorySegment[] ncclComms, Registration registration) {
        this.comms = comms;
        this.streams = streams;
        this.nccl = nccl;
        this.ncclComms = ncclComms;
        this.registration = registration;
        this.ncclRegistration = nccl != null && registration != Registration.NONE ? nccl.registration() : null;
        this.registered = new RegisteredBuffers[GpuBackend.Library.values().length][comms.size()];
        for (int i = 0; i < comms.size(); i++) {
            buffers.add(new ArrayList<>());
        }
    }

    /**
     * Opens the GPUs: {@code gpus} GPUs of this process ({@code localIndex < 0}), or the GPU of local rank
     * {@code localIndex} as one rank of a launched job; NCCL communicators too when {@code withNccl} (after checking
     * that the library has {@code registration}'s calls).
     */
    static GpuSession open(int gpus, int localIndex, boolean withNccl, Registration registration) {
        List<GpuCommunicator> comms;
        if (localIndex < 0) {
            comms = GpuCommunicator.initAll(devices(0, gpus, ""));
        } else if (gpus == 1) {
            comms = List.of(GpuCommunicator.fromEnvironment(CudaDevice.get(localIndex)));
        } else {   // nccl-tests' -g under a launcher: local rank L drives GPUs L*G to L*G+G-1
            comms = GpuCommunicator.fromEnvironment(devices(localIndex * gpus, gpus, " on local rank " + localIndex),
                    Config.defaults());
        }
        List<CudaStream> streams = new ArrayList<>();
        for (GpuCommunicator c : comms) {
            streams.add(CudaStream.create(c.device()));
        }
        NcclLibrary nccl = null;
        MemorySegment[] ncclComms = null;
        if (withNccl) {
            requireNoNvls();
            nccl = NcclLibrary.load();
            nccl.registration().require(registration);
            ncclComms = localIndex < 0 ? nccl.commInitAll(ordinals(comms)) : initRanks(nccl, comms);
        }
        return new GpuSession(comms, streams, nccl, ncclComms, registration);
    }

    /**
     * GPUs {@code first} to {@code first + gpus - 1}, after checking this process sees them; with
     * {@code jccl.cuda.shareDevices} (tests on fewer GPUs) GPU g is the visible GPU g modulo their number.
     */
    private static List<CudaDevice> devices(int first, int gpus, String where) {
        boolean share = io.jccl.internal.param.InternalProperties.CUDA_SHARE_DEVICES.get();
        if (CudaDevice.count() < first + gpus && !share) {
            throw new JcclException(Result.INVALID_ARGUMENT, "-g " + gpus + where + " needs GPUs " + first + " to "
                    + (first + gpus - 1) + " but this process sees " + CudaDevice.count()
                    + " GPU(s); check CUDA_VISIBLE_DEVICES");
        }
        List<CudaDevice> devs = new ArrayList<>();
        for (int g = first; g < first + gpus; g++) {
            devs.add(CudaDevice.get(share ? g % CudaDevice.count() : g));
        }
        return devs;
    }

    private static int[] ordinals(List<GpuCommunicator> comms) {
        return comms.stream().mapToInt(c -> c.device().ordinal()).toArray();
    }

    /**
     * ncclCommInitRank for each rank of this process (inside an NCCL group when there are several), with rank 0's
     * unique id broadcast over the host communicators.
     */
    @SuppressWarnings("try") // the resource is held for the scope, not used
    private static MemorySegment[] initRanks(NcclLibrary nccl, List<GpuCommunicator> comms) {
        int k = comms.size();
        MemorySegment[] out = new MemorySegment[k];
        try (Arena a = Arena.ofShared()) {
            List<MemorySegment> ids = new ArrayList<>();
            try (Group g = Jccl.group()) {   // every local rank takes part in the broadcast, from this thread
                for (GpuCommunicator c : comms) {
                    MemorySegment id = a.allocate(NcclLibrary.UNIQUE_ID_BYTES);
                    if (c.rank() == 0) {
                        MemorySegment.copy(nccl.uniqueId(), 0, id, JAVA_BYTE, 0, NcclLibrary.UNIQUE_ID_BYTES);
                    }
                    c.host().broadcast(id, id, NcclLibrary.UNIQUE_ID_BYTES, DataType.UINT8, 0);
                    ids.add(id);
                }
            }
            if (k > 1) {
                nccl.groupStart();
            }
            try {
                for (int i = 0; i < k; i++) {
                    GpuCommunicator c = comms.get(i);
                    c.device().makeCurrent();
                    out[i] = nccl.commInitRank(c.size(), ids.get(i).toArray(JAVA_BYTE), c.rank());
                }
            } finally {
                if (k > 1) {
                    nccl.groupEnd();
                }
            }
            return out;
        }
    }

    /** NVLink multicast (NVLS) must stay off on the shared GPU machines: refuse to start NCCL otherwise. */
    private static void requireNoNvls() {
        if (!"0".equals(System.getenv("NCCL_NVLS_ENABLE"))) {
            throw new JcclException(Result.INVALID_USAGE, "set NCCL_NVLS_ENABLE=0 before measuring NCCL: NVLink "
                    + "multicast must stay off on these machines");
        }
    }

    int localRanks() {
        return comms.size();
    }

    GpuCommunicator comm(int local) {
        return comms.get(local);
    }

    CudaStream stream(int local) {
        return streams.get(local);
    }

    NcclLibrary nccl() {
        return nccl;
    }

    MemorySegment ncclComm(int local) {
        return ncclComms[local];
    }

    Registration registration() {
        return registration;
    }

    /**
     * Buffer number {@code index} of local rank {@code local} for {@code lib}: without registration allocated at
     * first use and reused by later backends; with {@code -R 1/2} registered with {@code lib} (collective for
     * windows: every rank's thread asks for the same buffers in the same order).
     */
    GpuBuffer buffer(GpuBackend.Library lib, int local, int index, long bytes) {
        if (registration != Registration.NONE) {
            return registered(lib, local).buffer(index, bytes);
        }
        List<GpuBuffer> list = buffers.get(local);
        synchronized (list) {
            while (list.size() <= index) {
                list.add(null);
            }
            GpuBuffer b = list.get(index);
            if (b == null || b.sizeBytes() < bytes) {
                if (b != null) {
                    b.close();
                }
                b = GpuBuffer.allocate(comms.get(local).device(), bytes);
                list.set(index, b);
            }
            return b;
        }
    }

    /** The JCCL window of local rank {@code local}'s -R 1/2 buffers, or null (no registration, or none yet). */
    io.jccl.cuda.GpuWindow window(int local) {
        return registration == Registration.NONE ? null : registered(GpuBackend.Library.JCCL, local).window();
    }

    private RegisteredBuffers registered(GpuBackend.Library lib, int local) {
        synchronized (registered) {
            RegisteredBuffers r = registered[lib.ordinal()][local];
            if (r == null) {
                r = lib == GpuBackend.Library.JCCL ? RegisteredBuffers.jccl(comms.get(local), registration)
                        : RegisteredBuffers.nccl(comms.get(local), registration, ncclRegistration, ncclComms[local]);
                registered[lib.ordinal()][local] = r;
            }
            return r;
        }
    }

    /**
     * The end of {@code lib}'s run on local rank {@code local}, on its thread after its stream has drained: closes
     * the registered buffers (JCCL's windows collectively, NCCL's registrations then memory). Nothing without -R.
     */
    void finish(GpuBackend.Library lib, int local) {
        RegisteredBuffers r;
        synchronized (registered) {
            r = registered[lib.ordinal()][local];
            registered[lib.ordinal()][local] = null;
        }
        if (r != null) {
            r.close();
        }
    }

    synchronized void retain(int n) {
        refs += n;
    }

    /** One backend is done; the last one closes everything (NCCL communicators, buffers, streams, JCCL). */
    synchronized void release() {
        if (--refs > 0) {
            return;
        }
        for (GpuCommunicator c : comms) {
            c.device().synchronize();
        }
        if (ncclComms != null) {
            for (MemorySegment c : ncclComms) {
                nccl.commDestroy(c);
            }
        }
        for (List<GpuBuffer> list : buffers) {
            for (GpuBuffer b : list) {
                if (b != null) {
                    b.close();
                }
            }
        }
        synchronized (registered) {   // left by a failed run: the communicators' close releases the rest
            for (RegisteredBuffers[] perLib : registered) {
                for (RegisteredBuffers r : perLib) {
                    if (r != null) {
                        r.closeMirrors();
                    }
                }
            }
        }
        streams.forEach(CudaStream::close);
        comms.forEach(GpuCommunicator::close);
    }
}
