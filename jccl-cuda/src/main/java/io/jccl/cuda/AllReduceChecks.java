package io.jccl.cuda;

import io.jccl.JcclException;
import io.jccl.Result;

/**
 * Argument checks of {@link GpuClique#allReduce} that need no GPU (so they are unit-tested everywhere).
 *
 * <p>Thread: stateless. Mirrors NCCL's ArgsCheck (argcheck.cc).
 */
final class AllReduceChecks {
    private AllReduceChecks() {
    }

    /** Checks one rank's buffers for a call moving {@code bytes} bytes. */
    static void checkBuffers(int rank, long sendAddress, long sendSize, long recvAddress, long recvSize, long bytes) {
        if (sendSize < bytes) {
            throw new JcclException(Result.INVALID_ARGUMENT, "send[" + rank + "] has " + sendSize + " bytes, the call "
                    + "needs " + bytes);
        }
        if (recvSize < bytes) {
            throw new JcclException(Result.INVALID_ARGUMENT, "recv[" + rank + "] has " + recvSize + " bytes, the call "
                    + "needs " + bytes);
        }
        if (sendAddress != recvAddress && bytes > 0 && sendAddress < recvAddress + bytes
                && recvAddress < sendAddress + bytes) {
            throw new JcclException(Result.INVALID_ARGUMENT, "send[" + rank + "] and recv[" + rank + "] overlap without "
                    + "being the same buffer (0x" + Long.toHexString(sendAddress) + " and 0x"
                    + Long.toHexString(recvAddress) + ", " + bytes + " bytes); use the same buffer for in place");
        }
    }
}
