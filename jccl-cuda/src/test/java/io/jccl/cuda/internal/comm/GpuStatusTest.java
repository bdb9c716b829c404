package io.jccl.cuda.internal.comm;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.RedOp;
import io.jccl.internal.base.Fingerprint;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;

import static org.assertj.core.api.Assertions.assertThat;

/** The GPU communicator's section of the status answer, from a ledger the test fills (no GPU needed). */
class GpuStatusTest {
    private static final long ALL_REDUCE = Fingerprint.of(Collective.ALL_REDUCE, 1000, DataType.FLOAT32,
            RedOp.Kind.SUM, 0);
    private static final long BROADCAST = Fingerprint.of(Collective.BROADCAST, 64, DataType.BFLOAT16, null, 2);

    private static CallLedger ledger(int nRanks) {
        return new CallLedger(nRanks, Arena.ofAuto().allocate(CallLedger.bytes(nRanks), 64));
    }

    @Test
    void namesTheCallSomeRanksHaveNotLaunchedAndTheRanks() {
        CallLedger l = ledger(4);
        for (int r = 0; r < 4; r++) {
            assertThat(l.record(r, ALL_REDUCE, "r")).isNull();
        }
        assertThat(l.record(0, BROADCAST, "r0")).isNull();
        assertThat(l.record(2, BROADCAST, "r2")).isNull();
        String s = GpuStatus.format("GPU communicator x: 4 ranks: healthy", l, false);
        assertThat(s).startsWith("GPU communicator x: 4 ranks: healthy\n")
                .containsPattern("\\n  0 +2 +Broadcast\\(count 64 bfloat16 root 2\\)\\n")
                .containsPattern("\\n  1 +1 +AllReduce\\(count 1000 float sum\\)\\n")
                .contains("collective call 2, Broadcast(count 64 bfloat16 root 2): not yet launched by rank(s) 1, 3 ");
    }

    @Test
    void ranksInStepShowNoStuckCallAndUnmatchedSendsAreListed() {
        CallLedger l = ledger(2);
        assertThat(l.record(0, ALL_REDUCE, "r0")).isNull();
        assertThat(l.record(1, ALL_REDUCE, "r1")).isNull();
        assertThat(l.recordSend(0, 1, 4096, "r0")).isNull();
        assertThat(l.recordSend(0, 1, 4096, "r0")).isNull();
        assertThat(l.recordRecv(1, 0, 4096, "r1")).isNull();
        String s = GpuStatus.format("h", l, false);
        assertThat(s).doesNotContain("not yet launched").contains("  rank 0 to rank 1: 2 send(s), 1 receive(s)\n")
                .doesNotContain("rank 1 to rank 0");
    }

    @Test
    void saysWhereCallsAreNotVisible() {
        assertThat(GpuStatus.format("h", null, false)).contains("not visible (the ranks share no control memory)");
        assertThat(GpuStatus.format("h", ledger(2), true)).contains("compared over the host communicator")
                .doesNotContain("last collective");
    }
}
