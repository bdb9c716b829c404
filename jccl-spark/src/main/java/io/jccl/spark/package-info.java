/**
 * JCCL in Spark's barrier execution mode: {@link io.jccl.spark.SparkJccl#communicator} gives each task of a barrier
 * stage its rank of one communicator, {@link io.jccl.spark.SparkJccl#mapPartitions} runs a function per partition with
 * it, and {@link io.jccl.spark.SparkRendezvous} lets {@link io.jccl.Communicator#fromEnvironment()} find the stage.
 */
package io.jccl.spark;
