package io.jccl;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;

/**
 * A process of {@link GrowTest}'s job (argument: a shared directory). Ranks 0-2 (WORLD_SIZE=3): an allReduce, then
 * rank 2 halts; ranks 0 and 1 run allReduces until they fail, shrink by the lost rank, rank 0 writes a new id to
 * {@code grow.id}, and both grow back to three. The newcomer (GROW_NEWCOMER=1) waits for the id and joins as rank 2.
 * Every allReduce is checked element by element.
 */
public final class GrowRankMain {
    private GrowRankMain() {
    }

    public static void main(String[] args) throws Exception {
        Path idFile = Path.of(args[0]).resolve("grow.id");
        if (System.getenv("GROW_NEWCOMER") != null) {
            long deadline = System.nanoTime() + 90_000_000_000L;
            while (!Files.exists(idFile) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            try (Communicator g = Communicator.init(UniqueId.fromBytes(Files.readAllBytes(idFile)), 3, 2,
                    SplitShrinkTest.CFG)) {
                SplitShrinkTest.checkedAllReduce(g, 100_000);
                System.out.println("OK newcomer rank " + g.rank() + " of " + g.size());
            }
            System.exit(0);
        }
        try (Communicator comm = Communicator.fromEnvironment(SplitShrinkTest.CFG)) {
            SplitShrinkTest.checkedAllReduce(comm, 1000);
            if (comm.rank() == 2) {
                System.out.println("rank 2 halts");
                System.out.flush();
                Runtime.getRuntime().halt(3);
            }
            try {
                for (int i = 0; i < 100_000; i++) {
                    SplitShrinkTest.checkedAllReduce(comm, 1000);
                }
                throw new AssertionError("the allReduces outlived rank 2");
            } catch (JcclException e) {
                long deadline = System.nanoTime() + 10_000_000_000L;
                while (comm.lostRanks().length == 0 && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                System.out.println("rank " + comm.rank() + " lost rank(s) " + Arrays.toString(comm.lostRanks()));
            }
            try (Communicator s = comm.shrink(comm.lostRanks())) {
                UniqueId id = null;
                if (s.rank() == 0) {
                    id = Jccl.uniqueId();
                    Path tmp = Files.write(idFile.resolveSibling("grow.id.tmp"), id.toBytes());
                    Files.move(tmp, idFile, StandardCopyOption.ATOMIC_MOVE);
                }
                try (Communicator g = s.grow(3, id)) {
                    SplitShrinkTest.checkedAllReduce(g, 100_000);
                    System.out.println("OK grown rank " + g.rank() + " of " + g.size());
                }
            }
        }
        System.exit(0);
    }
}
