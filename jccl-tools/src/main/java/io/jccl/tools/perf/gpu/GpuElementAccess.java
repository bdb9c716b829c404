package io.jccl.tools.perf.gpu;

import io.jccl.DataType;
import io.jccl.cuda.HostElements;
import io.jccl.tools.perf.ElementAccess;

import java.lang.foreign.MemorySegment;

/**
 * Element access for GPU runs: every type exactly as the GPU kernels store it (fp8 and bf16 included), through
 * {@link HostElements}. Stateless.
 */
final class GpuElementAccess implements ElementAccess {
    static final GpuElementAccess INSTANCE = new GpuElementAccess();

    private GpuElementAccess() {
    }

    @Override
    public double getDouble(DataType type, MemorySegment seg, long index) {
        return HostElements.get(type, seg, index);
    }

    @Override
    public void setDouble(DataType type, MemorySegment seg, long index, double value) {
        HostElements.set(type, seg, index, value);
    }

    @Override
    public long getLong(DataType type, MemorySegment seg, long index) {
        return HostElements.getLong(type, seg, index);
    }

    @Override
    public void setLong(DataType type, MemorySegment seg, long index, long value) {
        HostElements.setLong(type, seg, index, value);
    }
}
