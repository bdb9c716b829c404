package io.jccl.internal.transport.net;

import io.jccl.internal.param.Params;

/**
 * Whether network slots carry a CRC32C ({@code JCCL_NET_CHECKSUM}): on, off, or auto (on: measured below 5% of
 * loopback TCP busbw, see docs). Owned by: any thread (stateless). Mirrors: nothing in NCCL.
 */
public final class NetChecksum {
    private NetChecksum() {
    }

    /** True when this rank's receivers ask their senders for a CRC32C per slot. */
    public static boolean enabled() {
        return !Params.NET_CHECKSUM.get().equals("off");
    }
}
