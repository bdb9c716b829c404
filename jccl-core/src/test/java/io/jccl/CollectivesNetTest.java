package io.jccl;

import io.jccl.testing.ThreadRanks;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The same checks over the socket transport (NCCL_SHM_DISABLE=1), for a few shapes. */
class CollectivesNetTest {
    @BeforeAll
    static void socketsOnly() {
        System.setProperty("NCCL_SHM_DISABLE", "1");
    }

    @AfterAll
    static void restore() {
        System.clearProperty("NCCL_SHM_DISABLE");
    }

    @ParameterizedTest(name = "{0} ranks, count {1}")
    @CsvSource({"2, 1", "3, 131073", "4, 1000", "5, 7"})
    void allCollectivesOverSockets(int n, long count) {
        ThreadRanks.run(n, comm -> {
            CollectivesTest.checkAllReduce(comm, count, DataType.FLOAT32, RedOp.SUM, false);
            CollectivesTest.checkBroadcast(comm, count, DataType.FLOAT32, n - 1, true);
            CollectivesTest.checkReduce(comm, count, DataType.FLOAT32, RedOp.MAX, 0);
            CollectivesTest.checkAllGather(comm, count, DataType.FLOAT32, false);
            CollectivesTest.checkReduceScatter(comm, count, DataType.FLOAT32, RedOp.SUM);
            CollectivesTest.checkAllToAll(comm, Math.min(count, 999), DataType.FLOAT32);
            CollectivesTest.checkGather(comm, count, DataType.FLOAT32, 1 % n);
            CollectivesTest.checkScatter(comm, count, DataType.FLOAT32, 0);
        });
    }
}
