package io.jccl.internal.base;

/**
 * How long waiting threads spin and yield before sleeping, decided once per communicator. Yielding is the main idle
 * step: it costs a fraction of a microsecond when nothing else wants the core, and hands the core over when a peer
 * rank, the JIT or the GC does (pure spinning measured 100× slower between two JVMs on two cores, because a spinning
 * rank can hold the core its peer needs for a whole time slice). When the threads that may wait at once on this host
 * outnumber the cores, waits skip spinning and yield only briefly before sleeping on a futex.
 * Owned by: immutable. Mirrors: the oversubscription rule of Open MPI's yield_when_idle / libgomp's spin count.
 *
 * @param spins      onSpinWait iterations before yielding
 * @param yields     Thread.yield iterations before parking
 * @param proxySpins empty proxy polls (each a syscall per socket) before the proxy sleeps in its selector
 */
public record IdlePolicy(int spins, int yields, int proxySpins) {
    /** The policy for {@code waitingThreadsPerHost} threads on a host with {@code cores} cores. */
    public static IdlePolicy forLoad(int waitingThreadsPerHost, int cores) {
        int spins = io.jccl.internal.param.InternalProperties.SPINS.get();
        int yields = io.jccl.internal.param.InternalProperties.YIELDS.get();
        int proxy = io.jccl.internal.param.InternalProperties.PROXY_SPINS.get();
        boolean oversubscribed = waitingThreadsPerHost > cores;
        return new IdlePolicy(spins >= 0 ? spins : oversubscribed ? 0 : 50,
                yields >= 0 ? yields : oversubscribed ? 200 : 5000,
                proxy >= 0 ? proxy : oversubscribed ? 0 : 2000);
    }

    /** A policy for tests and tools that do not know the load. */
    public static IdlePolicy defaults() {
        return forLoad(1, Runtime.getRuntime().availableProcessors());
    }
}
