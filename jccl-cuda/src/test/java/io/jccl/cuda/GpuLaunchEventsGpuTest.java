package io.jccl.cuda;

import io.jccl.Config;
import io.jccl.DataType;
import io.jccl.RedOp;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A flight recording of two GPU ranks holds one {@code io.jccl.GpuLaunch} event per kernel launch, naming the call
 * and the kernel the planner chose (as {@link GpuCommunicator#algorithmFor} says). Needs 2 GPUs, one GPU with
 * {@code -Djccl.cuda.shareDevices=true}, or the CPU emulator.
 */
@Tag("gpu")
class GpuLaunchEventsGpuTest {
    @Test
    void everyLaunchIsRecordedWithItsKernel(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("gpu.jfr");
        List<GpuCommunicator> comms = GpuCommunicator.initAll(GpuCollectivesGpuTest.gpus(2), Config.defaults(),
                GpuCollectivesGpuTest.smallOptions());
        String id = comms.get(0).host().id();
        String algorithm = comms.get(0).algorithmFor(io.jccl.Collective.ALL_REDUCE, 1000, DataType.FLOAT32, RedOp.SUM);
        try (Recording r = new Recording()) {
            r.enable("io.jccl.GpuLaunch");
            r.start();
            try (CudaStream s0 = CudaStream.create(comms.get(0).device());
                 CudaStream s1 = CudaStream.create(comms.get(1).device());
                 DeviceBuffer b0 = DeviceBuffer.allocate(comms.get(0).device(), 8000);
                 DeviceBuffer b1 = DeviceBuffer.allocate(comms.get(1).device(), 8000)) {
                List<CudaStream> streams = List.of(s0, s1);
                List<DeviceBuffer> bufs = List.of(b0, b1);
                for (int i = 0; i < 2; i++) {
                    comms.get(i).allReduce(bufs.get(i), bufs.get(i), 1000, DataType.FLOAT32, RedOp.SUM, streams.get(i));
                }
                try (var g = GpuCommunicator.group()) {   // GpuGroup: close() throws no checked exception
                    for (int i = 0; i < 2; i++) {
                        comms.get(i).send(bufs.get(i), 10, DataType.FLOAT32, 1 - i, streams.get(i));
                        comms.get(i).recv(bufs.get(i).slice(4000, 40), 10, DataType.FLOAT32, 1 - i, streams.get(i));
                    }
                }
                for (int i = 0; i < 2; i++) {
                    comms.get(i).gather(bufs.get(i).slice(0, 100), bufs.get(i).slice(4000, 200), 25,
                            DataType.FLOAT32, 1, streams.get(i));
                }
                s0.synchronize();
                s1.synchronize();
            } finally {
                comms.forEach(GpuCommunicator::close);
            }
            r.stop();
            r.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("io.jccl.GpuLaunch"))
                .filter(e -> id.equals(e.getString("commId")))
                .sorted(Comparator.comparingInt((RecordedEvent e) -> e.getInt("rank"))
                        .thenComparingLong(e -> e.getLong("seq"))).toList();
        assertThat(events).extracting(e -> e.getInt("rank") + " " + e.getLong("seq") + " " + e.getString("collective"))
                .containsExactly("0 1 AllReduce", "0 2 SendRecv", "0 3 Gather", "1 1 AllReduce", "1 2 SendRecv",
                        "1 3 Gather");
        RecordedEvent ar = events.getFirst();
        assertThat(ar.getInt("nRanks")).isEqualTo(2);
        assertThat(ar.getLong("count")).isEqualTo(1000);
        assertThat(ar.getString("dataType")).isEqualTo("float");
        assertThat(ar.getLong("bytes")).isEqualTo(4000);
        assertThat(algorithm).startsWith(ar.getString("algorithm") + " x" + ar.getInt("blocks"));
        assertThat(ar.getDuration().toNanos()).isPositive();
        assertThat(events.get(1).getLong("bytes")).as("a send and a receive of 40 bytes").isEqualTo(80);
        assertThat(events.get(1).getString("algorithm")).isEqualTo("p2p");
        assertThat(events.get(2).getInt("root")).isEqualTo(1);
        assertThat(events.get(2).getLong("count")).isEqualTo(25);
    }
}
