package io.jccl.cuda.internal.comm;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.Result;
import io.jccl.internal.algorithm.Fingerprint;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

class CallLedgerTest {
    private static long allReduce(long count) {
        return Fingerprint.of(Collective.ALL_REDUCE, count, DataType.FLOAT32, RedOp.Kind.SUM, 0);
    }

    @Test
    void matchingCallsPassWhicheverRankIsAhead() {
        CallLedger l = new CallLedger(3);
        for (int i = 0; i < 1000; i++) {
            assertThat(l.record(0, allReduce(i), "r0")).isNull();
        }
        for (int i = 0; i < 1000; i++) {
            assertThat(l.record(1, allReduce(i), "r1")).isNull();
            assertThat(l.record(2, allReduce(i), "r2")).isNull();
        }
    }

    @Test
    void aDifferentCountAtTheSamePositionNamesBothCalls() {
        CallLedger l = new CallLedger(2);
        assertThat(l.record(0, allReduce(8), "r0")).isNull();
        assertThat(l.record(0, allReduce(1000), "r0")).isNull();
        assertThat(l.record(1, allReduce(8), "r1")).isNull();
        JcclException e = l.record(1, allReduce(2000), "GpuCommunicator rank 1/2: allReduce");
        assertThat(e).isNotNull();
        assertThat(e.result()).isEqualTo(Result.INVALID_USAGE);
        assertThat(e.getMessage()).startsWith("GpuCommunicator rank 1/2: allReduce: collective call 2 of this rank")
                .contains("AllReduce(count 2000 float", "rank 0's call 2, AllReduce(count 1000 float");
    }

    @Test
    void rootTypeOpAndCollectiveAreCompared() {
        long[] others = {
            Fingerprint.of(Collective.ALL_REDUCE, 64, DataType.FLOAT16, RedOp.Kind.SUM, 0),
            Fingerprint.of(Collective.ALL_REDUCE, 64, DataType.FLOAT32, RedOp.Kind.MAX, 0),
            Fingerprint.of(Collective.REDUCE, 64, DataType.FLOAT32, RedOp.Kind.SUM, 0),
            Fingerprint.of(Collective.BROADCAST, 64, DataType.FLOAT32, null, 1),
        };
        for (long theirs : others) {
            CallLedger l = new CallLedger(2);
            assertThat(l.record(0, theirs, "r0")).isNull();
            assertThat(l.record(1, allReduce(64), "r1")).as(Fingerprint.describe(theirs)).isNotNull();
        }
        CallLedger l = new CallLedger(2);
        assertThat(l.record(0, Fingerprint.of(Collective.BROADCAST, 64, DataType.FLOAT32, null, 0), "r0")).isNull();
        assertThat(l.record(1, Fingerprint.of(Collective.BROADCAST, 64, DataType.FLOAT32, null, 1), "r1"))
                .isNotNull().extracting(Throwable::getMessage).asString().contains("root 1", "root 0");
    }

    @Test
    void theNthSendToAPeerIsPairedWithThatPeersNthReceiveFromTheSender() {
        CallLedger l = new CallLedger(3);
        assertThat(l.recordSend(0, 1, 4096, "r0")).isNull();
        assertThat(l.recordSend(0, 1, 100, "r0")).isNull();
        assertThat(l.recordSend(2, 1, 8, "r2")).isNull();             // another sender: its own pairing
        assertThat(l.recordRecv(1, 2, 8, "r1")).isNull();
        assertThat(l.recordRecv(1, 0, 4096, "r1")).isNull();
        JcclException e = l.recordRecv(1, 0, 50, "GpuCommunicator rank 1/3: recv");
        assertThat(e).isNotNull();
        assertThat(e.result()).isEqualTo(Result.INVALID_USAGE);
        assertThat(e.getMessage()).startsWith("GpuCommunicator rank 1/3: recv: receive 2 from rank 0 is 50 bytes,"
                + " but rank 0's send 2 to this rank is 100 bytes");

        CallLedger first = new CallLedger(2);
        assertThat(first.recordRecv(1, 0, 64, "r1")).isNull();       // the receive may come first
        assertThat(first.recordSend(0, 1, 32, "r0")).isNotNull().extracting(Throwable::getMessage).asString()
                .contains("send 1 to rank 1 is 32 bytes, but rank 1's receive 1 from this rank is 64 bytes");
    }

    @Test
    void aRankMoreThanTheWindowAheadIsNotComparedRatherThanMisread() {
        CallLedger l = new CallLedger(2);
        for (int i = 0; i < CallLedger.WINDOW + 5; i++) {
            assertThat(l.record(0, allReduce(i), "r0")).isNull();
        }
        // rank 1's first calls were overwritten in rank 0's row: no comparison, no false alarm
        assertThat(l.record(1, allReduce(12345), "r1")).isNull();
    }

    @Test
    void twoThreadsIssuingTheSameLongSequenceSeeNoMismatch() throws Exception {
        CallLedger l = new CallLedger(2);
        AtomicReference<JcclException> seen = new AtomicReference<>();
        CountDownLatch go = new CountDownLatch(1);
        Thread[] ts = new Thread[2];
        for (int r = 0; r < 2; r++) {
            int rank = r;
            ts[r] = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < 200_000; i++) {
                    JcclException e = l.record(rank, allReduce(i % 977), "r" + rank);
                    if (e != null) {
                        seen.compareAndSet(null, e);
                    }
                }
            });
            ts[r].start();
        }
        go.countDown();
        for (Thread t : ts) {
            t.join();
        }
        assertThat(seen.get()).isNull();
    }
}
