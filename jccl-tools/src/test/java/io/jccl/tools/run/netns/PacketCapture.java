package io.jccl.tools.run.netns;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Captures every frame crossing one link of this (root) namespace with a Linux packet socket ({@code AF_PACKET},
 * {@code ETH_P_ALL}) opened through FFM, and counts the frames and bytes seen and the frames that hold a given byte
 * string: what {@code tcpdump -i LINK -A | grep MARKER} would show, without needing tcpdump. Needs root. Owned by
 * the test thread that starts it; the capture runs on its own platform thread until {@link #close()}.
 */
final class PacketCapture implements AutoCloseable {
    private static final int AF_PACKET = 17;
    private static final int SOCK_RAW = 3;
    /** htons(ETH_P_ALL). */
    private static final short ETH_P_ALL_BE = 0x0300;
    private static final int SOL_SOCKET = 1;
    private static final int SO_RCVTIMEO = 20;
    /** SO_RCVBUF past net.core.rmem_max (root only): frames come faster than one thread copies them. */
    private static final int SO_RCVBUFFORCE = 33;
    private static final int RCVBUF_BYTES = 64 << 20;
    private static final int SNAP_BYTES = 1 << 18;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final MethodHandle SOCKET = call("socket", FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle BIND = call("bind", FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
    private static final MethodHandle SETSOCKOPT = call("setsockopt", FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
            ValueLayout.JAVA_INT));
    private static final MethodHandle RECV = call("recv", FunctionDescriptor.of(ValueLayout.JAVA_LONG,
            ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
    private static final MethodHandle CLOSE = call("close", FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.JAVA_INT));

    private final int fd;
    private final byte[] needle;
    private final Thread reader;
    private final AtomicLong frames = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong matches = new AtomicLong();
    private volatile boolean stop;

    private PacketCapture(int fd, byte[] needle) {
        this.fd = fd;
        this.needle = needle;
        this.reader = Thread.ofPlatform().name("packet-capture").daemon().start(this::readLoop);
    }

    /** Starts capturing on {@code link} (an interface of this namespace), counting frames that hold {@code marker}. */
    static PacketCapture start(String link, String marker) throws Throwable {
        int ifIndex = Integer.parseInt(Files.readString(Path.of("/sys/class/net", link, "ifindex")).trim());
        int fd = (int) SOCKET.invokeExact(AF_PACKET, SOCK_RAW, (int) ETH_P_ALL_BE);
        if (fd < 0) {
            throw new IOException("socket(AF_PACKET) failed (needs root)");
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment ll = a.allocate(20);            // struct sockaddr_ll
            ll.set(ValueLayout.JAVA_SHORT, 0, (short) AF_PACKET);
            ll.set(ValueLayout.JAVA_SHORT, 2, ETH_P_ALL_BE);
            ll.set(ValueLayout.JAVA_INT, 4, ifIndex);
            MemorySegment tv = a.allocate(16);            // struct timeval: 100 ms, so close() is seen soon
            tv.set(ValueLayout.JAVA_LONG, 8, 100_000);
            MemorySegment rcvBuf = a.allocateFrom(ValueLayout.JAVA_INT, RCVBUF_BYTES);
            if ((int) BIND.invokeExact(fd, ll, 20) != 0
                    || (int) SETSOCKOPT.invokeExact(fd, SOL_SOCKET, SO_RCVTIMEO, tv, 16) != 0
                    || (int) SETSOCKOPT.invokeExact(fd, SOL_SOCKET, SO_RCVBUFFORCE, rcvBuf, 4) != 0) {
                int ignored = (int) CLOSE.invokeExact(fd);
                throw new IOException("binding a packet socket to " + link + " failed");
            }
        }
        return new PacketCapture(fd, marker.getBytes(StandardCharsets.US_ASCII));
    }

    private void readLoop() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(SNAP_BYTES);
            byte[] frame = new byte[SNAP_BYTES];
            while (!stop) {
                long n = (long) RECV.invokeExact(fd, buf, (long) SNAP_BYTES, 0);
                if (n <= 0) {
                    continue;       // the receive timeout: look at stop again
                }
                MemorySegment.copy(buf, ValueLayout.JAVA_BYTE, 0, frame, 0, (int) n);
                frames.incrementAndGet();
                bytes.addAndGet(n);
                if (contains(frame, (int) n, needle)) {
                    matches.incrementAndGet();
                }
            }
        } catch (Throwable t) {
            throw new IllegalStateException("packet capture failed", t);
        }
    }

    static boolean contains(byte[] hay, int length, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    long frames() {
        return frames.get();
    }

    long bytes() {
        return bytes.get();
    }

    /** Frames that held the marker. */
    long matches() {
        return matches.get();
    }

    @Override
    public void close() throws InterruptedException {
        stop = true;
        reader.join(5_000);
        try {
            int ignored = (int) CLOSE.invokeExact(fd);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static MethodHandle call(String name, FunctionDescriptor d) {
        return LINKER.downcallHandle(LIBC.find(name).orElseThrow(), d);
    }
}
