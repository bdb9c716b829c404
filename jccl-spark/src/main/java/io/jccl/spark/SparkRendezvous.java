package io.jccl.spark;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.UniqueId;
import io.jccl.launch.Placement;
import io.jccl.launch.Rendezvous;
import org.apache.spark.BarrierTaskContext;
import org.apache.spark.TaskContext;

import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The {@link Rendezvous} of a Spark barrier task (a service provider, {@code JCCL_RENDEZVOUS=spark}): detected on a
 * thread that runs a barrier task, so that {@link io.jccl.Communicator#fromEnvironment()} works there as
 * {@link SparkJccl#communicator} does. The placement and the sharing of the id are {@link SparkJccl}'s; the wait for
 * rank 0's id is the allGather's, bounded by Spark's {@code spark.barrier.sync.timeout}, not by {@code timeout}.
 * Where Spark is not on the class path it detects nothing.
 *
 * <p>Owned by: the calling thread (stateless). Mirrors: Lightning's cluster environments, for Spark's barrier mode.
 */
public final class SparkRendezvous implements Rendezvous {
    /** Creates the provider (ServiceLoader's way). */
    public SparkRendezvous() {
    }

    @Override
    public String name() {
        return SparkJccl.LAUNCHER;
    }

    /** Above the environment launchers (a barrier task is a sure sign); below an address the user set. */
    @Override
    public int priority() {
        return 90;
    }

    @Override
    public boolean detect(Map<String, String> env) {
        try {
            return TaskContext.get() instanceof BarrierTaskContext;
        } catch (LinkageError e) {
            return false;
        }
    }

    @Override
    public Placement placement(Map<String, String> env) {
        return SparkJccl.placement(context());
    }

    @Override
    public UniqueId shareId(Placement self, Supplier<UniqueId> newId, Duration timeout) {
        return SparkJccl.shareId(context(), self, newId);
    }

    private static BarrierTaskContext context() {
        if (TaskContext.get() instanceof BarrierTaskContext ctx) {
            return ctx;
        }
        throw new JcclException(Result.INVALID_USAGE, "the spark rendezvous works only on the thread of a barrier "
                + "task (rdd.barrier().mapPartitions(...)); this thread runs "
                + (TaskContext.get() == null ? "no Spark task" : "a Spark task outside barrier mode"));
    }
}
