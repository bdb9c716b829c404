package io.jccl.cuda;

import io.jccl.Collective;
import io.jccl.Config;
import io.jccl.DataType;
import io.jccl.RedOp;
import io.jccl.cuda.internal.comm.CudaGpuProbe;
import io.jccl.cuda.testing.GpuChecker;
import io.jccl.cuda.testing.RingGraphFile;
import io.jccl.cuda.testing.GpuChecker.Case;
import io.jccl.internal.topology.discovery.GpuInfo;
import io.jccl.internal.topology.xml.PciInfo;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Ring kernels on rings that do not visit the ranks in order: NCCL_GRAPH_FILE gives 4 GPUs the rings 0 2 1 3 and
 * 0 3 1 2 (channels alternate between them), and every ring collective, every root, in and out of place, must still
 * be exact. Skipped without 4 GPUs (the CPU emulator has them with JCCL_EMU_DEVICES=4, which ./jccl test sets).
 */
@Tag("gpu")
class GpuRingsGpuTest {
    @Test
    void topologyProbeSeesEveryGpuAndItsNvlinks() {
        assumeTrue(CudaDevice.isAvailable(), "no GPU");
        List<GpuInfo> gpus = new CudaGpuProbe().gpus();
        assertThat(gpus).hasSize(CudaDevice.count());
        for (int i = 0; i < gpus.size(); i++) {
            CudaDevice d = CudaDevice.get(i);
            assertThat(gpus.get(i).busId()).isEqualTo(PciInfo.normalize(d.pciBusId()));
            assertThat(gpus.get(i).sm()).isEqualTo(d.computeCapability());
            for (int j = 0; j < gpus.size(); j++) {
                String peer = PciInfo.normalize(CudaDevice.get(j).pciBusId());
                boolean listed = gpus.get(i).nvlinks().stream().anyMatch(l -> l.targetBusId().equals(peer)
                        && l.count() >= 1);
                boolean viaSwitch = gpus.get(i).nvlinks().stream().anyMatch(l -> l.targetClass().equals("0x068000"));
                if (i != j && d.nativeAtomicsWith(CudaDevice.get(j)) && !viaSwitch) {
                    assertThat(listed).as("GPU %d lists its NVLinks to GPU %d: %s", i, j, gpus.get(i)).isTrue();
                }
            }
        }
    }

    @Test
    void ringCollectivesAreExactOnRingsFromAGraphFile(@TempDir Path dir) throws IOException {
        assumeTrue(CudaDevice.isAvailable() && CudaDevice.count() >= 4, "needs 4 GPUs");
        Path graph = RingGraphFile.write(dir, new int[]{0, 2, 1, 3}, new int[]{0, 3, 1, 2});
        List<CudaDevice> gpus = List.of(CudaDevice.get(0), CudaDevice.get(1), CudaDevice.get(2), CudaDevice.get(3));
        GpuOptions o = GpuCollectivesGpuTest.smallOptions().withAlgorithm(AllReduceAlgorithm.RING);
        List<GpuCommunicator> comms;
        System.setProperty("NCCL_GRAPH_FILE", graph.toString());
        try {
            comms = GpuCommunicator.initAll(gpus, Config.defaults(), o);
        } finally {
            System.clearProperty("NCCL_GRAPH_FILE");
        }
        try (GpuChecker c = new GpuChecker(comms, 1 << 20, GpuCollectivesGpuTest.TIMEOUT)) {
            for (GpuCommunicator g : comms) {
                assertThat(g.rings()).isEqualTo(new int[][]{{0, 2, 1, 3}, {0, 3, 1, 2}});
            }
            List<Case> cases = new ArrayList<>();
            Collective[] ring = {Collective.ALL_REDUCE, Collective.REDUCE_SCATTER, Collective.ALL_GATHER,
                Collective.BROADCAST, Collective.REDUCE};
            for (Collective coll : ring) {
                for (long count : new long[]{3001, 60001}) {
                    for (int root = 0; root < (coll.rooted() ? 4 : 1); root++) {
                        cases.add(new Case(coll, DataType.FLOAT32, RedOp.Kind.SUM, count, false, root));
                        cases.add(new Case(coll, DataType.INT32, RedOp.Kind.MAX, count, true, root));
                    }
                }
            }
            assertThat(comms.getFirst().algorithmFor(Collective.ALL_REDUCE, 20011, DataType.FLOAT32, RedOp.SUM))
                    .startsWith(AllReduceAlgorithm.RING.shortName()).endsWith(" rings 0 2 1 3 | 0 3 1 2");
            assertThat(GpuCollectivesGpuTest.runAll(c, cases)).isEmpty();
        } finally {
            comms.forEach(GpuCommunicator::close);
        }
    }
}
