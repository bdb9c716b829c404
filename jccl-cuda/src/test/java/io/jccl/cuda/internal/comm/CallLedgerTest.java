package io.jccl.cuda.internal.comm;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.Result;
import io.jccl.internal.base.Fingerprint;
import io.jccl.internal.transport.shm.ShmFiles;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

class CallLedgerTest {
    private static CallLedger ledger(int nRanks) {
        return new CallLedger(nRanks, Arena.ofAuto().allocate(CallLedger.bytes(nRanks), 64));
    }

    private static long allReduce(long count) {
        return Fingerprint.of(Collective.ALL_REDUCE, count, DataType.FLOAT32, RedOp.Kind.SUM, 0);
    }

    @Test
    void matchingCallsPassWhicheverRankIsAhead() {
        CallLedger l = ledger(3);
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
        CallLedger l = ledger(2);
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
            CallLedger l = ledger(2);
            assertThat(l.record(0, theirs, "r0")).isNull();
            assertThat(l.record(1, allReduce(64), "r1")).as(Fingerprint.describe(theirs)).isNotNull();
        }
        CallLedger l = ledger(2);
        assertThat(l.record(0, Fingerprint.of(Collective.BROADCAST, 64, DataType.FLOAT32, null, 0), "r0")).isNull();
        assertThat(l.record(1, Fingerprint.of(Collective.BROADCAST, 64, DataType.FLOAT32, null, 1), "r1"))
                .isNotNull().extracting(Throwable::getMessage).asString().contains("root 1", "root 0");
    }

    @Test
    void theNthSendToAPeerIsPairedWithThatPeersNthReceiveFromTheSender() {
        CallLedger l = ledger(3);
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

        CallLedger first = ledger(2);
        assertThat(first.recordRecv(1, 0, 64, "r1")).isNull();       // the receive may come first
        assertThat(first.recordSend(0, 1, 32, "r0")).isNotNull().extracting(Throwable::getMessage).asString()
                .contains("send 1 to rank 1 is 32 bytes, but rank 1's receive 1 from this rank is 64 bytes");
    }

    @Test
    void aRankMoreThanTheWindowAheadIsNotComparedRatherThanMisread() {
        CallLedger l = ledger(2);
        for (int i = 0; i < CallLedger.WINDOW + 5; i++) {
            assertThat(l.record(0, allReduce(i), "r0")).isNull();
        }
        // rank 1's first calls were overwritten in rank 0's row: no comparison, no false alarm
        assertThat(l.record(1, allReduce(12345), "r1")).isNull();
    }

    @Test
    void twoThreadsIssuingTheSameLongSequenceSeeNoMismatch() throws Exception {
        CallLedger l = ledger(2);
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

    /** Two mappings of one shared-memory file, as two processes have: calls made through one are seen through the other. */
    @Test
    void twoMappingsOfOneSharedFileAreOneLedger() {
        String name = ShmFiles.PREFIX + "test-ledger-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        try (Arena a = Arena.ofShared(); Arena b = Arena.ofShared()) {
            MemorySegment first = ShmFiles.create(name, CallLedger.bytes(2), a);
            MemorySegment second = ShmFiles.attach(name, CallLedger.bytes(2), b);
            assertThat(second.address()).isNotEqualTo(first.address());
            CallLedger rank0 = new CallLedger(2, first);
            CallLedger rank1 = new CallLedger(2, second);
            assertThat(rank0.record(0, allReduce(10), "r0")).isNull();
            assertThat(rank1.record(1, allReduce(10), "r1")).isNull();
            assertThat(rank1.recordSend(1, 0, 64, "r1")).isNull();
            assertThat(rank0.recordRecv(0, 1, 32, "r0")).isNotNull();
            assertThat(rank1.record(1, allReduce(20), "r1")).isNull();
            assertThat(rank0.record(0, allReduce(30), "r0")).isNotNull().extracting(Throwable::getMessage).asString()
                    .contains("count 30", "rank 1's call 2, AllReduce(count 20");
        } finally {
            ShmFiles.unlink(name);
        }
    }

    @Test
    void aLedgerRefusesMemoryTooSmallForItsRanks() {
        MemorySegment small = Arena.ofAuto().allocate(CallLedger.bytes(2));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new CallLedger(3, small))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("3 ranks");
    }

    @Test
    void theFirstStopNoteWinsAndEveryReaderGetsIt() {
        MemorySegment m = Arena.ofAuto().allocate(StopNote.BYTES);
        StopNote writer = new StopNote(m);
        StopNote reader = new StopNote(m);
        assertThat(reader.read()).isNull();
        assertThat(writer.post(new JcclException(Result.INVALID_USAGE, "rank 1: call 3 differs"))).isTrue();
        assertThat(reader.post(new JcclException(Result.ABORTED, "rank 0 called abort()"))).isFalse();
        JcclException e = reader.read();
        assertThat(e.result()).isEqualTo(Result.INVALID_USAGE);
        assertThat(e.getMessage()).isEqualTo("rank 1: call 3 differs");
        StopNote longOne = new StopNote(Arena.ofAuto().allocate(StopNote.BYTES));
        longOne.post(new JcclException(Result.TIMEOUT, "é".repeat(5000)));
        assertThat(longOne.read().getMessage().getBytes(java.nio.charset.StandardCharsets.UTF_8))
                .hasSizeLessThanOrEqualTo(StopNote.MAX_MESSAGE_BYTES);
    }
}
