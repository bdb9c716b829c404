package io.jccl.tools.perf;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.RedOp;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The host backend's mapping onto the Communicator API, against a recording fake communicator. */
class HostBackendTest {

    record Call(String method, Object[] args) {
        MemorySegment seg(int i) {
            return (MemorySegment) args[i];
        }
    }

    static final class Recorder {
        final List<Call> calls = new ArrayList<>();
        final Communicator comm;

        Recorder(int rank, int size) {
            comm = (Communicator) Proxy.newProxyInstance(Communicator.class.getClassLoader(),
                    new Class<?>[]{Communicator.class}, (proxy, m, args) -> switch (m.getName()) {
                        case "rank" -> rank;
                        case "size" -> size;
                        case "hashCode" -> 0;
                        case "equals" -> proxy == args[0];
                        case "toString" -> "fake comm";
                        default -> {
                            calls.add(new Call(m.getName(), args));
                            if (m.getName().equals("allGather")) {
                                MemorySegment s = (MemorySegment) args[0];
                                MemorySegment r = (MemorySegment) args[1];
                                r.asSlice((long) rank * s.byteSize(), s.byteSize()).copyFrom(s);
                            }
                            yield null;
                        }
                    });
        }
    }

    private static CollectiveCall call(HostBackend b, PerfCollective c, long size, boolean inPlace, int root) {
        BufferLayout l = BufferLayout.of(c, size, 4, b.nRanks());
        PerfBuffer s = b.allocate(size);
        PerfBuffer r = b.allocate(size);
        return CollectiveCall.of(c, l, inPlace, s, r, DataType.FLOAT32, RedOp.MAX, root, b.rank());
    }

    @Test
    void eachCollectiveGoesToItsCommunicatorMethodWithTheRightSlices() {
        Recorder rec = new Recorder(1, 4);
        HostBackend b = new HostBackend(rec.comm, 1);
        CollectiveCall ar = call(b, PerfCollective.ALL_REDUCE, 1024, false, -1);
        b.prepare(ar).launch();
        Call c = rec.calls.getLast();
        assertThat(c.method()).isEqualTo("allReduce");
        assertThat(c.seg(0).byteSize()).isEqualTo(1024);
        assertThat(c.args()[2]).isEqualTo(256L);
        assertThat(c.args()[3]).isEqualTo(DataType.FLOAT32);
        assertThat(c.args()[4]).isEqualTo(RedOp.MAX);

        CollectiveCall ag = call(b, PerfCollective.ALL_GATHER, 1024, true, -1);
        b.prepare(ag).launch();
        c = rec.calls.getLast();
        assertThat(c.method()).isEqualTo("allGather");
        // in place: rank 1's 64 floats start at 64 * 4 bytes into the receive buffer
        assertThat(c.seg(0).address() - c.seg(1).address()).isEqualTo(256);
        assertThat(c.seg(0).byteSize()).isEqualTo(256);
        assertThat(c.seg(1).byteSize()).isEqualTo(1024);
        assertThat(c.args()[2]).isEqualTo(64L);

        b.prepare(call(b, PerfCollective.REDUCE, 64, false, 3)).launch();
        assertThat(rec.calls.getLast().method()).isEqualTo("reduce");
        assertThat(rec.calls.getLast().args()[5]).isEqualTo(3);
        for (PerfCollective pc : new PerfCollective[]{PerfCollective.BROADCAST, PerfCollective.REDUCE_SCATTER,
                PerfCollective.ALL_TO_ALL, PerfCollective.GATHER, PerfCollective.SCATTER}) {
            b.prepare(call(b, pc, 256, false, 0)).launch();
            String expected = switch (pc) {
                case BROADCAST -> "broadcast";
                case REDUCE_SCATTER -> "reduceScatter";
                case ALL_TO_ALL -> "allToAll";
                case GATHER -> "gather";
                default -> "scatter";
            };
            assertThat(rec.calls.getLast().method()).isEqualTo(expected);
        }
        b.close();
    }

    @Test
    void sendRecvSendsToTheNextRankAndReceivesFromThePrevious() {
        Recorder rec = new Recorder(0, 3);
        HostBackend b = new HostBackend(rec.comm, 0);
        b.prepare(call(b, PerfCollective.SEND_RECV, 64, false, -1)).launch();
        assertThat(rec.calls).extracting(Call::method).containsExactly("send", "recv");
        assertThat(rec.calls.get(0).args()[3]).isEqualTo(1);
        assertThat(rec.calls.get(1).args()[3]).isEqualTo(2);
        b.close();
    }

    @Test
    void statisticsUseSmallCollectives() {
        Recorder rec = new Recorder(0, 4);
        HostBackend b = new HostBackend(rec.comm, 0);
        // the fake leaves the value unchanged, as if all four ranks had the same: the average divides the sum by 4
        assertThat(b.reduceStat(2.0, PerfBackend.StatMode.AVG)).isEqualTo(0.5);
        assertThat(rec.calls.getLast().method()).isEqualTo("allReduce");
        assertThat(rec.calls.getLast().args()[4]).isEqualTo(RedOp.SUM);
        assertThat(b.reduceStat(2.0, PerfBackend.StatMode.MIN)).isEqualTo(2.0);
        assertThat(rec.calls.getLast().args()[4]).isEqualTo(RedOp.MIN);
        assertThat(b.reduceStat(2.0, PerfBackend.StatMode.RANK0)).isEqualTo(2.0);
        assertThat(rec.calls.getLast().method()).isEqualTo("broadcast");
        assertThat(b.sumLong(7)).isEqualTo(7);
        assertThat(rec.calls.getLast().args()[3]).isEqualTo(DataType.INT64);
        b.close();
    }

    @Test
    void gatherLinesRoundTripsText() {
        Recorder rec = new Recorder(0, 1);
        HostBackend b = new HostBackend(rec.comm, 0);
        assertThat(b.gatherLines("#  Rank  0 Group  0 ünïcödé")).containsExactly("#  Rank  0 Group  0 ünïcödé");
        assertThat(b.gatherLines("x".repeat(2000)).getFirst()).hasSize(RankStats.LINE_BYTES - 1);
        assertThat(b.deviceBusId()).isEqualTo("host");
        assertThat(b.deviceName()).isNotBlank();
        b.close();
    }

    @Test
    void abortAndCloseReachTheCommunicator() {
        Recorder rec = new Recorder(0, 2);
        HostBackend b = new HostBackend(rec.comm, 0);
        b.abort();
        b.close();
        assertThat(rec.calls).extracting(Call::method).containsExactly("abort", "close");
    }
}
