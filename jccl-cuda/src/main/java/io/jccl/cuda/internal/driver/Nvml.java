package io.jccl.cuda.internal.driver;

import io.jccl.internal.param.InternalProperties;
import io.jccl.cuda.internal.ffm.NativeLibrary;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import static io.jccl.cuda.internal.driver.DriverCall.Arg.INT;
import static io.jccl.cuda.internal.driver.DriverCall.Arg.PTR;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * NVML ({@code libnvidia-ml.so.1}, system property {@code jccl.nvml.library}) through FFM, for the one thing the
 * CUDA driver does not tell: how many NVLinks a GPU has and where each one goes. Initialised once on first use;
 * missing (no driver, a container without it, the CPU emulator) is a normal answer, not an error.
 *
 * <p>Thread: any thread (NVML is thread-safe; the init runs once under the class holder idiom). Mirrors NCCL's
 * nvmlwrap.cc, as far as ncclTopoGetXmlFromGpu uses it (link state, remote PCI info, remote device type).
 */
public final class Nvml {
    /** Links NVML may report on one GPU (NVML_NVLINK_MAX_LINKS). */
    static final int MAX_LINKS = 18;
    /** nvmlIntNvLinkDeviceType_t. */
    static final int DEVICE_TYPE_GPU = 0;
    static final int DEVICE_TYPE_IBMNPU = 1;
    static final int DEVICE_TYPE_SWITCH = 2;
    /** sizeof(nvmlPciInfo_t): busIdLegacy[16], 5 unsigned ints, busId[32]. */
    static final int PCI_INFO_BYTES = 68;
    static final int PCI_INFO_BUS_ID_OFFSET = 36;

    private Nvml() {
    }

    private static final class Holder {
        static final NativeLibrary LIB = NativeLibrary.open(InternalProperties.NVML_LIBRARY.get(),
                "NVML (libnvidia-ml.so.1) not found");
        static final DriverCall INIT = bind("nvmlInit_v2");
        static final DriverCall HANDLE_BY_BUS_ID = bind("nvmlDeviceGetHandleByPciBusId_v2", PTR, PTR);
        static final DriverCall LINK_STATE = bind("nvmlDeviceGetNvLinkState", PTR, INT, PTR);
        static final DriverCall REMOTE_PCI = bind("nvmlDeviceGetNvLinkRemotePciInfo_v2", PTR, INT, PTR);
        static final DriverCall REMOTE_TYPE = bind("nvmlDeviceGetNvLinkRemoteDeviceType", PTR, INT, PTR);
        static final boolean READY = init();

        /** An NVML function; every nvmlReturn_t is read here (a failure means no answer, not an error). */
        private static DriverCall bind(String symbol, DriverCall.Arg... args) {
            return DriverCall.of(LIB, symbol, args).unchecked();
        }

        private static boolean init() {
            if (!LIB.isLoaded() || !LIB.has("nvmlInit_v2") || !LIB.has("nvmlDeviceGetNvLinkRemotePciInfo_v2")) {
                return false;
            }
            try {
                return INIT.call() == 0;
            } catch (RuntimeException | Error e) {
                return false;
            }
        }
    }

    /** True when NVML could be loaded and initialised. */
    public static boolean isAvailable() {
        return Holder.READY;
    }

    /** Where one GPU's active NVLinks go: remote PCI bus id to link count and the remote's PCI class. */
    public record Target(int count, String pciClass) {
    }

    /**
     * The active NVLinks of the GPU at {@code busId}, grouped by remote PCI bus id (NVML's 8-digit-domain form), with
     * the remote's PCI class as NCCL writes it ({@code 0x030200} GPU, {@code 0x068000} NVSwitch, {@code 0x068001}
     * CPU); empty when NVML is missing or does not know the GPU; an empty map when it has no active NVLink.
     */
    public static Optional<Map<String, Target>> nvlinks(String busId) {
        if (!isAvailable()) {
            return Optional.empty();
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment handle = a.allocate(ADDRESS);
            if (Holder.HANDLE_BY_BUS_ID.call(a.allocateFrom(busId), handle) != 0) {
                return Optional.empty();
            }
            MemorySegment dev = handle.get(ADDRESS, 0);
            MemorySegment state = a.allocate(JAVA_INT);
            MemorySegment type = a.allocate(JAVA_INT);
            MemorySegment pci = a.allocate(PCI_INFO_BYTES, 4);
            Map<String, Integer> counts = new LinkedHashMap<>();
            Map<String, String> classes = new LinkedHashMap<>();
            for (int link = 0; link < MAX_LINKS; link++) {
                if (Holder.LINK_STATE.call(dev, link, state) != 0 || state.get(JAVA_INT, 0) == 0) {
                    continue;
                }
                if (Holder.REMOTE_PCI.call(dev, link, pci) != 0) {
                    continue;
                }
                String remote = pci.asSlice(PCI_INFO_BUS_ID_OFFSET, 32).getString(0);
                int t = Holder.REMOTE_TYPE.call(dev, link, type) == 0 ? type.get(JAVA_INT, 0) : DEVICE_TYPE_GPU;
                counts.merge(remote, 1, Integer::sum);
                classes.putIfAbsent(remote, isHiddenSwitch(remote) ? pciClass(DEVICE_TYPE_SWITCH) : pciClass(t));
            }
            Map<String, Target> out = new LinkedHashMap<>();
            counts.forEach((k, v) -> out.put(k, new Target(v, classes.get(k))));
            return Optional.of(out);
        } catch (RuntimeException | Error e) {
            return Optional.empty();
        }
    }

    /**
     * An all-ones PCI address ({@code ffffffff:ff:ff.0}): the NVSwitch side of links whose switch the host cannot see
     * (a VM, an HGX board), which NCCL's own topology dump of such a machine also shows as an NVSwitch.
     */
    public static boolean isHiddenSwitch(String busId) {
        return busId.toLowerCase(java.util.Locale.ROOT).matches("f+:ff:ff\\.[0-7]");
    }

    public static String pciClass(int deviceType) {
        return switch (deviceType) {
            case DEVICE_TYPE_SWITCH -> "0x068000";
            case DEVICE_TYPE_IBMNPU -> "0x068001";
            default -> "0x030200";
        };
    }
}
