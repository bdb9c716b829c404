/** Runnable Spark programs that use JCCL in barrier mode (each a {@code main}, in local mode by default). */
package io.jccl.spark.examples;
