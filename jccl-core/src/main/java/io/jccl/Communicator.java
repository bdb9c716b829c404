package io.jccl;

import io.jccl.internal.comm.CommFactory;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A group of ranks that run collective operations together (NCCL's {@code ncclComm_t}).
 *
 * <p>Every rank calls the same collectives in the same order with matching arguments. Buffers are
 * {@link MemorySegment}s (heap or native); {@link ArrayCollectives} and {@link BufferCollectives} add overloads for
 * primitive arrays and {@link java.nio.ByteBuffer}s. Counts are in elements of the given {@link DataType}.
 * JCCL's channel threads read and write native segments, so allocate them from a shared, automatic or global arena
 * ({@code Arena.ofShared()}, {@code Arena.ofAuto()}, {@code Arena.global()}) or with {@link #allocate}; a segment of
 * an {@code Arena.ofConfined()} is usable only by its owner thread and is refused with
 * {@link Result#INVALID_ARGUMENT}, as is a segment whose arena is closed. Send and receive buffers must not overlap,
 * except in a collective's in-place layout (the same buffer; for allGather and gather the send data at this rank's
 * block of the receive buffer; for reduceScatter and scatter the receive buffer at this rank's block of the send
 * buffer). Any alignment works. {@code docs/buffers.md} lists what JCCL checks about buffers.
 * A synchronous call returns when this rank's part is done and its receive buffer holds the result; an
 * {@code *Async} call returns a future at once and the buffers must not be touched until it completes.
 * Operations run in the order they were called, as on a CUDA stream.
 *
 * <p>Inside {@link Jccl#group()} calls only record work; the group's {@code close()} launches everything recorded
 * on every communicator together and waits for it, so send/recv pairs and several communicators driven from one
 * thread cannot deadlock.
 *
 * <p>A communicator is meant to be driven by one thread at a time; concurrent calls fail with
 * {@link Result#INVALID_USAGE}. Failures throw {@link JcclException}; a failure that involves a peer also marks
 * the communicator broken ({@link #asyncError()}), and every later call fails at once.
 *
 * <pre>{@code
 * UniqueId id = Jccl.uniqueId();                      // on rank 0; send id.toBytes() to the others
 * try (Communicator comm = Communicator.init(id, nRanks, rank)) {
 *     comm.allReduce(data, RedOp.SUM);                // float[] in place
 * }
 * }</pre>
 */
public interface Communicator extends AutoCloseable, ArrayCollectives, BufferCollectives {
    /** The {@link #split} color of a rank that wants no new communicator (NCCL's {@code NCCL_SPLIT_NOCOLOR}). */
    int SPLIT_NOCOLOR = -1;

    /**
     * Joins a communicator of {@code nRanks} ranks as {@code rank}, with default {@link Config} (NCCL's
     * {@code ncclCommInitRank}). Blocks until all ranks joined.
     *
     * @param id     the handle rank 0 created with {@link Jccl#uniqueId()}
     * @param nRanks the number of ranks
     * @param rank   this rank, in [0, nRanks)
     * @return the communicator; close it when done
     */
    static Communicator init(UniqueId id, int nRanks, int rank) {
        return CommFactory.init(id, nRanks, rank, Config.defaults());
    }

    /**
     * Joins a communicator of {@code nRanks} ranks as {@code rank} (NCCL's {@code ncclCommInitRankConfig}). Blocks
     * until all ranks joined.
     *
     * @param id     the handle rank 0 created with {@link Jccl#uniqueId()}
     * @param nRanks the number of ranks
     * @param rank   this rank, in [0, nRanks)
     * @param config options; unset values come from the environment or the defaults
     * @return the communicator; close it when done
     */
    static Communicator init(UniqueId id, int nRanks, int rank, Config config) {
        return CommFactory.init(id, nRanks, rank, config);
    }

    /**
     * Joins the communicator described by the environment, as launchers set it: {@code JCCL_COMM_ID} or
     * {@code NCCL_COMM_ID} (host:port of the root, which rank 0 starts), with the rank and size from
     * {@code RANK}/{@code WORLD_SIZE} (torchrun, with {@code MASTER_ADDR}/{@code MASTER_PORT}),
     * {@code OMPI_COMM_WORLD_RANK}/{@code OMPI_COMM_WORLD_SIZE} (mpirun) or {@code SLURM_PROCID}/{@code SLURM_NTASKS}
     * (srun). {@code JCCL_COMM_SECRET} (hex), when set by the launcher, authenticates the ranks.
     *
     * @return the communicator; close it when done
     */
    static Communicator fromEnvironment() {
        return CommFactory.fromEnvironment(Config.defaults());
    }

    /**
     * As {@link #fromEnvironment()}, with a config.
     *
     * @param config options; unset values come from the environment or the defaults
     * @return the communicator; close it when done
     */
    static Communicator fromEnvironment(Config config) {
        return CommFactory.fromEnvironment(config);
    }

    /**
     * Several ranks of one communicator in this process, the others in other processes (NCCL's
     * {@code ncclCommInitRank} calls for several devices inside one group): each of {@code ranks} is initialised on a
     * thread of its own, and the call returns when every rank of the communicator has joined. Element {@code i} of the
     * result has rank {@code ranks[i]}. Drive them from one thread with {@link Jccl#group()}, or one thread per rank;
     * they can be closed one after another from one thread, as {@link #initAll} ranks can.
     *
     * @param id     the communicator's id, from rank 0's process ({@link Jccl#uniqueId()})
     * @param nRanks the number of ranks over all processes
     * @param ranks  this process's ranks: at least one, each in [0, nRanks), none twice
     * @param config options for every rank
     * @return this process's communicators, in the order of {@code ranks}; close each when done
     */
    static List<Communicator> initRanks(UniqueId id, int nRanks, int[] ranks, Config config) {
        return CommFactory.initRanks(id, nRanks, ranks.clone(), config);
    }

    /**
     * Joins a communicator of {@code nRanks} ranks as {@code rank} through several bootstrap roots, one per id (NCCL's
     * {@code ncclCommInitRankScalable}), so that no single root handles a hello from every rank. With k ids the ranks
     * are split in order into k groups as evenly as possible (the first {@code nRanks % k} groups one rank larger)
     * and root i serves group i; the groups are joined into one bootstrap ring, and the communicator is the same as
     * one made with {@link #init}. Typically the first rank of each group creates id i with {@link Jccl#uniqueId()}
     * and the ids are exchanged out of band. Every rank must pass the same ids in the same order: a root that hears
     * from ranks given different lists fails them with an error saying so. With {@code NCCL_COMM_ID} (or
     * {@code JCCL_COMM_ID}) set, only the first id is used, as in NCCL. One id is the same as {@link #init}.
     *
     * @param ids    the roots' ids, at least one and at most {@code nRanks}, the same list on every rank
     * @param nRanks the number of ranks
     * @param rank   this rank, in [0, nRanks)
     * @param config options; unset values come from the environment or the defaults
     * @return the communicator; close it when done
     */
    static Communicator initScalable(List<UniqueId> ids, int nRanks, int rank, Config config) {
        return CommFactory.initScalable(ids, nRanks, rank, config);
    }

    /**
     * Several ranks of one communicator in this process, as {@link #initRanks}, through several bootstrap roots, as
     * {@link #initScalable}.
     *
     * @param ids    the roots' ids, at least one and at most {@code nRanks}, the same list on every rank
     * @param nRanks the number of ranks over all processes
     * @param ranks  this process's ranks: at least one, each in [0, nRanks), none twice
     * @param config options for every rank
     * @return this process's communicators, in the order of {@code ranks}; close each when done
     */
    static List<Communicator> initRanksScalable(List<UniqueId> ids, int nRanks, int[] ranks, Config config) {
        return CommFactory.initRanksScalable(ids, nRanks, ranks.clone(), config);
    }

    /**
     * Several ranks per process of the communicator the launcher described ({@link #fromEnvironment()}): with
     * {@code WORLD_SIZE} processes the communicator has {@code WORLD_SIZE × ranksPerProcess} ranks, and process
     * {@code RANK} holds ranks {@code RANK × ranksPerProcess} to {@code RANK × ranksPerProcess + ranksPerProcess - 1}
     * (one process per host driving each of its GPUs or sockets, say). Every process must pass the same number.
     *
     * @param ranksPerProcess how many ranks each process holds, at least 1
     * @param config          options; unset values come from the environment or the defaults
     * @return this process's communicators, in rank order; close each when done
     */
    static List<Communicator> fromEnvironment(int ranksPerProcess, Config config) {
        return CommFactory.fromEnvironment(ranksPerProcess, config);
    }

    /**
     * Creates all {@code nRanks} ranks of a communicator inside this process (NCCL's {@code ncclCommInitAll}):
     * element {@code i} of the result has rank {@code i}. Drive them with {@link Jccl#group()} from one thread, or
     * one thread per rank. They can be closed in any order from any threads, one after another from one thread too
     * (as nccl-tests destroys ncclCommInitAll's communicators): a close returns once it has told the peers, and the
     * last one to close releases them all.
     *
     * @param nRanks the number of ranks
     * @param config options shared by every rank
     * @return the ranks' communicators, in rank order
     */
    static List<Communicator> initAll(int nRanks, Config config) {
        return CommFactory.initAll(nRanks, config);
    }

    /**
     * This rank.
     *
     * @return this rank, in [0, size)
     */
    int rank();

    /**
     * The number of ranks.
     *
     * @return the number of ranks
     */
    int size();

    /**
     * This rank's index among the ranks of its host, counted in rank order: what picks a rank's GPU
     * ({@code CudaDevice.get(comm.localRank())}) when a host runs several processes. Hosts are told apart as
     * bootstrap does: host name, boot id and network namespace, or {@code NCCL_HOSTID} where set.
     *
     * @return this rank's index on its host, in [0, {@link #localSize()})
     */
    int localRank();

    /**
     * The number of this communicator's ranks on this rank's host.
     *
     * @return the ranks on this host, at least 1
     */
    int localSize();

    /**
     * The configuration in effect.
     *
     * @return the configuration, with every unset value resolved
     */
    Config config();

    /**
     * A short hexadecimal id of this communicator, the same on every rank, used in logs, errors, JFR events and
     * JMX names.
     *
     * @return the id
     */
    String id();

    // ---- collectives on memory segments ------------------------------------------------------------------

    /**
     * Every rank receives the reduction of all ranks' {@code send} ({@code count} elements) in {@code recv}. In place
     * when they are the same segment.
     */
    void allReduce(MemorySegment send, MemorySegment recv, long count, DataType type, RedOp op);

    /** Every rank receives {@code root}'s {@code send} in {@code recv}; {@code send} is read on the root only. */
    void broadcast(MemorySegment send, MemorySegment recv, long count, DataType type, int root);

    /**
     * {@code root} receives the reduction of all ranks' {@code send} in {@code recv}; {@code recv} is written on the
     * root only.
     */
    void reduce(MemorySegment send, MemorySegment recv, long count, DataType type, RedOp op, int root);

    /** Rank r's {@code sendCount} elements land at offset {@code r * sendCount} of every rank's {@code recv}. */
    void allGather(MemorySegment send, MemorySegment recv, long sendCount, DataType type);

    /**
     * {@code send} holds {@code size() * recvCount} elements; rank r receives the reduction of block r in {@code recv}.
     */
    void reduceScatter(MemorySegment send, MemorySegment recv, long recvCount, DataType type, RedOp op);

    /**
     * Block p ({@code count} elements at {@code p * count}) of {@code send} goes to rank p, which stores it as block
     * {@code rank()} of {@code recv}.
     */
    void allToAll(MemorySegment send, MemorySegment recv, long count, DataType type);

    /**
     * {@code root} receives rank r's {@code sendCount} elements at offset {@code r * sendCount} of {@code recv}.
     *
     * @param send      this rank's block
     * @param recv      on the root, every rank's block in rank order (not written elsewhere)
     * @param sendCount elements per block
     * @param type      element type
     * @param root      the rank that receives
     */
    void gather(MemorySegment send, MemorySegment recv, long sendCount, DataType type, int root);

    /**
     * Rank r receives block r ({@code recvCount} elements) of {@code root}'s {@code send}.
     *
     * @param send      on the root, {@code size()} blocks (read on the root only)
     * @param recv      where this rank's block is written
     * @param recvCount elements per block
     * @param type      element type
     * @param root      the rank that sends
     */
    void scatter(MemorySegment send, MemorySegment recv, long recvCount, DataType type, int root);

    /** Sends {@code count} elements to {@code peer}, which must call {@link #recv} with the same count and type. */
    void send(MemorySegment buf, long count, DataType type, int peer);

    /** Receives {@code count} elements from {@code peer}. */
    void recv(MemorySegment buf, long count, DataType type, int peer);

    /** Returns when every rank has called it. */
    void barrier();

    // ---- asynchronous forms ------------------------------------------------------------------------------

    /**
     * Asynchronous {@link #allReduce}: returns at once; the buffers must not be touched until the future completes.
     *
     * @param send the data this rank contributes
     * @param recv where the reduced result is written
     * @param count elements per rank
     * @param type element type
     * @param op the reduction
     * @return completes when this rank's part is done, exceptionally with a {@link JcclException} on failure
     */
    CompletableFuture<Void> allReduceAsync(MemorySegment send, MemorySegment recv, long count, DataType type, RedOp op);

    /**
     * Asynchronous {@link #broadcast}: returns at once; the buffers must not be touched until the future completes.
     *
     * @param send the root's data
     * @param recv where every rank receives it
     * @param count elements
     * @param type element type
     * @param root the rank whose data is sent
     * @return completes when this rank's part is done, exceptionally with a {@link JcclException} on failure
     */
    CompletableFuture<Void> broadcastAsync(MemorySegment send, MemorySegment recv, long count, DataType type, int root);

    /**
     * Asynchronous {@link #reduce}: returns at once; the buffers must not be touched until the future completes.
     *
     * @param send the data this rank contributes
     * @param recv where the root receives the result
     * @param count elements per rank
     * @param type element type
     * @param op the reduction
     * @param root the rank that receives the result
     * @return completes when this rank's part is done, exceptionally with a {@link JcclException} on failure
     */
    CompletableFuture<Void> reduceAsync(MemorySegment send, MemorySegment recv, long count, DataType type, RedOp op,
            int root);

    /**
     * Asynchronous {@link #allGather}: returns at once; the buffers must not be touched until the future completes.
     *
     * @param send this rank's block
     * @param recv every rank's block, in rank order
     * @param sendCount elements per block
     * @param type element type
     * @return completes when this rank's part is done, exceptionally with a {@link JcclException} on failure
     */
    CompletableFuture<Void> allGatherAsync(MemorySegment send, MemorySegment recv, long sendCount, DataType type);

    /**
     * Asynchronous {@link #reduceScatter}: returns at once; the buffers must not be touched until the future completes.
     *
     * @param send {@code size()} blocks
     * @param recv this rank's reduced block
     * @param recvCount elements per block
     * @param type element type
     * @param op the reduction
     * @return completes when this rank's part is done, exceptionally with a {@link JcclException} on failure
     */
    CompletableFuture<Void> reduceScatterAsync(MemorySegment send, MemorySegment recv, long recvCount, DataType type,
            RedOp op);

    /**
     * Asynchronous {@link #allToAll}: returns at once; the buffers must not be touched until the future completes.
     *
     * @param send {@code size()} blocks, block p for rank p
     * @param recv {@code size()} blocks, block p from rank p
     * @param count elements per block
     * @param type element type
     * @return completes when this rank's part is done, exceptionally with a {@link JcclException} on failure
     */
    CompletableFuture<Void> allToAllAsync(MemorySegment send, MemorySegment recv, long count, DataType type);

    /**
     * Asynchronous {@link #gather}: returns at once; the buffers must not be touched until the future completes.
     *
     * @param send this rank's block
     * @param recv on the root, every rank's block
     * @param sendCount elements per block
     * @param type element type
     * @param root the rank that receives
     * @return completes when this rank's part is done, exceptionally with a {@link JcclException} on failure
     */
    CompletableFuture<Void> gatherAsync(MemorySegment send, MemorySegment recv, long sendCount, DataType type,
            int root);

    /**
     * Asynchronous {@link #scatter}: returns at once; the buffers must not be touched until the future completes.
     *
     * @param send on the root, {@code size()} blocks
     * @param recv where this rank's block is written
     * @param recvCount elements per block
     * @param type element type
     * @param root the rank that sends
     * @return completes when this rank's part is done, exceptionally with a {@link JcclException} on failure
     */
    CompletableFuture<Void> scatterAsync(MemorySegment send, MemorySegment recv, long recvCount, DataType type,
            int root);

    /**
     * Asynchronous {@link #send}: returns at once; the buffers must not be touched until the future completes.
     *
     * @param buf the data to send
     * @param count elements
     * @param type element type
     * @param peer the receiving rank
     * @return completes when this rank's part is done, exceptionally with a {@link JcclException} on failure
     */
    CompletableFuture<Void> sendAsync(MemorySegment buf, long count, DataType type, int peer);

    /**
     * Asynchronous {@link #recv}: returns at once; the buffers must not be touched until the future completes.
     *
     * @param buf where the data is written
     * @param count elements
     * @param type element type
     * @param peer the sending rank
     * @return completes when this rank's part is done, exceptionally with a {@link JcclException} on failure
     */
    CompletableFuture<Void> recvAsync(MemorySegment buf, long count, DataType type, int peer);

    /**
     * Asynchronous {@link #barrier()}.
     *
     * @return completes when every rank has called it
     */
    CompletableFuture<Void> barrierAsync();

    /**
     * Explains how this communicator would run {@code collective} on {@code bytes} per rank: every algorithm ×
     * protocol the cost model considered, its predicted time, the choice, and why any candidate was disabled
     * (NCCL_ALGO / NCCL_PROTO, a transport without that protocol, ...). Local: no communication.
     *
     * @param collective the operation to explain
     * @param bytes      bytes per rank (for allGather and reduceScatter: one rank's block)
     * @return a multi-line, human-readable explanation
     */
    String explain(Collective collective, long bytes);

    // ---- registered memory -------------------------------------------------------------------------------

    /**
     * Collective (every rank calls it, with the same size, in the same order): returns {@code bytes} of native memory
     * for use as collective buffers (NCCL's {@code ncclMemAlloc} with window registration). On a single-host
     * communicator the memory lives in shared memory mapped by every rank, so collectives whose buffers all lie in
     * such memory, at the same offsets on every rank, read the peers' data in place (single copy). Elsewhere it is
     * plain native memory. It stays valid until the communicator closes.
     *
     * @param bytes the size, the same on every rank
     * @return the memory, aligned to 4096 bytes
     */
    MemorySegment allocate(long bytes);

    // ---- new communicators from this one ------------------------------------------------------------------

    /**
     * Collective over every rank of this communicator (NCCL's {@code ncclCommSplit}): ranks that pass the same
     * {@code color} form a new communicator, ranked by {@code key} and then by their rank here. A rank passing
     * {@link #SPLIT_NOCOLOR} takes part but gets {@code null}. The new communicator has this one's configuration and
     * is independent of it (closing either leaves the other working).
     *
     * @param color the group this rank joins, or {@link #SPLIT_NOCOLOR}
     * @param key the order of this rank in its new communicator (ties broken by the rank here)
     * @return the new communicator, or {@code null} for {@link #SPLIT_NOCOLOR}
     */
    Communicator split(int color, int key);

    /**
     * Collective over the ranks that stay (NCCL's {@code ncclCommShrink}): every rank not in {@code excludedRanks}
     * calls it with the same set, and they form a new communicator in their old rank order. It works after a failure:
     * when a peer died, the survivors catch the error, call {@code shrink(comm.lostRanks())}, and continue on the
     * result (then close or abort this one). Fails with {@link Result#INVALID_USAGE} when the survivors disagree on
     * the excluded set.
     *
     * @param excludedRanks the ranks of this communicator that do not take part
     * @return the new communicator of the remaining ranks
     */
    Communicator shrink(int... excludedRanks);

    /**
     * Collective over every rank of this communicator (NCCL's {@code ncclCommGrow}): a new communicator of
     * {@code newSize} ranks in which this one's ranks keep their ranks, and newcomers take ranks
     * {@code size()..newSize-1} by joining with {@link #init(UniqueId, int, int, Config)} under the same id. Rank 0
     * passes an id it made with {@link Jccl#uniqueId()} and hands it to the newcomers (as any launcher passes ids);
     * the other ranks pass {@code null} and get it from rank 0. With {@link #shrink} it replaces a lost process
     * without restarting the job. This communicator keeps working; close it when done.
     *
     * @param newSize the size of the new communicator, more than {@link #size()}
     * @param id rank 0: the id the newcomers join with; other ranks: {@code null} (ignored)
     * @return the new communicator, this rank at its old rank
     * @throws JcclException {@link Result#INVALID_ARGUMENT} on every rank when the size does not grow or rank 0 gave
     *                       no id, {@link Result#INVALID_USAGE} when the ranks ask for different sizes
     */
    Communicator grow(int newSize, UniqueId id);

    // ---- memory ------------------------------------------------------------------------------------------

    /**
     * Collective over every rank (NCCL's {@code ncclCommSuspend}): gives back the memory the communicator's data path
     * holds (the FIFOs of its shared-memory and network connectors with their connections, the shared area of the
     * one-shot and two-shot allReduce, scratch buffers) until {@link #resume()}; its threads, bootstrap network,
     * peer monitor and the buffers of {@link #allocate} stay. {@link #memoryStats()} shows what was released.
     * Every rank first finishes its calls in flight (it waits for them a while: a quarter of the timeout, 5 s at
     * most), then the ranks agree: they all suspend, or all refuse with {@link Result#INVALID_USAGE} naming each
     * refusing rank and why (already suspended, a call still in flight, called inside a group, a rank that called
     * {@link #resume()} instead). While suspended, every
     * collective, send, receive, barrier, {@link #allocate}, {@link #split} and {@link #grow} fails at once with
     * {@link Result#INVALID_USAGE} saying the communicator is suspended; {@link #close}, {@link #abort},
     * {@link #revoke}, {@link #shrink} and {@link #memoryStats} work.
     *
     * @throws JcclException {@link Result#INVALID_USAGE} on every rank when any rank refuses; the failure of a
     *                       broken communicator
     */
    void suspend();

    /**
     * Collective over every rank (NCCL's {@code ncclCommResume}): takes back the memory {@link #suspend()} released,
     * maps the peers' shared memory again and reconnects the rings, then waits for every rank (a barrier), so the
     * next call works as before. Other connectors reconnect when a call first needs them, as after init.
     *
     * @throws JcclException {@link Result#INVALID_USAGE} on every rank when any rank is not suspended
     */
    void resume();

    /**
     * The memory this rank of the communicator holds, by kind, counted where it was allocated (NCCL's
     * {@code ncclCommMemStats}). Local; any thread.
     *
     * @return the byte counts, and whether the communicator is suspended
     */
    MemoryStats memoryStats();

    /**
     * The ranks this rank knows are gone (killed, crashed, stopped answering, or left after a failure), ascending;
     * empty while every peer is fine. A rank that detects a loss tells the others, so survivors agree on it quickly.
     *
     * @return the lost ranks, ascending (a fresh array)
     */
    int[] lostRanks();

    // ---- lifecycle ---------------------------------------------------------------------------------------

    /**
     * The error that broke this communicator (a lost peer, a timeout, an abort), or {@code null} while it is
     * healthy (NCCL's {@code ncclCommGetAsyncError}).
     *
     * @return the error, or {@code null}
     */
    JcclException asyncError();

    /**
     * Stops this communicator now, from any thread: every blocked or later call fails with {@link Result#ABORTED},
     * peers see the connection drop; resources are released (NCCL's {@code ncclCommAbort}).
     */
    void abort();

    /**
     * Stops in-flight work without releasing anything, from any thread (NCCL's {@code ncclCommRevoke}): blocked and
     * later operations fail (later ones with {@link Result#INVALID_USAGE}), peers are told so their in-flight
     * operations fail too, and the communicator can still be {@link #shrink shrunk}, {@link #split split}, aborted
     * or closed.
     */
    void revoke();

    /**
     * Waits for every operation issued so far, then releases the communicator's threads, sockets and memory
     * (NCCL's {@code ncclCommFinalize} followed by {@code ncclCommDestroy}). Idempotent. A broken communicator is
     * released without waiting. The communicators of {@link #initAll} are released together, when the last of them
     * closes.
     */
    @Override
    void close();
}
