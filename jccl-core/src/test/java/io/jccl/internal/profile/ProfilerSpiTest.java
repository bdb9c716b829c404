package io.jccl.internal.profile;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.Group;
import io.jccl.Jccl;
import io.jccl.JcclException;
import io.jccl.Profiler;
import io.jccl.RedOp;
import io.jccl.Result;
import io.jccl.internal.comm.InitPhase;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.LogCapture;
import io.jccl.internal.enqueue.GroupLauncher;
import io.jccl.testing.ThreadRanks;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ProfilerSpiTest {

    private static ServiceLoader<Profiler> fixtureServices() throws Exception {
        URL dir = Path.of(ProfilerSpiTest.class.getResource("/profiler-plugin-fixture/").toURI()).toUri().toURL();
        return ServiceLoader.load(Profiler.class, new URLClassLoader(new URL[] {dir},
                ProfilerSpiTest.class.getClassLoader()));
    }

    @Test
    void pluginsAreFoundWithServiceLoaderAndSelectedByJcclProfiler() throws Exception {
        assertThat(Profilers.load(fixtureServices().iterator(), null)).singleElement()
                .isInstanceOf(RecordingProfiler.class);
        assertThat(Profilers.load(fixtureServices().iterator(), "RecordingProfiler")).hasSize(1);
        assertThat(Profilers.load(fixtureServices().iterator(), RecordingProfiler.class.getName())).hasSize(1);
        assertThat(Profilers.load(fixtureServices().iterator(), "none")).isEmpty();
        try (LogCapture c = LogCapture.start(Log.Level.WARN, "")) {
            assertThat(Profilers.load(fixtureServices().iterator(), "Missing")).isEmpty();
            assertThat(c.messages()).singleElement().asString().contains("JCCL_PROFILER names Missing")
                    .contains(RecordingProfiler.class.getName());
        }
    }

    @Test
    void everyCallStartsAndStopsOnceWithItsAlgorithm() {
        RecordingProfiler rec = new RecordingProfiler();
        try (Profilers.Installed p = Profilers.use(List.of(rec))) {
            ThreadRanks.run(2, comm -> {
                float[] small = {comm.rank(), 1};
                comm.allReduce(small, RedOp.SUM);
                MemorySegment big = Arena.ofAuto().allocate(4L * 200_000, 64);
                comm.allReduceAsync(big, big, 200_000, DataType.FLOAT32, RedOp.SUM).join();
                MemorySegment a = Arena.ofAuto().allocate(64);
                MemorySegment b = Arena.ofAuto().allocate(64);
                int peer = 1 - comm.rank();
                try (Group g = Jccl.group()) {
                    comm.send(a, 16, DataType.FLOAT32, peer);
                    comm.recv(b, 16, DataType.FLOAT32, peer);
                }
                comm.barrier();
            });
        }
        assertThat(rec.started()).hasSize(10);
        assertThat(rec.stopped()).hasSize(10);
        for (RecordingProfiler.Stop s : rec.stopped()) {
            assertThat(s.error()).isNull();
            assertThat(s.durationNs()).isPositive();
            assertThat(s.token()).isEqualTo("token-" + s.op().commId() + "-" + s.op().rank() + "-" + s.op().seq());
        }
        List<Profiler.Operation> rank0 = rec.stopped().stream().map(RecordingProfiler.Stop::op)
                .filter(o -> o.rank() == 0).sorted(java.util.Comparator.comparingLong(Profiler.Operation::seq)).toList();
        assertThat(rank0).extracting(Profiler.Operation::collective).containsExactly(Collective.ALL_REDUCE,
                Collective.ALL_REDUCE, Collective.SEND, Collective.RECV, Collective.BARRIER);
        assertThat(rank0).extracting(Profiler.Operation::algorithm).containsExactly("ONE_SHOT", "RING", "P2P", "P2P",
                "RING");
        assertThat(rank0.get(0).bytes()).isEqualTo(8);
        assertThat(rank0.get(1).bytes()).isEqualTo(800_000);
        assertThat(rank0.get(2).peer()).isEqualTo(1);
        assertThat(rec.phases()).extracting(Profiler.InitPhase::phase).containsSubsequence("BOOTSTRAP", "PEER_INFO",
                "TRANSPORTS", "CONNECT", "SHARED_MEMORY", "RUNTIME");
        assertThat(rec.phases()).hasSize(12).allSatisfy(ph -> assertThat(ph.durationNs()).isPositive());
    }

    @Test
    void groupFailuresReachThePluginsAndTheCounters() {
        RecordingProfiler rec = new RecordingProfiler();
        CommProbe probe = Probes.standalone();
        JcclException boom = new JcclException(Result.REMOTE_ERROR, "peer 1 vanished");
        try (Profilers.Installed p = Profilers.use(List.of(rec)); Group g = Jccl.group()) {
            MemorySegment buf = Arena.ofAuto().allocate(64);
            probe.begin(Collective.SEND, 1, 4, DataType.FLOAT32, null, -1, 1, buf, null,
                    Probes.choice(Collective.SEND, 4));
            probe.recorded(null);
            probe.begin(Collective.RECV, 2, 4, DataType.FLOAT32, null, -1, 1, null, buf,
                    Probes.choice(Collective.RECV, 4));
            probe.recorded(null);
            GroupLauncher.Prepared launch = probe.group(new FailingLaunch(boom));
            assertThatThrownBy(launch::await).isSameAs(boom);
        }
        assertThat(rec.stopped()).hasSize(2).allSatisfy(s -> assertThat(s.error()).isSameAs(boom));
        assertThat(probe.counters().failures()).isEqualTo(2);
        assertThat(probe.counters().operationsByCollective()).containsEntry("Send", 1L).containsEntry("Recv", 1L);
    }

    @Test
    void asyncCompletionAndThrowingPluginsAreHandled() {
        RecordingProfiler rec = new RecordingProfiler();
        Profiler broken = new Profiler() {
            @Override
            public Object start(Operation op) {
                throw new IllegalStateException("profiler bug");
            }

            @Override
            public void stop(Object token, Operation op, long durationNs, Throwable error) {
            }
        };
        CommProbe probe = Probes.standalone();
        MemorySegment buf = Arena.ofAuto().allocate(4096);
        try (Profilers.Installed p = Profilers.use(List.of(broken, rec)); LogCapture c = LogCapture.start(
                Log.Level.WARN, "")) {
            CompletableFuture<Void> f = new CompletableFuture<>();
            probe.begin(Collective.ALL_GATHER, 7, 256, DataType.FLOAT32, null, -1, -1, buf, buf,
                    Probes.choice(Collective.ALL_GATHER, 256));
            probe.launched(f);
            assertThat(rec.stopped()).isEmpty();
            f.completeExceptionally(new JcclException(Result.TIMEOUT, "too slow"));
            assertThat(c.messages()).singleElement().asString().contains("failed in start")
                    .contains("disabled for the rest of this process");
            assertThat(Profilers.active()).containsExactly(rec);
        }
        assertThat(rec.stopped()).singleElement().satisfies(s -> {
            assertThat(s.error()).hasMessage("too slow");
            assertThat(s.op().algorithm()).isEqualTo("RING");
            assertThat(s.op().nChannels()).isEqualTo(1);
        });
        assertThat(probe.counters().failures()).isEqualTo(1);
    }

    @Test
    void callsOfAGroupThatNeverLaunchedHereAreEndedAtTheNextCall() {
        RecordingProfiler rec = new RecordingProfiler();
        CommProbe probe = Probes.standalone();
        MemorySegment buf = Arena.ofAuto().allocate(64);
        try (Profilers.Installed p = Profilers.use(List.of(rec))) {
            probe.begin(Collective.SEND, 1, 4, DataType.FLOAT32, null, -1, 1, buf, null,
                    Probes.choice(Collective.SEND, 4));
            probe.recorded(null);
            probe.begin(Collective.ALL_REDUCE, 2, 4, DataType.FLOAT32, RedOp.SUM, -1, -1, buf, buf,
                    Probes.choice(Collective.ALL_REDUCE, 4));
            probe.end(null);
        }
        assertThat(rec.stopped()).hasSize(2);
        assertThat(rec.stopped().get(0).op().collective()).isEqualTo(Collective.SEND);
        assertThat(rec.stopped().get(0).error()).isInstanceOf(JcclException.class)
                .hasMessageContaining("ended without launching them");
        assertThat(rec.stopped().get(1).error()).isNull();
        assertThat(probe.counters().failures()).isEqualTo(1);
    }

    /** A group launch whose wait fails. */
    private record FailingLaunch(JcclException error) implements GroupLauncher.Prepared {
        @Override
        public void connectSends() {
        }

        @Override
        public void finishConnections() {
        }

        @Override
        public void submit(boolean mayInline) {
        }

        @Override
        public void await() {
            throw error;
        }
    }
}
