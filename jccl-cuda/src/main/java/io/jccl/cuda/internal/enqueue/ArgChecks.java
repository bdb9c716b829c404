package io.jccl.cuda.internal.enqueue;

import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.Result;
import io.jccl.cuda.CudaDevice;
import io.jccl.cuda.CudaStream;
import io.jccl.cuda.DeviceBuffer;

/**
 * Argument checks of the GPU collectives that need no GPU (so they are unit-tested everywhere): counts, ranks,
 * buffers present, on the rank's GPU and large enough, overlaps (in place is allowed only in NCCL's layout for each
 * collective), reductions. Every
 * message starts with {@code where} (the communicator, rank, GPU and call).
 *
 * <p>Thread: stateless. Mirrors NCCL's ArgsCheck (argcheck.cc).
 */
public final class ArgChecks {
    private ArgChecks() {
    }

    /** count >= 0 and count * elemBytes (* factor) fits a long. */
    public static long bytes(String where, long count, DataType type, long factor) {
        if (count < 0) {
            throw new JcclException(Result.INVALID_ARGUMENT, where + ": count must be >= 0, got " + count);
        }
        try {
            return Math.multiplyExact(Math.multiplyExact(count, (long) type.sizeBytes()), factor);
        } catch (ArithmeticException e) {
            throw new JcclException(Result.INVALID_ARGUMENT, where + ": count " + count + " of " + type.ncclName()
                    + " is too large");
        }
    }

    /** A rank number in [0, nRanks). */
    public static void rank(String where, String what, int r, int nRanks) {
        if (r < 0 || r >= nRanks) {
            throw new JcclException(Result.INVALID_ARGUMENT, where + ": " + what + " " + r + " is not a rank of this "
                    + nRanks + "-rank communicator");
        }
    }

    /** {@code size >= bytes}. */
    public static void size(String where, String what, long size, long bytes) {
        if (size < bytes) {
            throw new JcclException(Result.INVALID_ARGUMENT, where + ": the " + what + " buffer has " + size
                    + " bytes, the call needs " + bytes);
        }
    }

    /**
     * The send range [send, send + sendBytes) and the receive range [recv, recv + recvBytes) must either not overlap
     * or be in place: the send data exactly at {@code inPlaceOffset} bytes into the receive range (negative: the
     * receive range exactly {@code -inPlaceOffset} bytes into the send range, as for reduceScatter and scatter).
     */
    public static boolean overlap(String where, long send, long sendBytes, long recv, long recvBytes,
                                  long inPlaceOffset) {
        if (send == recv + inPlaceOffset) {
            return true;
        }
        if (io.jccl.internal.enqueue.Overlap.clashes(send - recv, sendBytes, recvBytes, inPlaceOffset)) {
            throw new JcclException(Result.INVALID_ARGUMENT, where + ": the send buffer (0x" + Long.toHexString(send)
                    + ", " + sendBytes + " bytes) and the receive buffer (0x" + Long.toHexString(recv) + ", "
                            + recvBytes
                    + " bytes) overlap" + (inPlaceOffset == 0 ? "; pass the same buffer for in place"
                    : inPlaceOffset > 0 ? "; in place, the send data must start " + inPlaceOffset
                    + " bytes into the receive buffer"
                    : "; in place, the receive buffer must start " + -inPlaceOffset + " bytes into the send buffer"));
        }
        return false;
    }

    /** A buffer the call needs. */
    public static void present(String where, String what, DeviceBuffer b) {
        if (b == null) {
            throw new JcclException(Result.INVALID_ARGUMENT, where + ": the " + what + " buffer is null");
        }
    }

    /**
     * The stream and the buffers (those not null) are on {@code device}, and the buffers hold the bytes the call
     * reads ({@code sendBytes}) and writes ({@code recvBytes}).
     */
    public static void call(String where, CudaDevice device, CudaStream stream, DeviceBuffer send, DeviceBuffer recv,
                            long sendBytes, long recvBytes) {
        java.util.Objects.requireNonNull(stream, "stream");
        if (stream.device() != device) {
            throw new JcclException(Result.INVALID_ARGUMENT, where + ": the stream is on GPU "
                    + stream.device().ordinal() + ", this rank's GPU is " + device.ordinal());
        }
        buffer(where, device, "send", send, sendBytes);
        buffer(where, device, "receive", recv, recvBytes);
    }

    private static void buffer(String where, CudaDevice device, String what, DeviceBuffer b, long bytes) {
        if (b == null) {
            return;
        }
        if (b.device() != device) {
            throw new JcclException(Result.INVALID_ARGUMENT, where + ": the " + what + " buffer is on GPU "
                    + b.device().ordinal() + ", this rank's GPU is " + device.ordinal());
        }
        size(where, what, b.sizeBytes(), bytes);
    }

    /** preMulSum on an integer type needs a whole-number scalar. */
    public static void op(String where, RedOp op, DataType type) {
        if (op.kind() == RedOp.Kind.PRE_MUL_SUM && !type.isFloatingPoint() && op.scalar() != Math.rint(op.scalar())) {
            throw new JcclException(Result.INVALID_ARGUMENT, where + ": preMulSum on " + type.ncclName()
                    + " needs a whole-number scalar, got " + op.scalar());
        }
    }
}
