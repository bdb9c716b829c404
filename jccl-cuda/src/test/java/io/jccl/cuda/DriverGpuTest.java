package io.jccl.cuda;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.cuda.internal.driver.CuMemory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The driver bindings on a real GPU. Skipped where no NVIDIA GPU is visible. */
@Tag("gpu")
class DriverGpuTest {
    private static CudaDevice dev;

    @BeforeAll
    static void needGpu() {
        assumeTrue(CudaDevice.isAvailable(), "no NVIDIA GPU");
        dev = CudaDevice.get(0);
    }

    @Test
    void devicesDescribeThemselves() {
        assertThat(CudaDevice.driverVersion()).isGreaterThanOrEqualTo(12000);
        assertThat(dev.name()).isNotBlank();
        assertThat(dev.pciBusId()).matches("[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\\.[0-9A-Fa-f]");
        assertThat(dev.computeCapability()).isGreaterThanOrEqualTo(70);
        assertThat(dev.multiprocessorCount()).isPositive();
        assertThat(dev.totalMemoryBytes()).isGreaterThan(dev.freeMemoryBytes() / 2);
        assertThat(CudaDevice.get(0)).isSameAs(dev);
        assertThatThrownBy(() -> CudaDevice.get(CudaDevice.count())).isInstanceOf(JcclException.class)
                .matches(e -> ((JcclException) e).result() == Result.INVALID_ARGUMENT);
    }

    /**
     * What one-process-per-GPU communicators share their abort area through: a shared-memory file's page registered
     * with CUDA. The GPU's writes through the registered mapping are seen through a second mapping of the file, as
     * another process sees them.
     */
    @Test
    void aSharedMemoryFileRegisteredWithCudaIsWrittenByTheGpuAndSeenThroughAnotherMapping() {
        String name = io.jccl.internal.transport.shm.ShmFiles.PREFIX + "test-register-" + ProcessHandle.current().pid();
        try (Arena a = Arena.ofShared(); Arena b = Arena.ofShared(); CudaStream s = CudaStream.create(dev)) {
            MemorySegment mine = io.jccl.internal.transport.shm.ShmFiles.create(name, 8192, a);
            MemorySegment theirs = io.jccl.internal.transport.shm.ShmFiles.attach(name, 8192, b);
            MemorySegment page = mine.asSlice(0, 4096);
            dev.makeCurrent();
            CuMemory.hostRegister(page, CuMemory.HOST_ALLOC_PORTABLE | CuMemory.HOST_ALLOC_DEVICEMAP);
            try {
                long dptr = CuMemory.hostDevicePointer(page);
                CuMemory.memsetD32Async(dptr + 64, 0x5eed1234, 16, s.handle());
                s.synchronize();
                for (int i = 0; i < 16; i++) {
                    assertThat(theirs.get(JAVA_INT, 64 + 4L * i)).isEqualTo(0x5eed1234);
                }
                assertThat(theirs.get(JAVA_INT, 60)).isZero();
                assertThat(theirs.get(JAVA_INT, 128)).isZero();
            } finally {
                CuMemory.hostUnregister(page);
            }
        } finally {
            io.jccl.internal.transport.shm.ShmFiles.unlink(name);
        }
    }

    @Test
    void copiesRoundTripThroughDeviceMemory() {
        int n = (1 << 20) + 12;
        byte[] data = new byte[n];
        for (int i = 0; i < n; i++) {
            data[i] = (byte) (i * 31 + 7);
        }
        try (DeviceBuffer b = DeviceBuffer.allocate(dev, n); DeviceBuffer c = DeviceBuffer.allocate(dev, n);
             CudaStream s = CudaStream.create(dev); PinnedBuffer pin = PinnedBuffer.allocate(dev, n)) {
            b.copyFrom(MemorySegment.ofArray(data));
            c.copyFromAsync(b, n, s);
            c.copyToAsync(pin.segment(), s);
            s.synchronize();
            assertThat(pin.segment().toArray(JAVA_BYTE)).isEqualTo(data);
            byte[] back = new byte[100];
            b.slice(1000, 100).copyTo(MemorySegment.ofArray(back));
            assertThat(back).isEqualTo(java.util.Arrays.copyOfRange(data, 1000, 1100));
        }
    }

