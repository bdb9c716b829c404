package io.jccl.tools.demo;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.RedOp;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class AllReduceDemoTest {

    /** A communicator of {@code size} ranks whose allReduce writes {@code result} (as a correct one would sum). */
    private static Communicator fake(int rank, int size, float[] result) {
        return (Communicator) Proxy.newProxyInstance(Communicator.class.getClassLoader(),
                new Class<?>[]{Communicator.class}, (proxy, m, args) -> switch (m.getName()) {
                    case "rank" -> rank;
                    case "size" -> size;
                    case "allReduce" -> {
                        if (args.length == 5 && args[1] instanceof MemorySegment recv) {
                            assertThat(args[3]).isEqualTo(DataType.FLOAT32);
                            assertThat(args[4]).isEqualTo(RedOp.SUM);
                            assertThat(((MemorySegment) args[0]).getAtIndex(ValueLayout.JAVA_FLOAT, 1))
                                    .isEqualTo(rank + 1f);
                            for (int i = 0; i < result.length; i++) {
                                recv.setAtIndex(ValueLayout.JAVA_FLOAT, i, result[i]);
                            }
                            yield null;
                        }
                        yield java.lang.reflect.InvocationHandler.invokeDefault(proxy, m, args);
                    }
                    default -> m.isDefault() ? java.lang.reflect.InvocationHandler.invokeDefault(proxy, m, args) : null;
                });
    }

    private static String run(Communicator c, boolean expectOk) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertThat(AllReduceDemo.run(c, new PrintStream(out, true, StandardCharsets.UTF_8))).isEqualTo(expectOk);
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void fourRanksPrintNcclsExpectedOutput() {
        assertThat(AllReduceDemo.expectedSums(4)).containsExactly(6f, 10f);
        String out = run(fake(2, 4, new float[]{6, 10}), true);
        assertThat(out.lines()).containsExactly(
                "Collective operation completed on rank 2",
                "Device 2 correctly received sum: 6",
                "Device 2 correctly received sum: 10");
    }

    @Test
    void aWrongSumIsReported() {
        String out = run(fake(1, 4, new float[]{6, 9}), false);
        assertThat(out).contains("Device 1 correctly received sum: 6")
                .contains("Device 1 received incorrect result: 9 (expected 10)");
    }

    @Test
    void expectedSumsForOtherSizes() {
        assertThat(AllReduceDemo.expectedSums(1)).containsExactly(0f, 1f);
        assertThat(AllReduceDemo.expectedSums(2)).containsExactly(1f, 3f);
        assertThat(AllReduceDemo.expectedSums(8)).containsExactly(28f, 36f);
    }
}
