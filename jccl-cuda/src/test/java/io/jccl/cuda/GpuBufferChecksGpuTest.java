package io.jccl.cuda;

import io.jccl.Config;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.Result;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Send and receive device buffers that overlap other than in NCCL's in-place layout are refused for gather, scatter
 * and reduceScatter too (the root's blocks, this rank's block), while those layouts give exact results; copies from
 * the device into a read-only host segment are refused. Needs 2 GPUs, one GPU with
 * {@code -Djccl.cuda.shareDevices=true}, or the CPU emulator.
 */
@Tag("gpu")
@Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class GpuBufferChecksGpuTest {
    private static final int COUNT = 3001;
    private static final long BYTES = 4L * COUNT;
    private static List<GpuCommunicator> comms;
    private static CudaStream[] streams;
    private static DeviceBuffer[] bufs;

    @BeforeAll
    static void open() {
        comms = GpuCommunicator.initAll(GpuCollectivesGpuTest.gpus(2), Config.defaults(),
                GpuCollectivesGpuTest.smallOptions());
        streams = new CudaStream[2];
        bufs = new DeviceBuffer[2];
        for (int r = 0; r < 2; r++) {
            streams[r] = CudaStream.create(comms.get(r).device());
            bufs[r] = DeviceBuffer.allocate(comms.get(r).device(), 4 * BYTES);
        }
    }

    @AfterAll
    static void close() {
        if (comms != null) {
            for (int r = 0; r < 2; r++) {
                streams[r].synchronize();
                bufs[r].close();
                streams[r].close();
            }
            comms.forEach(GpuCommunicator::close);
        }
    }

    private static void refused(ThrowingCallable call, String... says) {
        assertThatThrownBy(call).isInstanceOf(JcclException.class).hasMessageContaining("overlap")
                .hasMessageContaining(String.join("", says))
                .matches(e -> ((JcclException) e).result() == Result.INVALID_ARGUMENT, "INVALID_ARGUMENT");
    }

    @Test
    void partialOverlapsOfTheRootsAndThisRanksBlocksAreRefused() {
        GpuCommunicator g1 = comms.get(1);
        DeviceBuffer b = bufs[1];
        CudaStream s = streams[1];
        // reduceScatter in place is the receive buffer at this rank's block (rank 1: BYTES in), not at the start
        refused(() -> g1.reduceScatter(b.slice(0, 2 * BYTES), b.slice(0, BYTES), COUNT, DataType.FLOAT32,
                RedOp.SUM, s), "the receive buffer must start " + BYTES + " bytes into the send buffer");
        // gather on its root: the send data must be the root's block
        refused(() -> g1.gather(b.slice(0, BYTES), b.slice(0, 2 * BYTES), COUNT, DataType.FLOAT32, 1, s),
                "the send data must start " + BYTES + " bytes into the receive buffer");
        refused(() -> g1.scatter(b.slice(0, 2 * BYTES), b.slice(4, BYTES), COUNT, DataType.FLOAT32, 1, s),
                "the receive buffer must start " + BYTES + " bytes into the send buffer");
        assertThat(g1.asyncError()).isNull();
    }

    @Test
    void theInPlaceLayoutsOfReduceScatterGatherAndScatterGiveExactResults() {
        for (int r = 0; r < 2; r++) {
            float[] in = new float[2 * COUNT];
            for (int i = 0; i < 2 * COUNT; i++) {
                in[i] = r + 1 + i % 5;
            }
            bufs[r].slice(0, 2 * BYTES).copyFrom(MemorySegment.ofArray(in));
        }
        for (int r = 0; r < 2; r++) {
            DeviceBuffer all = bufs[r].slice(0, 2 * BYTES);
            comms.get(r).reduceScatter(all, all.slice(r * BYTES, BYTES), COUNT, DataType.FLOAT32, RedOp.SUM,
                    streams[r]);
        }
        for (int r = 0; r < 2; r++) {
            streams[r].synchronize();
            float[] got = new float[COUNT];
            bufs[r].slice(r * BYTES, BYTES).copyTo(MemorySegment.ofArray(got));
            for (int i = 0; i < COUNT; i++) {
                int k = r * COUNT + i;
                assertThat(got[i]).as("reduceScatter rank %d element %d", r, i).isEqualTo(3 + 2 * (k % 5));
            }
        }
        // gather to root 1 in place: rank 1's send is its own block of the receive buffer; then scatter it back
        for (int r = 0; r < 2; r++) {
            DeviceBuffer all = bufs[r].slice(0, 2 * BYTES);
            DeviceBuffer mine = all.slice(r * BYTES, BYTES);
            comms.get(r).gather(mine, r == 1 ? all : null, COUNT, DataType.FLOAT32, 1, streams[r]);
        }
        streams[0].synchronize();
        streams[1].synchronize();
        float[] gathered = new float[2 * COUNT];
        bufs[1].slice(0, 2 * BYTES).copyTo(MemorySegment.ofArray(gathered));
        for (int i = 0; i < 2 * COUNT; i++) {
            assertThat(gathered[i]).as("gathered element %d", i).isEqualTo(3 + 2 * (i % 5));
        }
        bufs[0].zero();
        for (int r = 0; r < 2; r++) {
            DeviceBuffer all = bufs[r].slice(0, 2 * BYTES);
            comms.get(r).scatter(r == 1 ? all : null, all.slice(r * BYTES, BYTES), COUNT, DataType.FLOAT32, 1,
                    streams[r]);
        }
        streams[0].synchronize();
        streams[1].synchronize();
        float[] scattered = new float[COUNT];
        bufs[0].slice(0, BYTES).copyTo(MemorySegment.ofArray(scattered));
        for (int i = 0; i < COUNT; i++) {
            assertThat(scattered[i]).as("scattered element %d", i).isEqualTo(3 + 2 * (i % 5));
        }
        assertThat(comms.get(0).asyncError()).isNull();
        assertThat(comms.get(1).asyncError()).isNull();
    }

    @Test
    void copiesIntoAReadOnlyHostSegmentAreRefused() {
        DeviceBuffer b = bufs[0];
        MemorySegment heap = MemorySegment.ofArray(new float[16]).asReadOnly();
        MemorySegment pinned = Arena.ofAuto().allocate(64, 64).asReadOnly();
        for (ThrowingCallable c : List.<ThrowingCallable>of(() -> b.copyTo(heap), () -> b.copyTo(pinned),
                () -> b.copyToAsync(pinned, streams[0]))) {
            assertThatThrownBy(c).isInstanceOf(JcclException.class).hasMessageContaining("into a read-only segment")
                    .matches(e -> ((JcclException) e).result() == Result.INVALID_ARGUMENT, "INVALID_ARGUMENT");
        }
        b.copyTo(Arena.ofAuto().allocate(64, 64)); // a writable one is fine
    }
}
