package io.jccl.cuda;

import io.jccl.Config;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.Result;
import io.jccl.cuda.internal.driver.CuMemory;
import io.jccl.cuda.internal.driver.CuStreams;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Memory and streams another library made (here: made straight through the driver, as cudaMalloc and
 * cudaStreamCreate would), used through {@link DeviceBuffer#wrap} and {@link CudaStream#wrap}: collectives run on
 * them, closing the wrappers frees and destroys nothing, and what is not this GPU's device memory, or a stream of
 * another context, is refused with a message saying what it is. Needs 2 GPUs, one GPU with
 * {@code -Djccl.cuda.shareDevices=true}, or the CPU emulator.
 */
@Tag("gpu")
class GpuInteropGpuTest {
    private static final int COUNT = 12_000;
    private static final long BYTES = 4L * COUNT;
    /** Floats of an allReduce the pull kernels take under withPull(smallOptions()) (16 to 32 KiB). */
    private static final int PULL_COUNT = 6000;
    /** The wrapped range starts this far into the foreign allocation, as a tensor view's data pointer may. */
    private static final long OFFSET = 4096;

    /** A foreign allocation and stream of one rank, made and released straight through the driver. */
    private record Foreign(CudaDevice device, long base, MemorySegment stream) implements AutoCloseable {
        static Foreign on(CudaDevice device) {
            device.makeCurrent();
            return new Foreign(device, CuMemory.alloc(OFFSET + BYTES),
                    CuStreams.createStream(CuStreams.STREAM_NON_BLOCKING, 0));
        }

        DeviceBuffer buffer() {
            return DeviceBuffer.wrap(device, base + OFFSET, BYTES);
        }

        /** Frees and destroys through the driver: fails if a wrapper's close already did. */
        @Override
        public void close() {
            device.makeCurrent();
            CuStreams.synchronizeStream(stream);
            CuStreams.destroyStream(stream);
            CuMemory.free(base);
        }
    }

    /** Memory of the device's default pool (cudaMallocAsync's), allocated and returned on {@code stream}. */
    private record Pooled(CudaStream stream, long address) implements AutoCloseable {
        static Pooled allocate(CudaStream stream, long bytes) {
            stream.device().makeCurrent();
            long address = CuMemory.allocAsync(bytes, stream.handle());
            stream.synchronize();
            return new Pooled(stream, address);
        }

        @Override
        public void close() {
            stream.device().makeCurrent();
            CuMemory.freeAsync(address, stream.handle());
            stream.synchronize();
        }
    }

    @Test
    void collectivesRunOnAnotherLibrarysMemoryAndStreams() {
        List<GpuCommunicator> comms = GpuCommunicator.initAll(GpuCollectivesGpuTest.gpus(2), Config.defaults(),
                GpuCollectivesGpuTest.smallOptions());
        try (Foreign f0 = Foreign.on(comms.get(0).device()); Foreign f1 = Foreign.on(comms.get(1).device())) {
            List<Foreign> foreign = List.of(f0, f1);
            for (int r = 0; r < 2; r++) {
                try (DeviceBuffer b = foreign.get(r).buffer()) {
                    assertThat(b.grantedAccessOnly()).as("cuMemAlloc's memory is reached by peer access").isFalse();
                    b.copyFrom(MemorySegment.ofArray(values(r)));
                }
            }
            for (int call = 0; call < 3; call++) {       // a new wrapper of the same stream and memory per call
                try (var g = GpuCommunicator.group()) {
                    for (int r = 0; r < 2; r++) {
                        Foreign f = foreign.get(r);
                        try (DeviceBuffer b = f.buffer();
                             CudaStream s = CudaStream.wrap(f.device(), f.stream().address())) {
                            assertThat(s.isBorrowed()).isTrue();
                            comms.get(r).allReduce(b, b, COUNT, DataType.FLOAT32, RedOp.SUM, s);
                        }
                    }
                }
            }
            for (int r = 0; r < 2; r++) {
                Foreign f = foreign.get(r);
                f.device().makeCurrent();
                CuStreams.synchronizeStream(f.stream());
                assertThat(comms.get(r).asyncError()).isNull();
                float[] got = new float[COUNT];
                try (DeviceBuffer b = f.buffer()) {
                    b.copyTo(MemorySegment.ofArray(got));
                }
                for (int i = 0; i < COUNT; i++) {
                    // three in-place sums of two ranks: (v0 + v1) * 2 * 2
                    float want = (values(0)[i] + values(1)[i]) * 4;
                    assertThat(got[i]).as("rank %d element %d", r, i).isEqualTo(want);
                }
            }
        } finally {
            comms.forEach(GpuCommunicator::close);
        }
    }

    /** Rank 0 queues on the device's legacy default stream (handle 0), rank 1 on a foreign non-blocking stream. */
    @Test
    void theLegacyDefaultStreamCarriesCollectives() {
        List<GpuCommunicator> comms = GpuCommunicator.initAll(GpuCollectivesGpuTest.gpus(2), Config.defaults(),
                GpuCollectivesGpuTest.smallOptions());
        try (Foreign f1 = Foreign.on(comms.get(1).device());
             DeviceBuffer b0 = DeviceBuffer.allocate(comms.get(0).device(), BYTES);
             DeviceBuffer b1 = f1.buffer();
             CudaStream legacy = CudaStream.wrap(comms.get(0).device(), 0);
             CudaStream s1 = CudaStream.wrap(f1.device(), f1.stream())) {
            b0.copyFrom(MemorySegment.ofArray(values(0)));
            b1.copyFrom(MemorySegment.ofArray(values(1)));
            comms.get(0).broadcast(b0, b0, COUNT, DataType.FLOAT32, 1, legacy);
            comms.get(1).broadcast(b1, b1, COUNT, DataType.FLOAT32, 1, s1);
            legacy.synchronize();
            s1.synchronize();
            assertThat(comms.get(0).asyncError()).isNull();
            float[] got = new float[COUNT];
            b0.copyTo(MemorySegment.ofArray(got));
            assertThat(got).containsExactly(values(1));
            assertThat(legacy).hasToString("CudaStream[device " + comms.get(0).device().ordinal() + ", 0x0, borrowed]");
        } finally {
            comms.forEach(GpuCommunicator::close);
        }
    }

    /**
     * Memory of the default pool (cudaMallocAsync's) is wrapped as memory that other GPUs reach only where granted,
     * and carries collectives whose kernels read it from its own GPU only (here a size below the pull kernels').
     */
    @Test
    void poolMemoryCarriesCollectivesThatReadItFromItsOwnGpu() {
        List<GpuCommunicator> comms = GpuCommunicator.initAll(GpuCollectivesGpuTest.gpus(2), Config.defaults(),
                GpuCollectivesGpuTest.smallOptions());
        try (CudaStream s0 = CudaStream.create(comms.get(0).device());
             CudaStream s1 = CudaStream.create(comms.get(1).device());
             DeviceBuffer b1 = DeviceBuffer.allocate(comms.get(1).device(), 1024);
             Pooled pooled = Pooled.allocate(s0, 1024)) {
            try (DeviceBuffer b0 = DeviceBuffer.wrap(comms.get(0).device(), pooled.address(), 1024)) {
                assertThat(b0.grantedAccessOnly()).isTrue();
                assertThat(comms.get(0).algorithmFor(io.jccl.Collective.ALL_REDUCE, 256, DataType.FLOAT32, RedOp.SUM))
                        .doesNotContain("oneshot").doesNotContain("twoshot");
                float[] ones = new float[256];
                java.util.Arrays.fill(ones, 1f);
                b0.copyFrom(MemorySegment.ofArray(ones));
                b1.copyFrom(MemorySegment.ofArray(ones));
                comms.get(0).allReduce(b0, b0, 256, DataType.FLOAT32, RedOp.SUM, s0);
                comms.get(1).allReduce(b1, b1, 256, DataType.FLOAT32, RedOp.SUM, s1);
                s0.synchronize();
                s1.synchronize();
                float[] got = new float[256];
                b0.copyTo(MemorySegment.ofArray(got));
                assertThat(got).containsOnly(2f);
            }
        } finally {
            comms.forEach(GpuCommunicator::close);
        }
    }

    /**
     * Where the allReduce kernel would read and write pool memory from the other GPU, which the pool never granted
     * access, the call is refused before launch, naming that GPU, and every rank stops with that cause (no GPU
     * fault, no wait for the timeout).
     */
    @Test
    void poolMemoryAnotherGpuCannotReachIsRefusedWhereThatGpuWouldReadIt() {
        assumeTrue(CudaDevice.isAvailable() && CudaDevice.count() >= 2, "needs 2 GPUs");
        List<GpuCommunicator> comms = GpuCommunicator.initAll(List.of(CudaDevice.get(0), CudaDevice.get(1)),
                Config.defaults(), GpuCollectivesGpuTest.withPull(GpuCollectivesGpuTest.smallOptions()));
        try (CudaStream s0 = CudaStream.create(comms.get(0).device()); Pooled pooled = Pooled.allocate(s0, BYTES)) {
            assertThat(comms.get(0).algorithmFor(io.jccl.Collective.ALL_REDUCE, PULL_COUNT, DataType.FLOAT32, RedOp.SUM))
                    .containsAnyOf("oneshot", "twoshot");
            try (DeviceBuffer b0 = DeviceBuffer.wrap(comms.get(0).device(), pooled.address(), BYTES)) {
                assertRefused(() -> comms.get(0).allReduce(b0, b0, PULL_COUNT, DataType.FLOAT32, RedOp.SUM, s0),
                        "is not readable and writable from GPU 1");
                assertThat(comms.get(1).asyncError()).as("rank 1 stopped with rank 0's cause").isNotNull()
                        .hasMessageContaining("is not readable and writable from GPU 1");
            }
        } finally {
            comms.forEach(GpuCommunicator::close);
        }
    }

    @Test
    void whatIsNotThisGpusDeviceMemoryIsRefusedWithWhatItIs() {
        CudaDevice dev = GpuCollectivesGpuTest.gpus(1).get(0);
        try (Arena arena = Arena.ofConfined(); PinnedBuffer pinned = PinnedBuffer.allocate(dev, 4096);
             DeviceBuffer mine = DeviceBuffer.allocate(dev, 4096)) {
            long heapLike = arena.allocate(4096).address();
            assertRefused(() -> DeviceBuffer.wrap(dev, heapLike, 64), "the CUDA driver does not know this address");
            assertRefused(() -> DeviceBuffer.wrap(dev, pinned.segment().address(), 64), "it is host memory");
            assertRefused(() -> DeviceBuffer.wrap(dev, mine.address() + 1024, 64L << 20),
                    "runs past the end of its allocation");
            assertRefused(() -> DeviceBuffer.wrap(dev, 0, 64), "the address is null");
            assertRefused(() -> DeviceBuffer.wrap(dev, mine.address(), -1), "the size must be >= 0");
            try (DeviceBuffer inside = DeviceBuffer.wrap(dev, mine.address() + 1024, 3072)) {
                assertThat(inside.address()).isEqualTo(mine.address() + 1024);
                assertThat(inside.toString()).endsWith("3072 bytes, borrowed]");
                assertThatThrownBy(inside::exportIpcHandle).isInstanceOf(JcclException.class)
                        .hasMessageContaining("this one is a borrowed");
            }
            mine.zero();   // closing the wrapper did not free the memory
        }
    }

    @Test
    void memoryAndStreamsOfAnotherGpuAreRefusedNamingIt() {
        assumeTrue(CudaDevice.isAvailable() && CudaDevice.count() >= 2, "needs 2 GPUs");
        CudaDevice d0 = CudaDevice.get(0);
        CudaDevice d1 = CudaDevice.get(1);
        try (DeviceBuffer other = DeviceBuffer.allocate(d1, 4096); CudaStream otherStream = CudaStream.create(d1)) {
            assertRefused(() -> DeviceBuffer.wrap(d0, other.address(), 4096), "it is memory of GPU 1");
            assertRefused(() -> CudaStream.wrap(d0, otherStream.handle()),
                    "belongs to GPU 1's primary context, not to GPU 0's primary context");
            try (CudaStream same = CudaStream.wrap(d1, otherStream.handle())) {
                assertThat(same).isEqualTo(otherStream).hasSameHashCodeAs(otherStream);
            }
            assertThat(otherStream.isIdle()).isTrue();   // closing the wrapper destroyed nothing
        }
    }

    private static void assertRefused(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String says) {
        assertThatThrownBy(call).isInstanceOf(JcclException.class).hasMessageContaining(says)
                .matches(e -> ((JcclException) e).result() == Result.INVALID_ARGUMENT, "INVALID_ARGUMENT");
    }

    private static float[] values(int rank) {
        float[] v = new float[COUNT];
        for (int i = 0; i < COUNT; i++) {
            v[i] = (i % 97) * 0.5f + rank * 3;
        }
        return v;
    }
}
