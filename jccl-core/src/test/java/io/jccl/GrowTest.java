package io.jccl;

import io.jccl.testing.ProcessRanks;
import io.jccl.testing.ThreadRanks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link Communicator#grow}: ranks grow their communicator with newcomers that join under rank 0's id, keep their
 * ranks, and the old communicator keeps working; a job loses a process, shrinks, and grows back with a new one;
 * wrong calls are refused on every rank alike.
 */
class GrowTest {
    @TempDir
    Path dir;

    @Test
    void twoThreadRanksGrowToFourWithTwoNewcomers() throws Exception {
        AtomicReference<UniqueId> handedOut = new AtomicReference<>();
        List<CompletableFuture<Void>> newcomers = new ArrayList<>();
        for (int r = 2; r < 4; r++) {
            int rank = r;
            CompletableFuture<Void> f = new CompletableFuture<>();
            Thread.ofPlatform().name("newcomer-" + r).start(() -> {
                try {
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    while (handedOut.get() == null && System.nanoTime() < deadline) {
                        Thread.sleep(5);
                    }
                    try (Communicator g = Communicator.init(handedOut.get(), 4, rank, SplitShrinkTest.CFG)) {
                        assertThat(g.rank()).isEqualTo(rank);
                        SplitShrinkTest.checkedAllReduce(g, 4097);
                    }
                    f.complete(null);
                } catch (Throwable t) {
                    f.completeExceptionally(t);
                }
            });
            newcomers.add(f);
        }
        ThreadRanks.run(2, SplitShrinkTest.CFG, comm -> {
            UniqueId id = null;
            if (comm.rank() == 0) {
                id = Jccl.uniqueId();
                handedOut.set(id);
            }
            try (Communicator g = comm.grow(4, id)) {
                assertThat(g.size()).isEqualTo(4);
                assertThat(g.rank()).isEqualTo(comm.rank());
                SplitShrinkTest.checkedAllReduce(g, 4097);
            }
            SplitShrinkTest.checkedAllReduce(comm, 100);   // the old one keeps working
        });
        for (CompletableFuture<Void> f : newcomers) {
            f.get(60, TimeUnit.SECONDS);
        }
    }

    @Test
    void wrongGrowsAreRefusedOnEveryRank() {
        ThreadRanks.run(2, SplitShrinkTest.CFG, comm -> {
            assertThatThrownBy(() -> comm.grow(2, null)).isInstanceOf(JcclException.class)
                    .hasMessageContaining("must exceed the 2 ranks")
                    .extracting(e -> ((JcclException) e).result()).isEqualTo(Result.INVALID_ARGUMENT);
            assertThatThrownBy(() -> comm.grow(comm.rank() == 0 ? 3 : 4, null)).isInstanceOf(JcclException.class)
                    .hasMessageContaining("different sizes")
                    .extracting(e -> ((JcclException) e).result()).isEqualTo(Result.INVALID_USAGE);
            assertThatThrownBy(() -> comm.grow(3, null)).hasMessageContaining("rank 0 must pass the id");
            SplitShrinkTest.checkedAllReduce(comm, 100);
        });
    }

    /**
     * Three processes; rank 2 dies; ranks 0 and 1 shrink to two, rank 0 hands out a new id (a file here, a launcher
     * or a key-value store in a job), and they grow back to three with a fourth process that joins as rank 2.
     */
    @Test
    void aJobReplacesALostProcessByShrinkingAndGrowing() throws Exception {
        ProcessRanks.Job job = ProcessRanks.start(4, GrowRankMain.class, List.of(dir.toString()), Map.of(),
                r -> r == 3 ? Map.of("GROW_NEWCOMER", "1") : Map.of("WORLD_SIZE", "3"));
        ProcessRanks.Result r = job.await(150);
        String all = String.join("\n---\n", r.outputs());
        assertThat(r.exitCodes()).as(all).containsExactly(0, 0, 3, 0);
        assertThat(r.outputs().get(2)).contains("rank 2 halts");
        assertThat(r.outputs().get(0)).as(all).contains("rank 0 lost rank(s) [2]", "OK grown rank 0 of 3");
        assertThat(r.outputs().get(1)).as(all).contains("rank 1 lost rank(s) [2]", "OK grown rank 1 of 3");
        assertThat(r.outputs().get(3)).as(all).contains("OK newcomer rank 2 of 3");
    }
}
