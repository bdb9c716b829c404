package io.jccl.tools.perf;

import java.lang.foreign.MemorySegment;

/**
 * One buffer a perf rank sends from or receives into, in whatever memory its backend uses. The checks work on
 * {@link #host()}: for host memory it is the buffer itself and the copy methods do nothing; a device backend keeps a
 * host staging copy and moves bytes with {@link #copyToDevice}/{@link #copyToHost}. Owned by one rank's thread.
 * The role of nccl-tests' {@code sendbuffs}/{@code recvbuffs} plus their cudaMemcpy calls.
 */
public interface PerfBuffer {

    /** Capacity in bytes. */
    long sizeBytes();

    /** Host-visible bytes of the buffer (the buffer itself for host memory). */
    MemorySegment host();

    /** Makes {@code [offset, offset+length)} of {@link #host()} the buffer's content (device: host-to-device copy). */
    default void copyToDevice(long offsetBytes, long lengthBytes) {
    }

    /** Makes {@code [offset, offset+length)} of {@link #host()} show the buffer's content (device-to-host copy). */
    default void copyToHost(long offsetBytes, long lengthBytes) {
    }
}
