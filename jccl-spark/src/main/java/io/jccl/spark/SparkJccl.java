package io.jccl.spark;

import io.jccl.Communicator;
import io.jccl.Config;
import io.jccl.Jccl;
import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.UniqueId;
import io.jccl.launch.Placement;
import org.apache.spark.BarrierTaskContext;
import org.apache.spark.BarrierTaskInfo;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.rdd.RDD;
import org.apache.spark.util.TaskCompletionListener;
import org.apache.spark.util.TaskFailureListener;
import scala.Function1;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag;

import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Supplier;

/**
 * A JCCL communicator inside Spark's barrier execution mode: every task of a barrier stage is one rank (its
 * partition id), the stage's task count is the size, and the task of rank 0 starts the bootstrap root in its
 * executor and hands the id to the others through {@link BarrierTaskContext#allGather(String)}.
 *
 * <pre>{@code
 * JavaRDD<double[]> out = SparkJccl.mapPartitions(rdd, (comm, rows) -> {
 *     double[] g = gradient(rows);
 *     comm.allReduce(g, RedOp.SUM);                       // every task now holds the sum over all partitions
 *     return List.of(g).iterator();
 * });
 * }</pre>
 *
 * <p>Or by hand, in a function given to {@code rdd.rdd().barrier().mapPartitions(...)}:
 * {@code try (Communicator comm = SparkJccl.communicator(BarrierTaskContext.get())) { ... }}. Every task of the
 * stage must call it (it is a barrier). {@link io.jccl.Communicator#fromEnvironment()} also works in a barrier task,
 * through {@link SparkRendezvous}.
 *
 * <p>Owned by: the barrier task's thread (stateless). Mirrors: torchrun's rendezvous (rank 0's address handed to the
 * others), as TorchDistributor and XGBoost's Spark integration do over a barrier stage's allGather.
 */
public final class SparkJccl {
    /** The launcher name {@link Placement#launcher()} carries. */
    public static final String LAUNCHER = "spark";

    private SparkJccl() {
    }

    /**
     * Where this barrier task sits, before any communicator exists: rank = partition id, size = the stage's task
     * count, local rank and size among the stage's tasks on the same host (to pick a GPU with
     * {@link Placement#localRank()}). Cheap and local: no task waits for another.
     *
     * @param ctx the task's context ({@link BarrierTaskContext#get()})
     * @return the placement
     * @throws JcclException with {@link Result#INVALID_ARGUMENT} when the partition id is not below the task count
     */
    public static Placement placement(BarrierTaskContext ctx) {
        String[] addresses = addresses(ctx);
        try {
            return placement(ctx.partitionId(), addresses);
        } catch (IllegalArgumentException e) {
            throw new JcclException(Result.INVALID_ARGUMENT, where(ctx) + ": " + e.getMessage(), e);
        }
    }

    /**
     * The placement of the task of {@code rank} among tasks at {@code addresses} (a task info's {@code host:port}, or
     * a bare host): tasks on one host are those whose host parts are equal; the local rank is the index among them in
     * rank order.
     *
     * @param rank      the task's partition id
     * @param addresses every task's address, in partition order
     * @return the placement
     * @throws IllegalArgumentException when {@code rank} is not in {@code [0, addresses.length)}
     */
    public static Placement placement(int rank, String[] addresses) {
        int size = addresses.length;
        if (rank < 0 || rank >= size) {
            throw new IllegalArgumentException(LAUNCHER + ": partition " + rank + " is not in [0, " + size
                    + ") (the barrier stage's task count); a barrier stage needs one task per partition");
        }
        String host = host(addresses[rank]);
        int localRank = 0;
        int localSize = 0;
        for (int r = 0; r < size; r++) {
            if (host(addresses[r]).equals(host)) {
                if (r < rank) {
                    localRank++;
                }
                localSize++;
            }
        }
        return new Placement(rank, size, localRank, localSize, LAUNCHER);
    }

    /**
     * Joins the communicator of this barrier stage, with the default {@link Config}. Every task of the stage must
     * call it; it returns once all have joined. Close it before the task ends; if the task fails with it open, it is
     * aborted (its peers' calls fail at once, naming its rank), and if the task ends with it open, it is closed.
     *
     * @param ctx the task's context ({@link BarrierTaskContext#get()})
     * @return the communicator, rank {@link BarrierTaskContext#partitionId()} of the stage's task count
     * @throws JcclException naming the partition and stage, and what failed (sharing the id, or joining)
     */
    public static Communicator communicator(BarrierTaskContext ctx) {
        return communicator(ctx, Config.defaults());
    }

