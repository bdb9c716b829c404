package io.jccl.cuda;

import io.jccl.Collective;
import io.jccl.Config;
import io.jccl.DataType;
import io.jccl.RedOp;
import io.jccl.cuda.testing.GpuChecker;
import io.jccl.cuda.testing.GpuChecker.Case;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A communicator of one rank has nothing to exchange or combine: every collective is a copy of the input to the
 * output, or nothing in place, with no kernel (NCCL's one-rank path); PreMulSum still scales, in a kernel. Every
 * collective, several types and every reduction, in place and out of place, every element checked; the flight
 * recording shows which calls launched no kernel. Needs a GPU or the CPU emulator.
 */
@Tag("gpu")
class GpuOneRankGpuTest {
    @Test
    void everyCollectiveOnOneRankIsACopyOrNothing(@TempDir Path dir) throws Exception {
        List<GpuCommunicator> comms = GpuCommunicator.initAll(GpuCollectivesGpuTest.gpus(1), Config.defaults(),
                GpuCollectivesGpuTest.smallOptions());
        GpuCommunicator g = comms.getFirst();
        String id = g.host().id();
        assertThat(g.algorithmFor(Collective.ALL_REDUCE, 1000, DataType.FLOAT32, RedOp.SUM)).isEqualTo("copy");
        List<Case> cases = new ArrayList<>();
        for (DataType t : new DataType[] {DataType.FLOAT32, DataType.BFLOAT16, DataType.INT8, DataType.UINT64}) {
            for (Collective coll : GpuCollectivesGpuTest.ALL) {
                for (boolean inPlace : new boolean[] {false, true}) {
                    if (!inPlace || coll != Collective.SEND_RECV && coll != Collective.GATHER
                            && coll != Collective.SCATTER) {
                        cases.add(new Case(coll, t, RedOp.Kind.SUM, 3001, inPlace, 0));
                    }
                }
            }
            for (RedOp.Kind op : RedOp.Kind.values()) {
                cases.add(new Case(Collective.ALL_REDUCE, t, op, 777, false, 0));
            }
        }
        Path file = dir.resolve("one.jfr");
        try (Recording r = new Recording()) {
            r.enable("io.jccl.GpuLaunch");
            r.start();
            try (GpuChecker checker = new GpuChecker(comms, 1 << 16, GpuCollectivesGpuTest.TIMEOUT)) {
                assertThat(GpuCollectivesGpuTest.runAll(checker, cases)).isEmpty();
            } finally {
                comms.forEach(GpuCommunicator::close);
            }
            r.stop();
            r.dump(file);
        }
        List<RecordedEvent> launches = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("io.jccl.GpuLaunch"))
                .filter(e -> id.equals(e.getString("commId"))).toList();
        assertThat(launches).filteredOn(e -> "AllReduce".equals(e.getString("collective")))
                .extracting(e -> e.getString("algorithm") + " " + e.getInt("blocks"))
                .hasSize(4 * (2 + RedOp.Kind.values().length))
                .filteredOn(a -> !a.equals("copy 0")).hasSize(4);   // PreMulSum, once per type
        assertThat(launches).filteredOn(e -> "AllGather".equals(e.getString("collective")))
                .extracting(e -> e.getString("algorithm") + " " + e.getInt("blocks")).containsOnly("copy 0");
    }
}
