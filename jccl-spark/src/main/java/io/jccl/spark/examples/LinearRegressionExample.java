package io.jccl.spark.examples;

import io.jccl.RedOp;
import io.jccl.spark.SparkJccl;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;

import java.io.PrintStream;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Data-parallel training in one Spark barrier stage: linear regression by full-batch gradient descent, each
 * partition computing the gradient of the squared error on its own rows, JCCL summing the gradients over all
 * partitions ({@code allReduce(double[], SUM)}), and every partition taking the same step, so that all end with the
 * same weights. The driver checks that they are bit-identical across partitions and equal to the same descent run
 * in one process over the same partitions, and prints them.
 *
 * <pre>{@code java <Spark's --add-opens flags> -cp ... io.jccl.spark.examples.LinearRegressionExample [master]
 *     [partitions] [iterations]}</pre>
 * (defaults {@code local[4]}, 4, 200; the master may be any cluster with that many free task slots).
 *
 * <p>Owned by: the driver's main thread; {@link #descend} runs on each barrier task's thread. Mirrors: the
 * gradient allReduce of PyTorch's DistributedDataParallel, as TorchDistributor runs it over a barrier stage.
 */
public final class LinearRegressionExample {
    /** Rows of the example's data set. */
    public static final int ROWS = 4096;
    /** The weights the data was made with: a bias (feature 0 is 1) and seven slopes. */
    static final double[] TRUE_WEIGHTS = {0.5, 1, -2, 3, -0.25, 0.75, 1.5, -1};
    /** The step size. */
    public static final double LEARNING_RATE = 0.5;

    private LinearRegressionExample() {
    }

    /** The weights one partition ended with. */
    public record PartitionWeights(int partition, double[] weights) implements Serializable {
        private static final long serialVersionUID = 1L;
    }

    /**
     * What {@link #run} found.
     *
     * @param perPartition each partition's final weights, in partition order
     * @param reference    the single-process result over the same partitions
     * @param identical    whether every partition's weights are bit-identical
     * @param maxDiff      the largest difference between a partition's weights and the reference
     */
    public record Outcome(List<PartitionWeights> perPartition, double[] reference, boolean identical,
                          double maxDiff) {
        /**
         * Whether training on Spark gave what one process gives.
         *
         * @return identical weights on every partition, within 1e-9 of the reference
         */
        public boolean ok() {
            return identical && maxDiff <= 1e-9;
        }
    }

    /**
     * Runs the example on a Spark context of its own and exits with 0 when the check passed.
     *
     * @param args {@code [master] [partitions] [iterations]}
     */
    public static void main(String[] args) {
        String master = args.length > 0 ? args[0] : "local[4]";
        int partitions = args.length > 1 ? Integer.parseInt(args[1]) : 4;
        int iterations = args.length > 2 ? Integer.parseInt(args[2]) : 200;
        SparkConf conf = new SparkConf().setMaster(master).setAppName("jccl-linear-regression")
                .set("spark.ui.enabled", "false");
        boolean ok;
        try (JavaSparkContext sc = new JavaSparkContext(conf)) {
            ok = run(sc, partitions, iterations, System.out).ok();
        }
        System.exit(ok ? 0 : 1);
    }

    /**
     * Trains on {@code partitions} barrier tasks, checks the result and prints it.
     *
     * @param sc         the Spark context
     * @param partitions the number of partitions, one rank each
     * @param iterations the number of gradient steps
     * @param out        where the report goes
     * @return what was found
     */
    public static Outcome run(JavaSparkContext sc, int partitions, int iterations, PrintStream out) {
        JavaRDD<double[]> rows = sc.parallelize(data(ROWS, 42), partitions).cache();
        List<PartitionWeights> trained = new ArrayList<>(SparkJccl.mapPartitions(rows,
                (comm, it) -> List.of(new PartitionWeights(comm.rank(), descend(it, iterations, g -> {
                    comm.allReduce(g, RedOp.SUM);
                }))).iterator()).collect());
        trained.sort(Comparator.comparingInt(PartitionWeights::partition));
        double[] reference = descendLocally(rows.glom().collect(), iterations);
        double[] first = trained.getFirst().weights();
        boolean identical = trained.stream().allMatch(p -> Arrays.equals(p.weights(), first));
        double maxDiff = 0;
        for (PartitionWeights p : trained) {
            for (int j = 0; j < reference.length; j++) {
                maxDiff = Math.max(maxDiff, Math.abs(p.weights()[j] - reference[j]));
            }
        }
        Outcome outcome = new Outcome(List.copyOf(trained), reference, identical, maxDiff);
        out.printf("linear regression, %d rows, %d partitions, %d steps of gradient descent%n", ROWS, partitions,
                iterations);
        out.printf("weights on partition 0: %s%n", format(first));
        out.printf("weights the data came from: %s%n", format(TRUE_WEIGHTS));
        out.printf("identical on all %d partitions: %s; largest difference from the single-process run: %.3g%n",
                trained.size(), identical, maxDiff);
        out.println(outcome.ok() ? "OK" : "FAILED");
        return outcome;
    }