    /**
     * Joins the communicator of this barrier stage. Every task of the stage must call it; it returns once all have
     * joined. Close it before the task ends; if the task fails with it open, it is aborted (its peers' calls fail at
     * once, naming its rank), and if the task ends with it open, it is closed.
     *
     * @param ctx    the task's context ({@link BarrierTaskContext#get()})
     * @param config options of the communicator ({@code commName}, when unset, becomes the stage's name)
     * @return the communicator, rank {@link BarrierTaskContext#partitionId()} of the stage's task count
     * @throws JcclException naming the partition and stage, and what failed (sharing the id, or joining)
     */
    public static Communicator communicator(BarrierTaskContext ctx, Config config) {
        Placement self = placement(ctx);
        UniqueId id = shareId(ctx, self, Jccl::uniqueId);
        Config named = config.commName() != null ? config
                : config.withName("spark-stage-" + ctx.stageId() + "." + ctx.stageAttemptNumber());
        Communicator comm;
        try {
            comm = Communicator.init(id, self.size(), self.rank(), named);
        } catch (JcclException e) {
            throw new JcclException(e.result(), where(ctx) + ": joining the JCCL communicator as rank "
                    + self.rank() + " of " + self.size() + " failed: " + e.getMessage(), e);
        }
        // a task that fails with its communicator open aborts it, so its peers fail at once instead of waiting for
        // it until their timeout (Spark does not interrupt them); one that ends with it open closes it
        ctx.addTaskFailureListener((TaskFailureListener) (c, error) -> comm.abort());
        ctx.addTaskCompletionListener((TaskCompletionListener) c -> comm.close());
        return comm;
    }

    /**
     * Runs {@code fn} on every partition of {@code rdd} in one barrier stage, each task holding its rank of one
     * communicator: the Java form of {@code rdd.barrier().mapPartitions(...)} with {@link #communicator} opened
     * before and closed after. The output is gathered into a list before the communicator closes, so a lazy
     * iterator that still calls collectives works. When {@code fn} throws, this task's communicator is aborted (its
     * peers' calls fail at once, naming it) and the task fails with an error naming its rank, partition and stage;
     * Spark then fails the stage.
     *
     * @param rdd    the data, one rank per partition (every partition must run at once: the cluster needs that many
     *               free task slots)
     * @param fn     what each task does with its communicator and its partition's elements
     * @param config options of the communicators
     * @param <T>    the element type of {@code rdd}
     * @param <R>    the element type of the result
     * @return the result, lazily (nothing runs until an action)
     */
    public static <T, R> JavaRDD<R> mapPartitions(JavaRDD<T> rdd, BarrierFunction<T, R> fn, Config config) {
        // Config is not Serializable: its parts travel to the executors and it is rebuilt there
        Duration timeout = config.timeout();
        int minChannels = config.minChannels();
        int maxChannels = config.maxChannels();
        String name = config.commName();
        return barrier(rdd, (ctx, it) -> {
            List<R> all = new ArrayList<>();
            try (Communicator comm = communicator(ctx, new Config(timeout, minChannels, maxChannels, name))) {
                try {
                    fn.call(comm, it).forEachRemaining(all::add);
                } catch (Exception e) {
                    comm.abort();
                    throw new JcclException(e instanceof JcclException j ? j.result() : Result.REMOTE_ERROR,
                            where(ctx) + ": rank " + comm.rank() + " of " + comm.size() + " failed: " + e, e);
                } catch (Error e) {
                    comm.abort();
                    throw e;
                }
            }
            return all.iterator();
        });
    }

    /**
     * {@link #mapPartitions(JavaRDD, BarrierFunction, Config)} with the default {@link Config}.
     *
     * @param rdd the data, one rank per partition
     * @param fn  what each task does with its communicator and its partition's elements
     * @param <T> the element type of {@code rdd}
     * @param <R> the element type of the result
     * @return the result, lazily
     */
    public static <T, R> JavaRDD<R> mapPartitions(JavaRDD<T> rdd, BarrierFunction<T, R> fn) {
        return mapPartitions(rdd, fn, Config.defaults());
    }

