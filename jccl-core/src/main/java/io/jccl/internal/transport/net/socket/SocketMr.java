package io.jccl.internal.transport.net.socket;

import io.jccl.net.NetPlugin;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * A socket-plugin memory registration: the segment as one ByteBuffer that requests take views of.
 *
 * <p>Owned by: the comm it was registered for. Mirrors: net_socket.cc regMr (a no-op there; sockets need no pinning).
 *
 * @param segment the registered memory
 * @param buffer  the segment as a buffer
 */
record SocketMr(MemorySegment segment, ByteBuffer buffer) implements NetPlugin.MemHandle {
}
