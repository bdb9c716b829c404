package io.jccl;

import io.jccl.testing.ThreadRanks;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Point-to-point work that receives into the very bytes it sends to the same peer gives exact results: an in-place
 * allToAll (block p goes to rank p and is replaced by rank p's block), and a send and a receive of one buffer with one
 * peer inside a group. Messages are larger than the connectors' buffering, so a receive that overwrote bytes not yet
 * sent would show.
 */
class InPlaceP2pTest {
    @ParameterizedTest(name = "{0} ranks, {1} ints per block, {2} channel(s)")
    @CsvSource({"2, 5, 1", "3, 1000000, 1", "4, 1000000, 2"})
    void allToAllInPlaceGivesExactResults(int n, int count, int channels) {
        ThreadRanks.run(n, ThreadRanks.testConfig().withChannels(channels, channels), comm -> {
            int r = comm.rank();
            int[] data = new int[n * count];
            MemorySegment s = MemorySegment.ofArray(data);
            for (int round = 0; round < 3; round++) {
                for (int p = 0; p < n; p++) {
                    for (int i = 0; i < count; i++) {
                        data[p * count + i] = (round * 100 + r * 10 + p) * 1_000_000 + i;
                    }
                }
                comm.allToAll(s, s, count, DataType.INT32);
                for (int p = 0; p < n; p++) {
                    for (int i = 0; i < count; i++) {
                        int exp = (round * 100 + p * 10 + r) * 1_000_000 + i;
                        if (data[p * count + i] != exp) {
                            throw new AssertionError("round " + round + " rank " + r + " block " + p + " element " + i
                                    + ": " + data[p * count + i] + ", expected " + exp);
                        }
                    }
                }
            }
        });
    }

    @ParameterizedTest(name = "{0} ints")
    @ValueSource(ints = {3, 2_000_000})
    void inPlaceSendAndRecvOfOneBlockInAGroupGiveExactResults(int count) {
        ThreadRanks.run(2, comm -> {
            int peer = 1 - comm.rank();
            MemorySegment buf = Arena.ofAuto().allocate(4L * count, 64);
            for (int i = 0; i < count; i++) {
                buf.setAtIndex(ValueLayout.JAVA_INT, i, comm.rank() * 1_000_000 + i);
            }
            try (Group g = Jccl.group()) {
                comm.send(buf, count, DataType.INT32, peer);
                comm.recv(buf, count, DataType.INT32, peer);
            }
            for (int i = 0; i < count; i++) {
                if (buf.getAtIndex(ValueLayout.JAVA_INT, i) != peer * 1_000_000 + i) {
                    throw new AssertionError("element " + i + ": " + buf.getAtIndex(ValueLayout.JAVA_INT, i));
                }
            }
        });
    }
}
