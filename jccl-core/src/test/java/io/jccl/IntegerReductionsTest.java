package io.jccl;

import io.jccl.testing.ThreadRanks;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static io.jccl.BufferLayoutTest.refused;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What integer reductions do where a reader might guess otherwise (as docs/buffers.md states): unsigned types compare
 * unsigned, average sums in the element type (wrapping) before it divides, as NCCL's integer average does, and a
 * fractional preMulSum scalar on an integer type is refused naming the rank and the call.
 */
class IntegerReductionsTest {
    private static int[] reduce(Communicator comm, int mine, DataType type, RedOp op) {
        int[] v = {mine, mine};
        MemorySegment s = MemorySegment.ofArray(v);
        comm.allReduce(s, s, 2, type, op);
        return v;
    }

    @Test
    void unsignedTypesCompareUnsignedAndAverageWrapsInTheElementType() {
        ThreadRanks.run(2, comm -> {
            int mine = comm.rank() == 0 ? 0xFFFFFFFE : 5;
            assertThat(reduce(comm, mine, DataType.UINT32, RedOp.MAX)).containsOnly(0xFFFFFFFE);
            assertThat(reduce(comm, mine, DataType.UINT32, RedOp.MIN)).containsOnly(5);
            assertThat(reduce(comm, mine, DataType.INT32, RedOp.MIN)).containsOnly(-2);
            // (0xFFFFFFFE + 5) mod 2^32 = 3, then / 2
            assertThat(reduce(comm, mine, DataType.UINT32, RedOp.AVG)).containsOnly(1);
            assertThat(reduce(comm, mine, DataType.UINT32, RedOp.SUM)).containsOnly(3);
        });
    }

    @Test
    void aFractionalPreMulSumScalarOnAnIntegerTypeIsRefusedNamingRankAndCall() {
        ThreadRanks.run(2, comm -> {
            int[] v = new int[4];
            refused(() -> comm.allReduce(v, RedOp.preMulSum(0.5)), comm.rank(), Collective.ALL_REDUCE,
                    "preMulSum scalar 0.5 is not a whole number");
            comm.allReduce(v, RedOp.preMulSum(2));
        });
    }
}
