package io.jccl.internal.transport.shm;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.base.CountedArena;
import io.jccl.internal.base.MemoryLedger;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Creates, maps and removes the files in {@code /dev/shm} (or {@code JCCL_SHM_DIR}) that shared-memory connectors
 * live in. Creation checks the free space first and writes the whole file (so a full tmpfs is an exception with
 * advice, not a SIGBUS later); files are unlinked as soon as both sides mapped them, so a crash leaves nothing behind.
 * Files created here and not yet unlinked are also unlinked when the JVM exits (a test or program that exits with a
 * communicator still connecting); only a kill in that window can leave one.
 *
 * <p>Owned by: the thread setting up connections. Mirrors: NCCL's shmOpen / ncclShmUnlink (shmutils.cc).
 */
public final class ShmFiles {
    /** File names start with this, so leaks are easy to spot ({@code ls /dev/shm/jccl-*}). */
    public static final String PREFIX = "jccl-";

    /** Zeros written into a new file to allocate its pages; shared (read-only) by every create. */
    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(1 << 20).asReadOnlyBuffer();

    /** Files this JVM created and has not unlinked yet: the exit hook removes them. */
    private static final java.util.Set<Path> LIVE = java.util.concurrent.ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("jccl-shm-unlink").unstarted(() -> {
            for (Path p : LIVE) {
                unlink(p);
            }
        }));
    }

    private ShmFiles() {
    }

    /** How many files this JVM created and has not unlinked (for tests). */
    static int liveFiles() {
        return LIVE.size();
    }

    public static Path dir() {
        String d = io.jccl.internal.param.Params.SHM_DIR.raw();
        return Path.of(d == null || d.isBlank() ? "/dev/shm" : d);
    }

    /** Creates {@code name} of {@code size} bytes, fully allocated and zeroed, and maps it into {@code arena}. */
    public static MemorySegment create(String name, long size, Arena arena) {
        Path dir = dir();
        Path path = dir.resolve(name);
        checkSpace(dir, size);
        FileChannel ch;
        try {
            ch = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
        } catch (IOException e) {
            // not ours (an existing file keeps its owner's contents): nothing to unlink
            throw new JcclException(Result.SYSTEM_ERROR, "cannot create shared memory file " + path + ": "
                    + e + ". " + advice(dir), e);
        }
        LIVE.add(path);
        try (ch) {
            ByteBuffer zeros = ZEROS.duplicate();
            long written = 0;
            while (written < size) {
                zeros.clear().limit((int) Math.min(zeros.capacity(), size - written));
                written += ch.write(zeros, written);
            }
            MemorySegment m = asNative(ch.map(FileChannel.MapMode.READ_WRITE, 0, size, arena), arena);
            counted(arena, MemoryLedger.Kind.SHARED, size);
            return m;
        } catch (IOException e) {
            unlink(path);
            throw new JcclException(Result.SYSTEM_ERROR, "cannot create shared memory file " + path + " of "
                    + mib(size) + " MiB: " + e.getMessage() + ". " + advice(dir), e);
        }
    }

    /** Maps an existing file created by a peer. */
    public static MemorySegment attach(String name, long size, Arena arena) {
        Path path = dir().resolve(name);
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            if (ch.size() < size) {
                throw new JcclException(Result.INTERNAL_ERROR, "shared memory file " + path + " has " + ch.size()
                        + " bytes, expected " + size);
            }
            MemorySegment m = asNative(ch.map(FileChannel.MapMode.READ_WRITE, 0, size, arena), arena);
            counted(arena, MemoryLedger.Kind.PEER_MAPPED, size);
            return m;
        } catch (IOException e) {
            throw new JcclException(Result.SYSTEM_ERROR, "cannot map shared memory file " + path
                    + " created by a peer: "
                    + e.getMessage() + " (is the peer in another container or mount namespace? set NCCL_SHM_DISABLE=1)",
                            e);
        }
    }

    /** A mapping into a communicator's counted arena goes on its memory ledger (others are the application's). */
    private static void counted(Arena arena, MemoryLedger.Kind kind, long size) {
        if (arena instanceof CountedArena c) {
            c.mapped(kind, size);
        }
    }

    /**
     * The same memory as a plain native segment of {@code arena} (the mapping lives until the arena closes either way).
     * The copy and reduce loops then meet one segment class for shared memory and for users' native buffers: with
     * the mapped class beside the native one, C2 compiled the shared loops for two receivers, and one-shot allReduce
     * ran 2x slower (16-64 KiB, 2 ranks) in any process that had also run two-shot, whose loops see the classes in
     * the other order.
     */
    @SuppressWarnings("restricted") // FFM: JCCL is run with --enable-native-access
    static MemorySegment asNative(MemorySegment mapped, Arena arena) {
        return MemorySegment.ofAddress(mapped.address()).reinterpret(mapped.byteSize(), arena, null);
    }

    public static void unlink(Path p) {
        LIVE.remove(p);
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // best effort: the file is gone when the last mapping goes
        }
    }

    public static void unlink(String name) {
        unlink(dir().resolve(name));
    }

    static void checkSpace(Path dir, long size) {
        try {
            FileStore fs = Files.getFileStore(dir);
            long free = fs.getUsableSpace();
            if (free < size) {
                throw new JcclException(Result.SYSTEM_ERROR, dir + " has " + mib(free) + " MiB free but a shared memory"
                        + " connector needs " + mib(size) + " MiB. " + advice(dir));
            }
        } catch (IOException e) {
            throw new JcclException(Result.SYSTEM_ERROR, "shared memory directory " + dir + " is not usable: "
                    + e.getMessage() + ". Set JCCL_SHM_DIR to a tmpfs directory, or NCCL_SHM_DISABLE=1 to use sockets",
                            e);
        }
    }

    private static String advice(Path dir) {
        return "Give " + dir + " more room (docker run --shm-size=1g; Kubernetes: an emptyDir with medium: Memory; "
                + "or mount -o remount,size=2G " + dir
                        + "), lower NCCL_BUFFSIZE, or set NCCL_SHM_DISABLE=1 to use sockets";
    }

    private static long mib(long b) {
        return (b + (1 << 20) - 1) >> 20;
    }
}
