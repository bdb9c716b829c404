package io.jccl.spark;

import io.jccl.spark.examples.LinearRegressionExample;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** The training example as its {@code main} runs it by default: {@code local[4]}, four ranks in the driver's JVM. */
@Timeout(120)
class SparkLocalTest {
    @Test
    void trainingInLocalModeMatchesOneProcess() {
        SparkConf conf = new SparkConf().setMaster("local[4]").setAppName("jccl-spark-local-test")
                .set("spark.ui.enabled", "false");
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        LinearRegressionExample.Outcome outcome;
        try (JavaSparkContext sc = new JavaSparkContext(conf)) {
            outcome = LinearRegressionExample.run(sc, 4, 100, new PrintStream(text, true, StandardCharsets.UTF_8));
        }
        assertThat(outcome.identical()).isTrue();
        assertThat(outcome.maxDiff()).isLessThanOrEqualTo(1e-9);
        assertThat(outcome.perPartition()).hasSize(4);
        assertThat(text.toString(StandardCharsets.UTF_8)).contains("identical on all 4 partitions: true");
    }
}
