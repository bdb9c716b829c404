package io.jccl.testing;

import io.jccl.Communicator;
import io.jccl.Config;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;

/**
 * A rank process that makes a call the others do not: after one matching allReduce, rank {@code odd=R} makes the
 * call that {@code diff=} says (COLLECTIVE: a broadcast from rank 0 where the others allReduce; COUNT: 64 more
 * elements; TYPE: int32 for float; OP: max for sum; ROOT: a broadcast from rank 1 where the others broadcast from
 * rank 0) on {@code count=N} elements. Prints {@code REFUSED <ms> <message>} (ms from its call to its error) when the
 * call or one of the next barriers is refused, {@code NOT REFUSED} otherwise.
 */
public final class MismatchRankMain {
    private MismatchRankMain() {
    }

    public static void main(String[] args) throws Exception {
        int odd = 1;
        int count = 1000;
        String diff = "COLLECTIVE";
        for (String a : args) {
            if (a.startsWith("odd=")) {
                odd = Integer.parseInt(a.substring(4));
            } else if (a.startsWith("count=")) {
                count = Integer.parseInt(a.substring(6));
            } else if (a.startsWith("diff=")) {
                diff = a.substring(5);
            }
        }
        Config config = Config.defaults().withTimeout(Duration.ofSeconds(8));
        Communicator comm = Communicator.fromEnvironment(config);
        boolean me = comm.rank() == odd;
        MemorySegment buf = Arena.global().allocate(8L * (count + 64), 64);
        comm.allReduce(new float[16], RedOp.SUM);
        long t0 = System.nanoTime();
        try {
            switch (diff) {
                case "COLLECTIVE" -> {
                    if (me) {
                        comm.broadcast(buf, buf, count, DataType.FLOAT32, 0);
                    } else {
                        comm.allReduce(buf, buf, count, DataType.FLOAT32, RedOp.SUM);
                    }
                }
                case "COUNT" -> comm.allReduce(buf, buf, me ? count + 64 : count, DataType.FLOAT32, RedOp.SUM);
                case "TYPE" -> comm.allReduce(buf, buf, count, me ? DataType.INT32 : DataType.FLOAT32, RedOp.SUM);
                case "OP" -> comm.allReduce(buf, buf, count, DataType.FLOAT32, me ? RedOp.MAX : RedOp.SUM);
                case "ROOT" -> comm.broadcast(buf, buf, count, DataType.FLOAT32, me ? 1 : 0);
                default -> throw new IllegalArgumentException(diff);
            }
            for (int i = 0; i < 30; i++) {
                comm.barrier();
                Thread.sleep(100);
            }
            System.out.println("NOT REFUSED");
        } catch (JcclException e) {
            System.out.println("REFUSED " + (System.nanoTime() - t0) / 1_000_000 + " " + e.getMessage());
        } finally {
            comm.abort();
        }
    }
}
