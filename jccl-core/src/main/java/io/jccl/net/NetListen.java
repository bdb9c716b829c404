package io.jccl.net;

/**
 * What {@link NetPlugin#listen} returns.
 *
 * @param handle opaque bytes the library carries to the connecting peer (at most {@link #MAX_HANDLE_BYTES})
 * @param comm   the listening comm to {@link NetPlugin#accept} on
 */
public record NetListen(byte[] handle, NetPlugin.ListenComm comm) {
    /** Largest handle a plugin may return, NCCL's {@code NCCL_NET_HANDLE_MAXSIZE}. */
    public static final int MAX_HANDLE_BYTES = 128;

    /**
     * Checks the handle's size.
     *
     * @param handle opaque bytes the library carries to the connecting peer
     * @param comm   the listening comm to accept on
     */
    public NetListen {
        if (handle == null || handle.length == 0 || handle.length > MAX_HANDLE_BYTES) {
            throw new IllegalArgumentException("a net handle must have 1.." + MAX_HANDLE_BYTES + " bytes");
        }
        if (comm == null) {
            throw new IllegalArgumentException("listen comm is null");
        }
    }
}
