package io.jccl;

import io.jccl.testing.ThreadRanks;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The ring collectives over shared memory with each protocol forced through NCCL_PROTO (LL, LL128, Simple), the
 * one-shot path disabled so small messages take the ring too.
 */
class ProtocolsTest {
    @AfterEach
    void restore() {
        System.clearProperty("NCCL_PROTO");
        System.clearProperty("JCCL_ONESHOT_MAX_BYTES");
    }

    @ParameterizedTest(name = "NCCL_PROTO={0}")
    @ValueSource(strings = {"LL", "LL128", "Simple"})
    void everyRingCollectiveWithTheProtocol(String proto) {
        System.setProperty("NCCL_PROTO", proto);
        System.setProperty("JCCL_ONESHOT_MAX_BYTES", "0");
        ThreadRanks.run(3, comm -> {
            for (long count : new long[] {1, 2, 5, 1023, 1024, 7681, 100_003}) {
                CollectivesTest.checkAllReduce(comm, count, DataType.FLOAT32, RedOp.SUM, count % 2 == 0);
                CollectivesTest.checkAllReduce(comm, count, DataType.BFLOAT16, RedOp.MAX, false);
                CollectivesTest.checkBroadcast(comm, count, DataType.INT8, 2, false);
                CollectivesTest.checkReduce(comm, count, DataType.INT64, RedOp.PROD, 0);
                CollectivesTest.checkAllGather(comm, count, DataType.FLOAT16, true);
                CollectivesTest.checkReduceScatter(comm, count, DataType.FLOAT64, RedOp.AVG);
            }
        });
    }
}
