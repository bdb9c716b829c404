package io.jccl.cuda;

import io.jccl.Config;
import io.jccl.DataType;
import io.jccl.RedOp;
import io.jccl.internal.ras.RasServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The status answer ({@code ./jccl ras}) shows a GPU communicator's calls: while rank 0's allReduce waits for rank 1,
 * it names the call and rank 1 as the rank that has not launched it; a send not yet received is listed; once every
 * rank has made its calls neither is. Needs 2 GPUs, one GPU with {@code -Djccl.cuda.shareDevices=true}, or the CPU
 * emulator.
 */
@Tag("gpu")
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class GpuStatusGpuTest {
    @Test
    void theStatusAnswerNamesTheGpuCallARankHasNotLaunched() {
        List<GpuCommunicator> comms = GpuCommunicator.initAll(GpuCollectivesGpuTest.gpus(2), Config.defaults(),
                GpuCollectivesGpuTest.smallOptions());
        try (CudaStream s0 = CudaStream.create(comms.get(0).device());
             CudaStream s1 = CudaStream.create(comms.get(1).device());
             DeviceBuffer b0 = DeviceBuffer.allocate(comms.get(0).device(), 4000);
             DeviceBuffer b1 = DeviceBuffer.allocate(comms.get(1).device(), 4000)) {
            String id = comms.get(0).host().id();
            comms.get(0).allReduce(b0, b0, 1000, DataType.FLOAT32, RedOp.SUM, s0);
            String waiting = section(id);
            assertThat(waiting).contains("2 ranks, seen from rank 0", "healthy")
                    .containsPattern("\\n  0 +1 +AllReduce\\(count 1000 float sum\\)\\n")
                    .containsPattern("\\n  1 +0 +-\\n")
                    .contains("collective call 1, AllReduce(count 1000 float sum): not yet launched by rank(s) 1 ");
            comms.get(1).allReduce(b1, b1, 1000, DataType.FLOAT32, RedOp.SUM, s1);
            comms.get(0).send(b0, 100, DataType.FLOAT32, 1, s0);
            String sending = section(id);
            assertThat(sending).doesNotContain("not yet launched")
                    .contains("  rank 0 to rank 1: 1 send(s), 0 receive(s)");
            comms.get(1).recv(b1, 100, DataType.FLOAT32, 0, s1);
            s0.synchronize();
            s1.synchronize();
            String done = section(id);
            assertThat(done).doesNotContain("not yet launched").doesNotContain("send(s)")
                    .containsPattern("\\n  1 +1 +AllReduce\\(count 1000 float sum\\)\\n");
            assertThat(comms.get(0).asyncError()).isNull();
        } finally {
            comms.forEach(GpuCommunicator::close);
        }
        assertThat(RasServer.answer(RasServer.Command.STATUS)).as("closed: the section is gone")
                .doesNotContain("GPU communicator " + comms.get(0).host().id());
    }

    /** With NCCL_DEBUG=INFO each rank logs NCCL's "Init COMPLETE" line, with the allReduce kernels by size. */
    @Test
    void eachRankLogsInitCompleteWithItsKernelsBySize() {
        java.util.List<String> infos = new java.util.concurrent.CopyOnWriteArrayList<>();
        io.jccl.internal.debug.LogSink previous = io.jccl.internal.debug.Log.useSink((level, subsys, rank, message) -> {
            if (subsys == io.jccl.internal.debug.Subsys.INIT) {
                infos.add(message);
            }
        });
        io.jccl.internal.debug.Log.set(io.jccl.internal.debug.Log.Level.INFO, "INIT");
        List<GpuCommunicator> comms;
        try {
            comms = GpuCommunicator.initAll(GpuCollectivesGpuTest.gpus(2), Config.defaults(),
                    GpuCollectivesGpuTest.smallOptions());
        } finally {
            io.jccl.internal.debug.Log.useSink(previous);
            io.jccl.internal.debug.Log.reconfigure();
        }
        try {
            for (GpuCommunicator g : comms) {
                String ranges = g.algorithmFor(io.jccl.Collective.ALL_REDUCE, 1, DataType.FLOAT32, RedOp.SUM)
                        .split(" ")[0];
                assertThat(infos).as("rank %d", g.rank()).anySatisfy(m -> assertThat(m)
                        .startsWith(g.toString() + ": init COMPLETE (communicator " + g.host().id() + "; every buffer"
                                + " addressable").contains("allReduce: " + ranges + " to "));
            }
        } finally {
            comms.forEach(GpuCommunicator::close);
        }
    }

    /** This communicator's section of the status answer. */
    private static String section(String id) {
        String all = RasServer.answer(RasServer.Command.STATUS);
        int at = all.indexOf("GPU communicator " + id);
        assertThat(at).as(all).isNotNegative();
        int end = all.indexOf("\nGPU communicator ", at + 1);
        return all.substring(at, end < 0 ? all.length() : end);
    }
}
