package io.jccl;

import io.jccl.internal.ras.RasClient;
import io.jccl.internal.ras.RasServer;
import io.jccl.testing.ThreadRanks;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** The status port shows every rank, the operation in flight, who has not reached it and what the waiters wait for. */
class RasStatusTest {
    @Test
    void aStuckAllReduceIsDiagnosedByTheStatusPort() {
        AtomicReference<String> report = new AtomicReference<>();
        CountDownLatch queried = new CountDownLatch(1);
        ThreadRanks.run(3, Config.defaults().withTimeout(Duration.ofSeconds(30)).withName("ras-test"), comm -> {
            float[] d = new float[100_000];
            comm.allReduce(d, RedOp.SUM);                // seq 1 completes everywhere
            if (comm.rank() == 2) {
                // rank 2 is late for seq 2: wait until the others' heartbeats show them stuck, then ask
                Thread.sleep(2_500);
                InetSocketAddress a = RasServer.address();
                assertThat(a).as("rank 0 lives in this process, so it has a status port").isNotNull();
                report.set(RasClient.query(a, "status", 5000));
                queried.countDown();
            }
            comm.allReduce(d, RedOp.SUM);
            queried.await();
        });
        String r = report.get();
        System.out.println(r);
        assertThat(r).contains("Communicator").contains("(ras-test)").contains("3 ranks, seen from rank 0")
                .contains("healthy");
        String comm = r.substring(r.indexOf("(ras-test)"));
        comm = comm.substring(0, comm.contains("\nCommunicator") ? comm.indexOf("\nCommunicator") : comm.length());
        assertThat(comm).containsPattern("\\n  0 .*alive .* 1 .*AllReduce seq 2")
                .containsPattern("\\n  1 .*alive .* 1 .*AllReduce seq 2")
                .containsPattern("\\n  2 .*alive .* 1 ")
                .contains("operation seq 2 is in flight; ranks [2] have not issued it yet")
                .contains("its waiting ranks wait for ranks [");
        assertThat(r).containsPattern("Resources: \\d+ open files, \\d+ platform threads")
                .containsPattern("rank 2: \\d+ bootstrap sockets, \\d+ in-process bootstrap peers, 2 connectors to 2 "
                        + "peers");
    }

    @Test
    void unknownRequestsGetAnErrorAndHelpListsTheCommands() {
        assertThat(RasServer.answer(RasServer.Command.parse("bogus".getBytes(), 5))).startsWith("error: unknown command");
        assertThat(RasServer.answer(RasServer.Command.HELP)).contains("status");
        assertThat(RasServer.Command.parse("  STATUS \r".getBytes(), 10)).isEqualTo(RasServer.Command.STATUS);
        assertThat(RasServer.Command.parse(new byte[300], 300)).isNull();
    }
}
