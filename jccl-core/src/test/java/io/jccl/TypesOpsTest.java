package io.jccl;

import io.jccl.testing.Oracle;
import io.jccl.testing.ThreadRanks;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every data type × every reduction through allReduce (one-shot and ring sizes), reduce and reduceScatter, and every
 * type through the data-movement collectives, against {@link Oracle}: exact for integers and for every sum, product,
 * min and max (inputs are chosen exactly representable), a few units in the last place for AVG on floats.
 */
class TypesOpsTest {
    static final RedOp[] OPS = {RedOp.SUM, RedOp.PROD, RedOp.MIN, RedOp.MAX, RedOp.AVG, RedOp.preMulSum(Oracle.SCALAR)};

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 3})
    void everyTypeAndOp(int n) {
        ThreadRanks.run(n, comm -> {
            for (DataType t : DataType.values()) {
                for (RedOp op : OPS) {
                    for (long count : new long[] {1, 33, 70_001}) {
                        CollectivesTest.checkAllReduce(comm, count, t, op, count == 33);
                    }
                    CollectivesTest.checkReduce(comm, 1025, t, op, n - 1);
                    CollectivesTest.checkReduceScatter(comm, 517, t, op);
                }
                CollectivesTest.checkAllGather(comm, 1001, t, false);
                CollectivesTest.checkBroadcast(comm, 2049, t, 1, false);
                CollectivesTest.checkAllToAll(comm, 129, t);
            }
        });
    }
}
