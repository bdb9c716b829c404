package io.jccl.internal.transport.shm;

import io.jccl.JcclException;
import io.jccl.Result;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ShmFilesTest {
    @Test
    void tooLittleSpaceIsAnErrorThatSaysWhatToDo() {
        assertThatThrownBy(() -> ShmFiles.create("jccl-test-huge", Long.MAX_VALUE / 4, Arena.ofAuto()))
                .isInstanceOf(JcclException.class)
                .hasMessageContaining("--shm-size")
                .hasMessageContaining("NCCL_SHM_DISABLE")
                .satisfies(e -> assertThat(((JcclException) e).result()).isEqualTo(Result.SYSTEM_ERROR));
    }

    @Test
    void createdFilesAreZeroedAndShared() {
        try (Arena a = Arena.ofShared()) {
            MemorySegment m = ShmFiles.create("jccl-test-share", 8192, a);
            MemorySegment v = ShmFiles.attach("jccl-test-share", 8192, a);
            ShmFiles.unlink("jccl-test-share");
            assertThat(m.get(java.lang.foreign.ValueLayout.JAVA_LONG, 4096)).isZero();
            m.set(java.lang.foreign.ValueLayout.JAVA_LONG, 4096, 42L);
            assertThat(v.get(java.lang.foreign.ValueLayout.JAVA_LONG, 4096)).isEqualTo(42L);
        }
    }

    @Test
    void mappedFilesComeBackAsPlainNativeSegmentsOfTheArena() {
        MemorySegment m;
        try (Arena a = Arena.ofShared()) {
            m = ShmFiles.create("jccl-test-native", 4096, a);
            MemorySegment v = ShmFiles.attach("jccl-test-native", 4096, a);
            ShmFiles.unlink("jccl-test-native");
            // the same class as users' native buffers, so the copy and reduce loops stay monomorphic
            assertThat(m.getClass()).isSameAs(a.allocate(64).getClass());
            assertThat(v.getClass()).isSameAs(m.getClass());
            assertThat(m.isMapped()).isFalse();
            assertThat(m.scope()).isEqualTo(a.allocate(8).scope());
            assertThat(m.byteSize()).isEqualTo(4096);
        }
        assertThat(m.scope().isAlive()).isFalse();
    }

    @Test
    void filesNotYetUnlinkedAreRemovedWhenTheJvmExits() throws Exception {
        String name = "jccl-test-exit-" + ProcessHandle.current().pid();
        Path javaBin = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(javaBin.toString(), "-cp", System.getProperty("java.class.path"),
                CreateAndExit.class.getName(), name).redirectErrorStream(true).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(out).contains("created " + name + " live=1");
        assertThat(p.exitValue()).isEqualTo(3);
        assertThat(ShmFiles.dir().resolve(name)).doesNotExist();
    }

    @Test
    void unlinkForgetsTheFile() {
        int before = ShmFiles.liveFiles();
        try (Arena a = Arena.ofShared()) {
            ShmFiles.create("jccl-test-live", 4096, a);
            assertThat(ShmFiles.liveFiles()).isEqualTo(before + 1);
            ShmFiles.unlink("jccl-test-live");
            assertThat(ShmFiles.liveFiles()).isEqualTo(before);
        }
    }

    /** Entry point of the fresh JVM above: creates a file, keeps it, and exits with status 3. */
    public static final class CreateAndExit {
        public static void main(String[] args) {
            ShmFiles.create(args[0], 4096, Arena.ofShared());
            System.out.println("created " + args[0] + " live=" + ShmFiles.liveFiles()
                    + " exists=" + Files.exists(ShmFiles.dir().resolve(args[0])));
            System.exit(3);
        }
    }
}
