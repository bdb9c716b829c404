package io.jccl;

import io.jccl.testing.Oracle;
import io.jccl.testing.ThreadRanks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Same-host behaviour: registered buffers, one-shot path, and nothing left behind in /dev/shm. */
class SharedMemoryTest {
    @ParameterizedTest(name = "{0} ranks, count {1}, in place {2}")
    @CsvSource({"2, 300001, false", "2, 262144, true", "3, 100003, false", "3, 77777, true", "4, 1000, false"})
    void registeredBuffersGiveTheSameResults(int n, int count, boolean inPlace) {
        ThreadRanks.run(n, comm -> {
            MemorySegment send = comm.allocate(4L * count);
            MemorySegment recv = inPlace ? send : comm.allocate(4L * count);
            for (RedOp op : new RedOp[] {RedOp.SUM, RedOp.MAX, RedOp.AVG}) {
                for (long i = 0; i < count; i++) {
                    DataType.FLOAT32.setDouble(send, i, Oracle.input(DataType.FLOAT32, op.kind(), comm.rank(), i));
                }
                comm.allReduce(send, recv, count, DataType.FLOAT32, op);
                for (long i = 0; i < count; i++) {
                    double exp = Oracle.reduce(DataType.FLOAT32, op, n, i);
                    double got = DataType.FLOAT32.getDouble(recv, i);
                    if (!Oracle.close(DataType.FLOAT32, op, got, exp)) {
                        throw new AssertionError(op + " element " + i + " on rank " + comm.rank() + ": " + got + " != " + exp);
                    }
                }
            }
        });
    }

    @Test
    void noFilesAreLeftInDevShm() throws IOException {
        ThreadRanks.run(3, comm -> {
            comm.allocate(1 << 20);
            float[] d = new float[300_000];
            comm.allReduce(d, RedOp.SUM);
            comm.allReduce(new float[4], RedOp.SUM);
            assertThat(jcclFiles()).as("files are unlinked once mapped").isZero();
        });
        assertThat(jcclFiles()).isZero();
    }

    /** Files this JVM created (their names carry its pid), so leftovers of other processes do not count. */
    static long jcclFiles() throws IOException {
        Path dir = Path.of(System.getProperty("JCCL_SHM_DIR", "/dev/shm"));
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        try (Stream<Path> s = Files.list(dir)) {
            String mine = "-" + ProcessHandle.current().pid() + "-";
            return s.filter(p -> p.getFileName().toString().startsWith("jccl-")
                    && p.getFileName().toString().contains(mine)).count();
        }
    }
}
