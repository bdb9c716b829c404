package io.jccl.internal.profile;

import io.jccl.DataType;
import io.jccl.Group;
import io.jccl.Jccl;
import io.jccl.RedOp;
import io.jccl.internal.comm.InitPhase;
import io.jccl.testing.ThreadRanks;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;

/** Records a two-rank run with JFR, dumps it to a file and reads JCCL's events back. */
class JfrEventsTest {

    @Test
    void collectiveAndInitPhaseEventsAreRecorded(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("jccl.jfr");
        Set<String> commIds = ConcurrentHashMap.newKeySet();
        try (Recording r = new Recording()) {
            r.enable(CollectiveEvent.class);
            r.enable(InitPhaseEvent.class);
            r.start();
            assertThat(JfrGate.on()).as("the gate follows the recording").isTrue();
            ThreadRanks.run(2, comm -> {
                commIds.add(comm.id());
                float[] small = {comm.rank(), 1};
                comm.allReduce(small, RedOp.SUM);
                MemorySegment big = Arena.ofAuto().allocate(4L * 300_000, 64);
                comm.allReduceAsync(big, big, 300_000, DataType.FLOAT32, RedOp.SUM).join();
                MemorySegment a = Arena.ofAuto().allocate(400);
                MemorySegment b = Arena.ofAuto().allocate(400);
                try (Group g = Jccl.group()) {
                    comm.send(a, 100, DataType.INT32, 1 - comm.rank());
                    comm.recv(b, 100, DataType.INT32, 1 - comm.rank());
                }
            });
            r.stop();
            r.dump(file);
        }
        assertThat(JfrGate.on()).isFalse();
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);
        List<RecordedEvent> colls = events.stream().filter(e -> e.getEventType().getName().equals("io.jccl.Collective"))
                .filter(e -> commIds.contains(e.getString("commId")))
                .sorted(Comparator.comparingInt((RecordedEvent e) -> e.getInt("rank"))
                        .thenComparingLong(e -> e.getLong("seq"))).toList();
        assertThat(colls).hasSize(8);
        RecordedEvent first = colls.get(0);
        assertThat(first.getInt("rank")).isZero();
        assertThat(first.getInt("nRanks")).isEqualTo(2);
        assertThat(first.getLong("seq")).isEqualTo(1);
        assertThat(first.getString("collective")).isEqualTo("AllReduce");
        assertThat(first.getLong("count")).isEqualTo(2);
        assertThat(first.getString("dataType")).isEqualTo("float");
        assertThat(first.getLong("bytes")).isEqualTo(8);
        assertThat(first.getString("algorithm")).isEqualTo("ONE_SHOT");
        assertThat(first.getString("protocol")).isEqualTo("SIMPLE");
        assertThat(first.getDuration().toNanos()).isPositive();
        assertThat(first.getString("error")).isNull();
        RecordedEvent ring = colls.get(1);
        assertThat(ring.getString("algorithm")).isEqualTo("RING");
        assertThat(ring.getBoolean("async")).isTrue();
        assertThat(ring.getLong("bytes")).isEqualTo(1_200_000);
        assertThat(colls.subList(2, 4)).extracting(e -> e.getString("collective")).containsExactly("Send", "Recv");
        assertThat(colls.subList(2, 4)).allSatisfy(e -> {
            assertThat(e.getBoolean("grouped")).isTrue();
            assertThat(e.getString("algorithm")).isEqualTo("P2P");
            assertThat(e.getInt("peer")).isEqualTo(1);
        });
        List<RecordedEvent> phases = events.stream().filter(e -> e.getEventType().getName().equals("io.jccl.InitPhase"))
                .filter(e -> commIds.contains(e.getString("commId"))).toList();
        for (int rank = 0; rank < 2; rank++) {
            int rk = rank;
            assertThat(phases.stream().filter(e -> e.getInt("rank") == rk).map(e -> e.getString("phase")))
                    .containsExactlyInAnyOrder("BOOTSTRAP", "PEER_INFO", "TRANSPORTS", "CONNECT", "SHARED_MEMORY",
                            "RUNTIME", "INIT");
        }
        RecordedEvent init = phases.stream().filter(e -> e.getString("phase").equals("INIT")).findFirst().orElseThrow();
        RecordedEvent boot = phases.stream().filter(e -> e.getString("phase").equals("BOOTSTRAP")
                && e.getInt("rank") == init.getInt("rank")).findFirst().orElseThrow();
        assertThat(init.getDuration()).isGreaterThanOrEqualTo(boot.getDuration());
    }
}
