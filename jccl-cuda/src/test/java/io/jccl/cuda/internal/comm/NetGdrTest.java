package io.jccl.cuda.internal.comm;

import io.jccl.internal.topology.PathType;
import io.jccl.net.NetProperties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** NCCL's GPUDirect RDMA decision ({@link NetGdr}) for each input, with the reasons the init log prints. */
class NetGdrTest {
    private static final int HOST = NetProperties.PTR_HOST;
    private static final int CUDA = NetProperties.PTR_HOST | NetProperties.PTR_CUDA;

    private static NetGdr decide(int ptr, PathType distance, PathType level, String checksum, int read, int cc,
                                 boolean addressable) {
        return NetGdr.decide("NET/Test", ptr, distance, level, checksum, read, cc, () -> addressable);
    }

    @Test
    void aPluginWithoutCudaPointersKeepsHostMemory() {
        NetGdr g = decide(HOST, PathType.PIX, PathType.SYS, "off", 1, 90, true);
        assertThat(g.recv()).isFalse();
        assertThat(g.send()).isFalse();
        assertThat(g.line("0000:01:00.0", "NET/Socket", 0)).isEqualTo("GPU Direct RDMA Disabled for GPU 0000:01:00.0"
                + " / NET/Socket/0 (NET/Test registers host memory only (ptrSupport HOST))");
        assertThat(decide(0, PathType.PIX, PathType.SYS, "off", 1, 90, true).detail()).contains("ptrSupport none");
    }

    @Test
    void checksumsOnNeedHostMemory() {
        NetGdr g = decide(CUDA, PathType.PIX, PathType.PXB, "on", 1, 90, true);
        assertThat(g.recv()).isFalse();
        assertThat(g.detail()).startsWith("JCCL_NET_CHECKSUM=on").contains("needs host memory");
        // auto and off leave GDR on (auto: the GDR receive links then go without the checksum)
        assertThat(decide(CUDA, PathType.PIX, PathType.PXB, "auto", 1, 90, true).recv()).isTrue();
        assertThat(decide(CUDA, PathType.PIX, PathType.PXB, "off", 1, 90, true).recv()).isTrue();
    }

    @ParameterizedTest(name = "distance {0}, NCCL_NET_GDR_LEVEL {1}: {2}")
    @CsvSource({"PIX, PIX, true", "PXB, PIX, false", "PXB, PXB, true", "PHB, PXB, false", "PHB, PHB, true",
        "SYS, PHB, false", "SYS, SYS, true", "PIX, LOC, false"})
    void theDistanceMustBeWithinTheLevel(PathType distance, PathType level, boolean on) {
        NetGdr g = decide(CUDA, distance, level, "auto", 1, 90, true);
        assertThat(g.recv()).isEqualTo(on);
        assertThat(g.detail()).isEqualTo("distance " + distance + (on ? " <= " : " > ") + level
                + (on ? "" : " (NCCL_NET_GDR_LEVEL)"));
        assertThat(g.line("0000:01:00.0", "NET/IB", 1)).startsWith("GPU Direct RDMA " + (on ? "Enabled" : "Disabled")
                + " for GPU 0000:01:00.0 / NET/IB/1 (distance " + distance);
    }

    @Test
    void theLevelParsesAsNccl() {
        // NCCL_NET_GDR_LEVEL's old numbers: 0 LOC, 1 PIX, 2 PXB, 3 PHB, 4 and more SYS
        assertThat(List.of("0", "1", "2", "3", "4", "7", "phb").stream()
                .map(v -> PathType.parseLevel("NCCL_NET_GDR_LEVEL", v)).toList())
                .containsExactly(PathType.LOC, PathType.PIX, PathType.PXB, PathType.PHB, PathType.SYS, PathType.SYS,
                        PathType.PHB);
    }

    @Test
    void aNicWithoutPciPathSitsOnTheCpu() {
        NetGdr pxb = decide(CUDA, null, PathType.PXB, "auto", 1, 90, true);
        assertThat(pxb.recv()).isFalse();
        assertThat(pxb.detail()).isEqualTo("distance PHB assumed, no PCI path for both > PXB (NCCL_NET_GDR_LEVEL)");
        assertThat(decide(CUDA, null, PathType.PHB, "auto", 1, 90, true).recv()).isTrue();
    }

    @Test
    void deviceMemoryWithoutCpuAddressKeepsGdrOffAndIsAskedLast() {
        NetGdr g = decide(CUDA, PathType.PIX, PathType.PXB, "off", 1, 90, false);
        assertThat(g.recv()).isFalse();
        assertThat(g.detail()).contains("device memory has no CPU address");
        AtomicInteger asked = new AtomicInteger();
        NetGdr.decide("NET/Test", HOST, PathType.PIX, PathType.PXB, "off", 1, 90, () -> asked.incrementAndGet() > 0);
        NetGdr.decide("NET/Test", CUDA, PathType.SYS, PathType.PXB, "off", 1, 90, () -> asked.incrementAndGet() > 0);
        NetGdr.decide("NET/Test", CUDA, PathType.PIX, PathType.PXB, "on", 1, 90, () -> asked.incrementAndGet() > 0);
        assertThat(asked).as("no probe allocation once another rule said no").hasValue(0);
    }

    @ParameterizedTest(name = "NCCL_NET_GDR_READ {0}, sm_{1}: read {2}")
    @CsvSource({"1, 70, true", "0, 90, false", "-2, 80, true", "-2, 90, true", "-2, 75, false", "-1, 70, false"})
    void gdrReadDecidesTheSendSide(int read, int cc, boolean send) {
        NetGdr g = decide(CUDA, PathType.PIX, PathType.PXB, "auto", read, cc, true);
        assertThat(g.recv()).isTrue();
        assertThat(g.send()).isEqualTo(send);
        assertThat(g.line("b", "NET/IB", 0)).endsWith("(distance PIX <= PXB), read " + (send ? 1 : 0));
    }

    @Test
    void pciDistanceFromTheSysfsTree() {
        List<String> gpu = List.of("pci0000:00", "0000:00:01.0", "0000:01:00.0", "0000:02:08.0", "0000:03:00.0");
        // the same bridge
        assertThat(PciDistance.between(gpu, List.of("pci0000:00", "0000:00:01.0", "0000:01:00.0", "0000:02:08.0",
                "0000:03:00.1"), 0, 0)).isEqualTo(PathType.PIX);
        // another port of the same switch
        assertThat(PciDistance.between(gpu, List.of("pci0000:00", "0000:00:01.0", "0000:01:00.0", "0000:02:10.0",
                "0000:04:00.0"), 0, 0)).isEqualTo(PathType.PXB);
        // only the root complex in common, another root complex on the same CPU, another CPU
        assertThat(PciDistance.between(gpu, List.of("pci0000:00", "0000:00:02.0", "0000:05:00.0"), 0, 0))
                .isEqualTo(PathType.PHB);
        assertThat(PciDistance.between(gpu, List.of("pci0000:80", "0000:80:02.0", "0000:81:00.0"), 0, 0))
                .isEqualTo(PathType.PHB);
        assertThat(PciDistance.between(gpu, List.of("pci0000:80", "0000:80:02.0", "0000:81:00.0"), 0, 1))
                .isEqualTo(PathType.SYS);
        assertThat(PciDistance.of("0000:01:00.0", null)).isNull();
        assertThat(PciDistance.of("ffff:ff:1f.7", "/no/such/device")).isNull();
    }
}
