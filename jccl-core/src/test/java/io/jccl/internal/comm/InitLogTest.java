package io.jccl.internal.comm;

import io.jccl.RedOp;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.LogCapture;
import io.jccl.testing.ThreadRanks;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The INFO lines NCCL users look for, from a real two-rank communicator. */
class InitLogTest {

    @Test
    void initAndCallLinesHaveNcclsShape() {
        List<LogCapture.Line> lines;
        String[] id = new String[1];
        try (LogCapture c = LogCapture.start(Log.Level.INFO, "INIT,GRAPH,TUNING,COLL,BOOTSTRAP")) {
            ThreadRanks.run(2, comm -> {
                id[0] = comm.id();
                float[] x = {1, 2};
                comm.allReduce(x, RedOp.SUM);
            });
            lines = c.lines();
        }
        List<String> rank0 = lines.stream().filter(l -> l.rank() == 0).map(LogCapture.Line::message).toList();
        String comm = id[0];
        assertThat(rank0).contains("comm " + comm + " rank 0 nRanks 2 - Init START",
                "comm " + comm + " rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0",
                "Ring 00 : 1 -> 0 -> 1",
                "Connected all rings; transports to peers: 1:SHM",
                "AllReduce: 8 Bytes -> Algo ONE_SHOT proto SIMPLE channel{Lo..Hi}={0..0}");
        assertThat(rank0).anyMatch(m -> m.matches("Channel 00/0[1-9] : 0 1"));
        assertThat(rank0).anyMatch(m -> m.matches("Channel 00/0 : 0 -> 1 via SHM"));
        assertThat(rank0).anyMatch(m -> m.startsWith("Bootstrap"));
        assertThat(rank0).anyMatch(m -> m.startsWith("Host ") && m.endsWith(": ranks 0,1"));
        assertThat(rank0).anyMatch(m -> m.startsWith("AllReduce algorithm/channels by size (float, sum): 4 KiB ONE_SHOT/1"));
        assertThat(rank0).anyMatch(m -> m.matches("AllReduce: opCount 1 sendbuff heap\\[8] recvbuff heap\\[8] count 2 "
                + "datatype float op sum root -1 peer -1 comm " + comm + " \\[nranks=2]"));
        assertThat(rank0).anyMatch(m -> m.contains(" - Init COMPLETE"));
        assertThat(rank0.indexOf("comm " + comm + " rank 0 nRanks 2 - Init START"))
                .isLessThan(rank0.indexOf("Ring 00 : 1 -> 0 -> 1"));
    }

    /**
     * What grows with the communicator, per rank at INFO (sockets, in-process peers, connectors, threads) and, on
     * rank 0, the process's open files and platform threads: the counts the status port shows under "Resources".
     */
    @Test
    void everyRankSaysWhatItHoldsAtInfo() {
        List<LogCapture.Line> lines;
        try (LogCapture c = LogCapture.start(Log.Level.INFO, "INIT")) {
            ThreadRanks.run(3, comm -> comm.barrier());
            lines = c.lines();
        }
        String holds = " holds \\d+ bootstrap sockets, \\d+ in-process bootstrap peers, 2 connectors to 2 peers, "
                + "1 channel threads; memory: .*";
        for (int r = 0; r < 3; r++) {
            int rank = r;
            assertThat(lines).filteredOn(l -> l.rank() == rank).map(LogCapture.Line::message)
                    .anyMatch(m -> m.matches("comm \\w+ rank " + rank + holds));
        }
        assertThat(lines).filteredOn(l -> l.rank() == 0).map(LogCapture.Line::message)
                .anyMatch(m -> m.matches("comm \\w+ rank 0" + holds + "; process: \\d+ open files, \\d+ platform threads"));
    }
}
