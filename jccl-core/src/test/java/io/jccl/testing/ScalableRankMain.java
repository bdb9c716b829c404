package io.jccl.testing;

import io.jccl.Communicator;
import io.jccl.Group;
import io.jccl.Jccl;
import io.jccl.RedOp;
import io.jccl.UniqueId;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * A process of {@link ProcessRanks} that holds {@code per-process} ranks of a communicator joined through
 * {@code roots} bootstrap roots ({@link Communicator#initRanksScalable}): process RANK holds ranks
 * {@code RANK × per-process} onward; the process holding the first rank of root group g creates id g
 * ({@link Jccl#uniqueId()}, so the roots run in different processes) and writes it to {@code dir}, and every process
 * reads all ids from there, as ranks would all-gather them out of band. Runs a checked allReduce and allGather and
 * prints {@code OK ranks a-b of n}. Arguments: {@code dir=D per-process=K roots=R}.
 */
public final class ScalableRankMain {
    private ScalableRankMain() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = null;
        int k = 1;
        int roots = 1;
        for (String a : args) {
            if (a.startsWith("dir=")) {
                dir = Path.of(a.substring(4));
            } else if (a.startsWith("per-process=")) {
                k = Integer.parseInt(a.substring(12));
            } else if (a.startsWith("roots=")) {
                roots = Integer.parseInt(a.substring(6));
            }
        }
        int process = Integer.parseInt(System.getenv("RANK"));
        int n = Integer.parseInt(System.getenv("WORLD_SIZE")) * k;
        int[] ranks = new int[k];
        for (int i = 0; i < k; i++) {
            ranks[i] = process * k + i;
        }
        for (int g = 0; g < roots; g++) {
            int first = g * (n / roots) + Math.min(g, n % roots);
            if (first >= ranks[0] && first <= ranks[k - 1]) {
                Path tmp = dir.resolve("id-" + g + ".tmp");
                Files.writeString(tmp, HexFormat.of().formatHex(Jccl.uniqueId().toBytes()));
                Files.move(tmp, dir.resolve("id-" + g), StandardCopyOption.ATOMIC_MOVE);
            }
        }
        List<UniqueId> ids = new ArrayList<>();
        long deadline = System.nanoTime() + 60_000_000_000L;
        for (int g = 0; g < roots; g++) {
            Path p = dir.resolve("id-" + g);
            while (!Files.exists(p)) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("no " + p + " after 60 s");
                }
                Thread.sleep(20);
            }
            ids.add(UniqueId.fromBytes(HexFormat.of().parseHex(Files.readString(p))));
        }
        List<Communicator> comms = Communicator.initRanksScalable(ids, n, ranks, ThreadRanks.testConfig());
        int count = 10_001;
        float[][] d = new float[k][count];
        float[][] all = new float[k][n];
        for (int i = 0; i < k; i++) {
            for (int j = 0; j < count; j++) {
                d[i][j] = ranks[i] + j % 5;
            }
        }
        try (Group g = Jccl.group()) {
            for (int i = 0; i < k; i++) {
                comms.get(i).allReduce(d[i], RedOp.SUM);
                comms.get(i).allGather(new float[] {ranks[i]}, all[i]);
            }
        }
        for (int i = 0; i < k; i++) {
            for (int j = 0; j < count; j++) {
                float want = n * (n - 1) / 2f + n * (j % 5);
                if (d[i][j] != want) {
                    throw new AssertionError("rank " + ranks[i] + " allReduce element " + j + ": " + d[i][j] + " != "
                            + want);
                }
            }
            for (int r = 0; r < n; r++) {
                if (all[i][r] != r) {
                    throw new AssertionError("rank " + ranks[i] + " allGather block " + r + ": " + all[i][r]);
                }
            }
        }
        for (Communicator c : comms) {
            c.close();
        }
        System.out.println("OK ranks " + ranks[0] + "-" + ranks[k - 1] + " of " + n);
    }
}
