package io.jccl.examples;

import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.CudaStream;
import io.jccl.cuda.DeviceBuffer;
import io.jccl.cuda.GpuCommunicator;
import io.jccl.launch.Launch;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * NCCL's one-GPU-per-process example (examples/01_communicators/03_one_device_per_process_mpi), with
 * {@code ./jccl run} in place of mpirun: each process takes the GPU of its local rank on its host
 * ({@link Launch#placement()}, modulo the GPUs visible), joins a
 * {@link GpuCommunicator} from the launcher's environment (peers' buffers are shared through CUDA IPC handles
 * exchanged over the bootstrap), puts {@code {rank, rank+1}} in device memory, allReduces it on its stream and prints
 * what NCCL's example prints ({@code Device r correctly received sum: 6} on 4 ranks).
 *
 * <pre>{@code ./jccl run -np 2 io.jccl.examples.OneDevicePerProcessExample}</pre>
 */
public final class OneDevicePerProcessExample {
    private OneDevicePerProcessExample() {
    }

    public static void main(String[] args) {
        if (!CudaDevice.isAvailable()) {
            System.out.println("ERROR: No CUDA devices found on this system");
            System.exit(1);
        }
        // the launcher's local rank (torchrun, mpirun, srun, ./jccl run, ...), known before any communicator exists
        int localRank = Launch.placement().localRankOr(0);
        CudaDevice device = CudaDevice.get(localRank % CudaDevice.count());
        boolean ok;
        try (GpuCommunicator comm = GpuCommunicator.fromEnvironment(device)) {
            ok = run(comm, System.out);
        } catch (JcclException e) {
            System.err.println("OneDevicePerProcessExample: " + e.getMessage());
            ok = false;
        }
        System.out.flush();
        System.exit(ok ? 0 : 1);
    }

    /** The example on {@code comm}; returns true when both sums are right. */
    public static boolean run(GpuCommunicator comm, PrintStream out) {
        int rank = comm.rank();
        int size = comm.size();
        CudaDevice device = comm.device();
        out.printf("Rank %d uses GPU %d: %s%n", rank, device.ordinal(), device.name());
        try (Arena arena = Arena.ofConfined();
             CudaStream stream = CudaStream.create(device);
             DeviceBuffer send = DeviceBuffer.allocate(device, 2 * Float.BYTES);
             DeviceBuffer recv = DeviceBuffer.allocate(device, 2 * Float.BYTES)) {
            MemorySegment host = arena.allocate(2 * Float.BYTES, 64);
            host.setAtIndex(ValueLayout.JAVA_FLOAT, 0, rank);
            host.setAtIndex(ValueLayout.JAVA_FLOAT, 1, rank + 1);
            send.copyFrom(host);
            comm.allReduce(send, recv, 2, DataType.FLOAT32, RedOp.SUM, stream);
            stream.synchronize();
            // a kernel stopped by a timeout completes too: ask (ncclCommGetAsyncError)
            JcclException error = comm.asyncError();
            if (error != null) {
                throw error;
            }
            out.printf("Collective operation completed on rank %d%n", rank);
            recv.copyTo(host);
            float first = size * (size - 1) / 2f;
            boolean ok = true;
            float[] expected = {first, first + size};
            for (int i = 0; i < 2; i++) {
                float got = host.getAtIndex(ValueLayout.JAVA_FLOAT, i);
                if (got == expected[i]) {
                    out.printf("Device %d correctly received sum: %.0f%n", rank, got);
                } else {
                    out.printf("Device %d received incorrect result: %.0f (expected %.0f)%n", rank, got, expected[i]);
                    ok = false;
                }
            }
            return ok;
        }
    }
}
