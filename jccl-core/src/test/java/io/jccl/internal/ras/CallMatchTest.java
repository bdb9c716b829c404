package io.jccl.internal.ras;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.RedOp;
import io.jccl.internal.ras.RasMessages.PeerStatus;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The call log and its comparison, without ranks: what differs is named, what agrees or cannot be compared is not. */
class CallMatchTest {
    private static PeerStatus status(CallLog log, long issued, long completed, Collective op, int inFlightMs, int peer) {
        return new PeerStatus(issued, completed, op, inFlightMs, "", peer, log.recent());
    }

    private static CallLog log(int calls, Collective last, DataType type, RedOp op, int root) {
        CallLog l = new CallLog();
        for (int i = 1; i < calls; i++) {
            l.called(Collective.ALL_REDUCE, 16, DataType.FLOAT32, RedOp.SUM, -1);
        }
        l.called(last, 1000, type, op, root);
        return l;
    }

    @Test
    void equalLogsAgreeAndEachDifferenceIsNamedAsWritten() {
        CallLog mine = log(5, Collective.ALL_REDUCE, DataType.FLOAT32, RedOp.SUM, -1);
        PeerStatus own = status(mine, 5, 4, Collective.ALL_REDUCE, 0, -1);
        assertThat(CallMatch.compare(0, mine, () -> own, 1,
                status(log(5, Collective.ALL_REDUCE, DataType.FLOAT32, RedOp.SUM, -1), 5, 4,
                        Collective.ALL_REDUCE, 0, -1), 500)).isNull();
        assertThat(CallMatch.compare(0, mine, () -> own, 1, status(log(5, Collective.BROADCAST, DataType.FLOAT32, null, 2),
                5, 4, Collective.BROADCAST, 0, -1), 500))
                .startsWith("rank 1 called Broadcast(count 1000 float root 2) where rank 0 called "
                        + "AllReduce(count 1000 float sum) (collective call 5");
        assertThat(CallMatch.compare(0, mine, () -> own, 1, status(log(5, Collective.ALL_REDUCE, DataType.INT32,
                RedOp.MAX, -1), 5, 4, Collective.ALL_REDUCE, 0, -1), 500))
                .contains("rank 1 called AllReduce(count 1000 int32 max)");
    }

    @Test
    void aPeerAheadIsComparedAtTheCallsBothStillHold() {
        CallLog mine = log(5, Collective.BROADCAST, DataType.FLOAT32, null, 0);
        CallLog theirs = log(5, Collective.ALL_REDUCE, DataType.FLOAT32, RedOp.SUM, -1);
        for (int i = 0; i < 20; i++) {
            theirs.called(Collective.ALL_REDUCE, 16, DataType.FLOAT32, RedOp.SUM, -1);
        }
        String f = CallMatch.compare(0, mine, () -> status(mine, 5, 4, Collective.BROADCAST, 0, -1), 1,
                status(theirs, 25, 24, Collective.ALL_REDUCE, 0, -1), 500);
        assertThat(f).contains("rank 1 called AllReduce(count 1000 float sum) where rank 0 called "
                + "Broadcast(count 1000 float root 0) (collective call 5");
    }

    @Test
    void aDifferenceOlderThanTheLogIsStillFoundThroughTheDigest() {
        CallLog mine = log(3, Collective.BROADCAST, DataType.FLOAT32, null, 0);
        CallLog theirs = log(3, Collective.BROADCAST, DataType.FLOAT32, null, 1);
        for (int i = 0; i < 2 * CallLog.DEPTH; i++) {
            mine.called(Collective.BARRIER, 1, DataType.INT32, RedOp.SUM, -1);
            theirs.called(Collective.BARRIER, 1, DataType.INT32, RedOp.SUM, -1);
        }
        assertThat(mine.find(3)).isNull();
        String f = CallMatch.compare(0, mine, () -> status(mine, 67, 67, Collective.BARRIER, 0, -1), 1,
                status(theirs, 67, 67, Collective.BARRIER, 0, -1), 500);
        assertThat(f).contains("made different collective calls before their call");
    }

    @Test
    void callsTooFarApartAreNotCompared() {
        CallLog mine = log(2, Collective.ALL_REDUCE, DataType.FLOAT32, RedOp.SUM, -1);
        CallLog theirs = log(2 + CallLog.DEPTH * 2, Collective.BROADCAST, DataType.FLOAT32, null, 0);
        assertThat(CallMatch.compare(0, mine, () -> status(mine, 2, 1, Collective.ALL_REDUCE, 0, -1), 1,
                status(theirs, 70, 69, Collective.BROADCAST, 0, -1), 500)).isNull();
    }

    @Test
    void aReceiveThatWaitsForARankInACollectiveIsNamedOnlyWhenBothWaitAlone() {
        CallLog mine = log(3, Collective.ALL_REDUCE, DataType.FLOAT32, RedOp.SUM, -1);
        CallLog theirs = new CallLog();
        theirs.called(Collective.ALL_REDUCE, 16, DataType.FLOAT32, RedOp.SUM, -1);
        theirs.called(Collective.ALL_REDUCE, 16, DataType.FLOAT32, RedOp.SUM, -1);
        PeerStatus own = status(mine, 9, 8, Collective.ALL_REDUCE, 900, -1);
        PeerStatus recv = status(theirs, 8, 7, Collective.RECV, 900, 0);
        assertThat(CallMatch.compare(0, mine, () -> own, 1, recv, 500))
                .startsWith("rank 1 waits in Recv from rank 0 while rank 0 waits in AllReduce(count 1000 float sum)");
        // not yet long enough, another transfer still in flight, or a receive from someone else: no finding
        assertThat(CallMatch.compare(0, mine, () -> status(mine, 9, 8, Collective.ALL_REDUCE, 100, -1), 1, recv, 500))
                .isNull();
        assertThat(CallMatch.compare(0, mine, () -> own, 1, status(theirs, 8, 6, Collective.RECV, 900, 0), 500)).isNull();
        assertThat(CallMatch.compare(0, mine, () -> own, 1, status(theirs, 8, 7, Collective.RECV, 900, 2), 500)).isNull();
    }

    @Test
    void theHeartbeatCarriesTheLogIntact() {
        CallLog l = log(40, Collective.REDUCE, DataType.FLOAT64, RedOp.PROD, 3);
        PeerStatus s = status(l, 40, 39, Collective.REDUCE, 12, -1);
        PeerStatus back = PeerStatus.decode(s.encode());
        assertThat(back.calls()).containsExactly(s.calls());
        assertThat(back.calls()).hasSize(CallLog.DEPTH);
        assertThat(back.calls()[CallLog.DEPTH - 1].describe()).isEqualTo("Reduce(count 1000 double prod root 3)");
    }
}
