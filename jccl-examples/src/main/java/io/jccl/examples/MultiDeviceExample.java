package io.jccl.examples;

import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.CudaStream;
import io.jccl.cuda.DeviceBuffer;
import io.jccl.cuda.GpuCommunicator;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * NCCL's single-process, several-GPU example (examples/01_communicators/01_multiple_devices_single_process): one
 * process drives every visible GPU as one rank ({@link GpuCommunicator#initAll}, NCCL's ncclCommInitAll), each GPU
 * starts with its rank in every element, and one allReduce on each GPU's stream sums them through NVLink/PCIe
 * peer memory. Output follows NCCL's example line for line.
 *
 * <pre>{@code ./jccl run -np 1 io.jccl.examples.MultiDeviceExample [N] [GPUS]}</pre>
 */
public final class MultiDeviceExample {
    private MultiDeviceExample() {
    }

    public static void main(String[] args) {
        int n = Examples.intArg(args, 0, 1 << 20);
        boolean ok;
        try {
            ok = run(System.out, n, Examples.intArg(args, 1, 0));
        } catch (JcclException e) {
            System.err.println("MultiDeviceExample: " + e.getMessage());
            ok = false;
        }
        System.out.flush();
        System.exit(ok ? 0 : 1);
    }

    /**
     * Runs on {@code gpus} GPUs (0: all) with {@code count} floats each; returns true when every GPU got the sum,
     * false (after printing NCCL's error line) when there is no GPU.
     */
    public static boolean run(PrintStream out, int count, int gpus) {
        if (!CudaDevice.isAvailable()) {
            out.println("ERROR: No CUDA devices found on this system");
            return false;
        }
        int n = gpus > 0 ? Math.min(gpus, CudaDevice.count()) : CudaDevice.count();
        CudaDevice[] devices = new CudaDevice[n];
        for (int g = 0; g < n; g++) {
            devices[g] = CudaDevice.get(g);
            out.printf("  GPU %d: %s (CUDA Device %d)%n", g, devices[g].name(), devices[g].ordinal());
        }
        CudaStream[] streams = new CudaStream[n];
        DeviceBuffer[] send = new DeviceBuffer[n];
        DeviceBuffer[] recv = new DeviceBuffer[n];
        long bytes = (long) count * Float.BYTES;
        boolean ok = true;
        List<GpuCommunicator> comms = GpuCommunicator.initAll(List.of(devices));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment host = arena.allocate(bytes, 64);
            for (int g = 0; g < n; g++) {
                streams[g] = CudaStream.create(devices[g]);
                send[g] = DeviceBuffer.allocate(devices[g], bytes);
                recv[g] = DeviceBuffer.allocate(devices[g], bytes);
                for (long i = 0; i < count; i++) {
                    host.setAtIndex(ValueLayout.JAVA_FLOAT, i, g);
                }
                send[g].copyFrom(host);
                out.printf("  Device %d initialized with data value %d%n", g, g);
            }
            GpuCommunicator.groupStart();
            try {
                for (int g = 0; g < n; g++) {
                    comms.get(g).allReduce(send[g], recv[g], count, DataType.FLOAT32, RedOp.SUM, streams[g]);
                }
            } finally {
                GpuCommunicator.groupEnd();
            }
            for (int g = 0; g < n; g++) {
                streams[g].synchronize();
                // a kernel stopped by a timeout or a mismatched call completes too: ask (ncclCommGetAsyncError)
                JcclException error = comms.get(g).asyncError();
                if (error != null) {
                    throw error;
                }
            }
            float expected = n * (n - 1) / 2f;
            for (int g = 0; g < n; g++) {
                recv[g].copyTo(host);
                long wrong = 0;
                for (long i = 0; i < count; i++) {
                    if (host.getAtIndex(ValueLayout.JAVA_FLOAT, i) != expected) {
                        wrong++;
                    }
                }
                float first = host.getAtIndex(ValueLayout.JAVA_FLOAT, 0);
                if (wrong == 0) {
                    out.printf("  Device %d correctly received sum: %.0f%n", g, first);
                } else {
                    out.printf("  Device %d received incorrect result: %.0f (expected %.0f), %d wrong elements%n", g,
                            first, expected, wrong);
                    ok = false;
                }
            }
        } finally {
            comms.forEach(MultiDeviceExample::close);
            for (int g = 0; g < n; g++) {
                close(send[g]);
                close(recv[g]);
                close(streams[g]);
            }
        }
        return ok;
    }

    private static void close(AutoCloseable c) {
        if (c != null) {
            try {
                c.close();
            } catch (Exception e) {
                // freeing after a failure: nothing more to report than the failure itself
            }
        }
    }
}
