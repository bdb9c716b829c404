package io.jccl.spark;

import org.apache.spark.BarrierTaskContext;

import java.io.Serializable;
import java.util.Iterator;

/**
 * What one barrier task does with its context and its partition's elements ({@link SparkJccl#barrier}), for Java
 * callers of Spark's {@code RDDBarrier.mapPartitions}. Serializable: Spark ships it to the executors.
 *
 * <p>Owned by: the barrier task's thread. Mirrors: Spark's {@code FlatMapFunction}, with the
 * {@link BarrierTaskContext} handed in.
 *
 * @param <T> the element type of the partition
 * @param <R> the element type of the result
 */
@FunctionalInterface
public interface BarrierTaskFunction<T, R> extends Serializable {
    /**
     * Runs on one partition.
     *
     * @param ctx  the task's barrier context
     * @param data the partition's elements
     * @return the output elements
     * @throws Exception when the task fails
     */
    Iterator<R> call(BarrierTaskContext ctx, Iterator<T> data) throws Exception;
}
