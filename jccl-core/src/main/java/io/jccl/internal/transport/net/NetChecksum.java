package io.jccl.internal.transport.net;

import io.jccl.internal.param.Params;

/**
 * Whether network slots, host and GPU connectors', carry a CRC32C ({@code JCCL_NET_CHECKSUM}): on, off, or auto: on
 * when ranks span several hosts (bytes cross real links, where corruption can happen), off when every rank is on this
 * host (loopback cannot corrupt in transit, and there the check measured 8-10% of allReduce busbw on a small shared
 * machine, since it sits on the critical path of every slot). Owned by: any thread (stateless). Mirrors: nothing in
 * NCCL.
 */
public final class NetChecksum {
    private NetChecksum() {
    }

    /**
     * True when this rank's receivers ask their senders for a CRC32C per slot ({@code multiHost}: ranks span hosts).
     */
    public static boolean enabled(boolean multiHost) {
        return switch (Params.NET_CHECKSUM.get()) {
            case "on" -> true;
            case "off" -> false;
            default -> multiHost;
        };
    }
}
