package io.jccl.tools.perf.gpu;

import io.jccl.cuda.internal.ffm.NativeLibrary;

import java.io.IOException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * The fake libnccl of src/test/native/fake_nccl.c, compiled with the system's C compiler into target/: a full one
 * (NCCL 2.28), one without the window calls (2.26) and one without any registration call (2.18). Test helper.
 */
final class FakeNccl {
    private static final Path SOURCE = Path.of("src/test/native/fake_nccl.c");
    private static final Path OUT = Path.of("target/fake-nccl");

    private final NcclLibrary nccl;
    private final MethodHandle log;
    private final MethodHandle reset;

    private FakeNccl(String path) {
        this.nccl = NcclLibrary.load(path);
        NativeLibrary lib = NativeLibrary.open(path, "fake libnccl missing");
        this.log = lib.bind("fakeNcclLog", FunctionDescriptor.of(ADDRESS));
        this.reset = lib.bind("fakeNcclReset", FunctionDescriptor.ofVoid(JAVA_INT));
    }

    /** A C compiler on the PATH ({@code cc}, {@code gcc} or {@code clang}), if any. */
    static Optional<String> compiler() {
        for (String cc : List.of("cc", "gcc", "clang")) {
            try {
                Process p = new ProcessBuilder(cc, "--version").redirectErrorStream(true).start();
                p.getInputStream().readAllBytes();
                if (p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0) {
                    return Optional.of(cc);
                }
            } catch (IOException e) {
                // not installed: try the next
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    /** Compiles the fake with {@code defines} (e.g. -DFAKE_NO_WINDOWS) into target/fake-nccl/{@code name}.so. */
    static FakeNccl build(String cc, String name, String... defines) throws IOException, InterruptedException {
        Files.createDirectories(OUT);
        Path so = OUT.resolve(name + ".so").toAbsolutePath();
        List<String> cmd = new ArrayList<>(List.of(cc, "-shared", "-fPIC", "-O1", "-o", so.toString()));
        cmd.addAll(List.of(defines));
        cmd.add(SOURCE.toAbsolutePath().toString());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", cmd) + " failed:\n" + out);
        }
        return new FakeNccl(so.toString());
    }

    NcclLibrary nccl() {
        return nccl;
    }

    /** The calls recorded since the last {@link #reset}, one per line. */
    List<String> calls() {
        try {
            String text = NativeLibrary.cString((MemorySegment) log.invokeExact());
            return text == null || text.isEmpty() ? List.of() : text.lines().toList();
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }

    /** Forgets the recorded calls; with {@code failRegistrations} every registration then returns ncclInvalidUsage. */
    void reset(boolean failRegistrations) {
        try {
            reset.invokeExact(failRegistrations ? 1 : 0);
        } catch (Throwable t) {
            throw NativeLibrary.rethrow(t);
        }
    }
}