    /**
     * Spark's {@code rdd.barrier().mapPartitions(f)} for Java, which has no {@code JavaRDD.barrier()}: {@code fn} runs
     * in every task of one barrier stage with the task's {@link BarrierTaskContext}.
     *
     * @param rdd the data
     * @param fn  what each task does
     * @param <T> the element type of {@code rdd}
     * @param <R> the element type of the result
     * @return the result, lazily
     */
    public static <T, R> JavaRDD<R> barrier(JavaRDD<T> rdd, BarrierTaskFunction<T, R> fn) {
        // R is erased: an Object tag, as Spark's Java API uses for its own JavaRDDs
        @SuppressWarnings("unchecked")
        ClassTag<R> tag = (ClassTag<R>) (ClassTag<?>) ClassTag.AnyRef();
        RDD<R> out = rdd.rdd().barrier().mapPartitions(scalaFunction(fn), false, tag);
        return new JavaRDD<>(out, tag);
    }

    private static <T, R> Function1<scala.collection.Iterator<T>, scala.collection.Iterator<R>> scalaFunction(
            BarrierTaskFunction<T, R> fn) {
        return (Function1<scala.collection.Iterator<T>, scala.collection.Iterator<R>> & Serializable) it -> {
            BarrierTaskContext ctx = BarrierTaskContext.get();
            try {
                return CollectionConverters.asScala(fn.call(ctx, CollectionConverters.asJava(it)));
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Exception e) {
                throw new JcclException(Result.REMOTE_ERROR, where(ctx) + " failed: " + e, e);
            }
        };
    }

    /**
     * Rank 0 makes the id (starting the bootstrap root in its executor) and every task takes rank 0's from the
     * stage's allGather. Also the {@link SparkRendezvous}'s way.
     */
    static UniqueId shareId(BarrierTaskContext ctx, Placement self, Supplier<UniqueId> newId) {
        String mine = "";
        if (self.rank() == 0) {
            try {
                mine = HexFormat.of().formatHex(newId.get().toBytes());
            } catch (RuntimeException e) {
                // the others still wait in allGather: give them an empty id, which they refuse naming rank 0
                gather(ctx, "");
                throw new JcclException(e instanceof JcclException j ? j.result() : Result.SYSTEM_ERROR,
                        where(ctx) + ": starting the JCCL bootstrap root on rank 0 failed: " + e.getMessage(), e);
            }
        }
        String[] all = gather(ctx, mine);
        if (all.length != self.size()) {
            throw new JcclException(Result.INTERNAL_ERROR, where(ctx) + ": allGather returned " + all.length
                    + " messages for " + self.size() + " tasks");
        }
        if (all[0].isEmpty()) {
            throw new JcclException(Result.REMOTE_ERROR, where(ctx) + ": rank 0 (partition 0) sent no JCCL id "
                    + "(its bootstrap root did not start; see partition 0's error)");
        }
        try {
            return UniqueId.fromBytes(HexFormat.of().parseHex(all[0]));
        } catch (IllegalArgumentException e) {
            throw new JcclException(Result.INVALID_ARGUMENT, where(ctx) + ": rank 0's JCCL id is not hex: "
                    + e.getMessage(), e);
        } catch (JcclException e) {
            throw new JcclException(e.result(), where(ctx) + ": rank 0's JCCL id is corrupt: " + e.getMessage(), e);
        }
    }

    private static String[] gather(BarrierTaskContext ctx, String message) {
        try {
            return ctx.allGather(message);
        } catch (RuntimeException e) {
            throw new JcclException(Result.REMOTE_ERROR, where(ctx) + ": sharing the JCCL id through the barrier "
                    + "stage's allGather failed: " + e.getMessage(), e);
        }
    }

    private static String[] addresses(BarrierTaskContext ctx) {
        BarrierTaskInfo[] infos = ctx.getTaskInfos();
        String[] out = new String[infos.length];
        for (int i = 0; i < infos.length; i++) {
            out[i] = infos[i].address();
        }
        return out;
    }

    /** The host part of {@code host:port}, {@code [v6]:port}, or a bare host. */
    static String host(String address) {
        if (address.startsWith("[")) {
            int close = address.indexOf(']');
            return close > 0 ? address.substring(1, close) : address;
        }
        int colon = address.indexOf(':');
        return colon >= 0 && colon == address.lastIndexOf(':') ? address.substring(0, colon) : address;
    }

    /** "partition 2 of barrier stage 5 (attempt 0)": how every error of this class starts. */
    static String where(BarrierTaskContext ctx) {
        return "partition " + ctx.partitionId() + " of barrier stage " + ctx.stageId() + " (attempt "
                + ctx.stageAttemptNumber() + ")";
    }
}
