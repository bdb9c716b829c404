package io.jccl.spark;

import io.jccl.Communicator;

import java.io.Serializable;
import java.util.Iterator;

/**
 * What one barrier task does with its rank of the stage's communicator and its partition's elements
 * ({@link SparkJccl#mapPartitions}). Serializable: Spark ships it to the executors.
 *
 * <p>Owned by: the barrier task's thread. Mirrors: Spark's {@code FlatMapFunction} with a communicator added.
 *
 * @param <T> the element type of the partition
 * @param <R> the element type of the result
 */
@FunctionalInterface
public interface BarrierFunction<T, R> extends Serializable {
    /**
     * Runs on one partition.
     *
     * @param comm this task's rank of the stage's communicator (closed by the caller once the output is drained)
     * @param data the partition's elements
     * @return the output elements
     * @throws Exception when the task fails; its rank's communicator is then aborted
     */
    Iterator<R> call(Communicator comm, Iterator<T> data) throws Exception;
}