    @Test
    void memsetAndEventTiming() {
        long n = 256L << 20;
        try (DeviceBuffer b = DeviceBuffer.allocate(dev, n); CudaStream s = CudaStream.create(dev);
             CudaEvent start = CudaEvent.create(dev, true); CudaEvent end = CudaEvent.create(dev, true)) {
            start.record(s);
            b.fillAsync((byte) 0x5A, s);
            end.record(s);
            end.synchronize();
            assertThat(end.isDone()).isTrue();
            assertThat(CudaEvent.elapsedMillis(start, end)).isPositive();
            byte[] tail = new byte[64];
            b.slice(n - 64, 64).copyTo(MemorySegment.ofArray(tail));
            for (byte x : tail) {
                assertThat(x).isEqualTo((byte) 0x5A);
            }
        }
    }

    @Test
    void pointerAttributesDescribeAllocations() {
        try (DeviceBuffer b = DeviceBuffer.allocate(dev, 1 << 20)) {
            dev.makeCurrent();
            assertThat(CuMemory.pointerAttribute(CuMemory.POINTER_DEVICE_ORDINAL, b.address() + 100)).isEqualTo(dev.ordinal());
            assertThat(CuMemory.pointerAttribute(CuMemory.POINTER_RANGE_START_ADDR, b.address() + 100)).isEqualTo(b.address());
            assertThat(CuMemory.pointerAttribute(CuMemory.POINTER_RANGE_SIZE, b.address())).isGreaterThanOrEqualTo(1 << 20);
            assertThat(CuMemory.pointerAttribute(CuMemory.POINTER_MEMORY_TYPE, b.address())).isEqualTo(CuMemory.MEMORYTYPE_DEVICE);
        }
    }

    @Test
    void ipcHandlesExportButCannotBeOpenedInTheExportingProcess() {
        try (DeviceBuffer b = DeviceBuffer.allocate(dev, 2 << 20)) {
            byte[] h = b.exportIpcHandle();
            assertThat(h).hasSize(64);
            assertThat(h).isNotEqualTo(new byte[64]);
            assertThatThrownBy(() -> DeviceBuffer.openIpcHandle(dev, h, 2 << 20)).isInstanceOf(JcclException.class)
                    .hasMessageContaining("cuIpcOpenMemHandle_v2").hasMessageContaining("CUDA_ERROR_")
                    .matches(e -> ((JcclException) e).result() == Result.UNHANDLED_CUDA_ERROR);
        }
    }

    @Test
    void errorsNameTheCallAndTheCudaError() {
        assertThatThrownBy(() -> DeviceBuffer.allocate(dev, 1L << 50)).isInstanceOf(JcclException.class)
                .hasMessageContaining("cuMemAlloc_v2(").hasMessageContaining("CUDA_ERROR_OUT_OF_MEMORY");
    }

    @Test
    void streamCaptureRecordsAGraphThatReplays() {
        try (DeviceBuffer b = DeviceBuffer.allocate(dev, 4096); CudaStream s = CudaStream.create(dev)) {
            s.beginCapture();
            assertThat(s.isCapturing()).isTrue();
            b.fillAsync((byte) 7, s);
            try (CudaGraph g = s.endCapture()) {
                assertThat(s.isCapturing()).isFalse();
                b.zero();
                g.launch(s);
                s.synchronize();
            }
            byte[] out = new byte[4096];
            b.copyTo(MemorySegment.ofArray(out));
            for (byte x : out) {
                assertThat(x).isEqualTo((byte) 7);
            }
        }
    }

    @Test
    void pinnedMemoryIsMappedForTheDevice() {
        try (PinnedBuffer p = PinnedBuffer.allocate(dev, 4096); DeviceBuffer b = DeviceBuffer.allocate(dev, 4096);
             CudaStream s = CudaStream.create(dev)) {
            p.segment().setAtIndex(JAVA_INT, 5, 4242);
            dev.makeCurrent();
            CuMemory.copyAsync(b.address(), p.devicePointer(), 4096, s.handle());
            s.synchronize();
            try (Arena a = Arena.ofConfined()) {
                MemorySegment out = a.allocate(4096);
                b.copyTo(out);
                assertThat(out.getAtIndex(JAVA_INT, 5)).isEqualTo(4242);
            }
        }
    }
}