    /**
     * Gradient descent on one partition's rows: each step computes this partition's part of the gradient (with the
     * row count in its last element), hands it to {@code sum} to be summed over all partitions in place, and steps.
     *
     * @param rows       the partition's rows: features (the first is 1), then the target
     * @param iterations the number of steps
     * @param sum        sums the partial gradient over all partitions, in place
     * @return the final weights
     */
    public static double[] descend(Iterator<double[]> rows, int iterations, GradientSum sum) {
        List<double[]> mine = new ArrayList<>();
        rows.forEachRemaining(mine::add);
        double[] w = new double[TRUE_WEIGHTS.length];
        for (int step = 0; step < iterations; step++) {
            double[] g = partialGradient(mine, w);
            sum.sumInPlace(g);
            update(w, g);
        }
        return w;
    }

    /**
     * The same descent in one process over the given partitions: partial gradients summed in partition order.
     *
     * @param partitions the partitions' rows
     * @param iterations the number of steps
     * @return the final weights
     */
    public static double[] descendLocally(List<List<double[]>> partitions, int iterations) {
        double[] w = new double[TRUE_WEIGHTS.length];
        for (int step = 0; step < iterations; step++) {
            double[] total = null;
            for (List<double[]> part : partitions) {
                double[] g = partialGradient(part, w);
                if (total == null) {
                    total = g;
                } else {
                    for (int j = 0; j < g.length; j++) {
                        total[j] += g[j];
                    }
                }
            }
            update(w, total);
        }
        return w;
    }

    /** Sums a partial gradient over every partition, in place. */
    @FunctionalInterface
    public interface GradientSum {
        /**
         * Replaces {@code g} by its sum over every partition.
         *
         * @param g this partition's part
         */
        void sumInPlace(double[] g);
    }

    /** Σ x (x·w − y) over the rows, and the row count as the last element. */
    static double[] partialGradient(List<double[]> rows, double[] w) {
        int d = w.length;
        double[] g = new double[d + 1];
        for (double[] row : rows) {
            double err = -row[d];
            for (int j = 0; j < d; j++) {
                err += row[j] * w[j];
            }
            for (int j = 0; j < d; j++) {
                g[j] += row[j] * err;
            }
        }
        g[d] = rows.size();
        return g;
    }

    /** One step on the mean squared error: w -= rate · 2/n · Σ x (x·w − y). */
    static void update(double[] w, double[] g) {
        double scale = LEARNING_RATE * 2 / g[w.length];
        for (int j = 0; j < w.length; j++) {
            w[j] -= scale * g[j];
        }
    }

    /**
     * The example's rows: features uniform in [-1, 1) after a leading 1, the target {@link #TRUE_WEIGHTS}·x plus a
     * little noise, the same for one seed.
     *
     * @param n    the number of rows
     * @param seed the random seed
     * @return the rows
     */
    public static List<double[]> data(int n, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        int d = TRUE_WEIGHTS.length;
        List<double[]> rows = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            double[] row = new double[d + 1];
            row[0] = 1;
            for (int j = 1; j < d; j++) {
                row[j] = random.nextDouble(-1, 1);
            }
            double y = 0;
            for (int j = 0; j < d; j++) {
                y += TRUE_WEIGHTS[j] * row[j];
            }
            row[d] = y + 0.01 * (random.nextDouble() - 0.5);
            rows.add(row);
        }
        return rows;
    }

    private static String format(double[] w) {
        StringBuilder sb = new StringBuilder("[");
        for (int j = 0; j < w.length; j++) {
            sb.append(j == 0 ? "" : ", ").append(String.format("%.4f", w[j]));
        }
        return sb.append(']').toString();
    }
}
