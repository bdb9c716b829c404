package io.jccl.examples;

import io.jccl.Config;
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
import java.util.ArrayList;
import java.util.List;

/**
 * NCCL's "multiple devices per process" example (the ncclCommInitRank documentation's example 3: MPI processes, each
 * calling ncclCommInitRank for each of its GPUs inside a group), with {@code ./jccl run} in place of mpirun: process
 * {@code p} of {@code P} drives GPUs {@code p·K} to {@code p·K+K−1} (modulo the GPUs visible) as ranks {@code p·K}
 * onwards of one communicator of {@code P·K} ranks ({@link GpuCommunicator#fromEnvironment(List, Config)}), from
 * its main thread: the allReduce on every GPU is launched, then every stream is synchronised. Rank r contributes
 * {@code {r, r+1}}; prints {@code Device r correctly received sum: ...} for each of its GPUs.
 *
 * <pre>{@code ./jccl run -np 2 io.jccl.examples.SeveralDevicesPerProcessExample 2}</pre>
 */
public final class SeveralDevicesPerProcessExample {
    private SeveralDevicesPerProcessExample() {
    }

    public static void main(String[] args) {
        if (!CudaDevice.isAvailable()) {
            System.out.println("ERROR: No CUDA devices found on this system");
            System.exit(1);
        }
        int perProcess = Examples.intArg(args, 0, 2);
        // the launcher's local rank (torchrun, mpirun, srun, ./jccl run, ...), known before any communicator exists
        int localRank = Launch.placement().localRankOr(0);
        List<CudaDevice> devices = new ArrayList<>();
        for (int i = 0; i < perProcess; i++) {
            devices.add(CudaDevice.get((localRank * perProcess + i) % CudaDevice.count()));
        }
        boolean ok;
        List<GpuCommunicator> comms = List.of();
        try {
            comms = GpuCommunicator.fromEnvironment(devices, Config.defaults());
            ok = run(comms, System.out);
        } catch (JcclException e) {
            System.err.println("SeveralDevicesPerProcessExample: " + e.getMessage());
            ok = false;
        } finally {
            comms.forEach(GpuCommunicator::close);   // one after another from this thread
        }
        System.out.flush();
        System.exit(ok ? 0 : 1);
    }

    /** The example on this process's ranks {@code comms}; returns true when every sum is right. */
    public static boolean run(List<GpuCommunicator> comms, PrintStream out) {
        int k = comms.size();
        int size = comms.getFirst().size();
        List<CudaStream> streams = new ArrayList<>();
        List<DeviceBuffer> buffers = new ArrayList<>();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment host = arena.allocate(2 * Float.BYTES, 64);
            for (GpuCommunicator c : comms) {
                out.printf("Rank %d uses GPU %d: %s%n", c.rank(), c.device().ordinal(), c.device().name());
                streams.add(CudaStream.create(c.device()));
                DeviceBuffer b = DeviceBuffer.allocate(c.device(), 2 * Float.BYTES);
                buffers.add(b);
                host.setAtIndex(ValueLayout.JAVA_FLOAT, 0, c.rank());
                host.setAtIndex(ValueLayout.JAVA_FLOAT, 1, c.rank() + 1);
                b.copyFrom(host);
            }
            // NCCL's example wraps these in ncclGroupStart/End; a JCCL GPU call returns once launched, so the
            // calls of several ranks can follow each other from one thread
            for (int i = 0; i < k; i++) {
                comms.get(i).allReduce(buffers.get(i), buffers.get(i), 2, DataType.FLOAT32, RedOp.SUM, streams.get(i));
            }
            streams.forEach(CudaStream::synchronize);
            boolean ok = true;
            float first = size * (size - 1) / 2f;
            float[] expected = {first, first + size};
            for (int i = 0; i < k; i++) {
                JcclException error = comms.get(i).asyncError();   // a stopped kernel completes too: ask
                if (error != null) {
                    throw error;
                }
                buffers.get(i).copyTo(host);
                int rank = comms.get(i).rank();
                for (int j = 0; j < 2; j++) {
                    float got = host.getAtIndex(ValueLayout.JAVA_FLOAT, j);
                    if (got == expected[j]) {
                        out.printf("Device %d correctly received sum: %.0f%n", rank, got);
                    } else {
                        out.printf("Device %d received incorrect result: %.0f (expected %.0f)%n", rank, got,
                                expected[j]);
                        ok = false;
                    }
                }
            }
            return ok;
        } finally {
            buffers.forEach(DeviceBuffer::close);
            streams.forEach(CudaStream::close);
        }
    }
}
