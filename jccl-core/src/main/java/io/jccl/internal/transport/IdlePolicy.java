package io.jccl.internal.transport;

/**
 * How long waiting threads spin and yield before parking, decided once per communicator: when the threads that may
 * wait at once on this host (each local rank's caller or channel workers plus its proxy) outnumber the cores,
 * spinning only steals the core the peer needs, so waits park at once and rely on explicit wake-ups.
 * Owned by: immutable. Mirrors: the oversubscription rule of Open MPI's yield_when_idle / libgomp's spin count.
 *
 * @param spins      onSpinWait iterations before yielding
 * @param yields     Thread.yield iterations before parking
 * @param proxySpins empty proxy polls (each a syscall per socket) before the proxy sleeps in its selector
 */
public record IdlePolicy(int spins, int yields, int proxySpins) {
    /** The policy for {@code waitingThreadsPerHost} threads on a host with {@code cores} cores. */
    public static IdlePolicy forLoad(int waitingThreadsPerHost, int cores) {
        int spins = Integer.getInteger("jccl.spins", -1);
        int yields = Integer.getInteger("jccl.yields", -1);
        int proxy = Integer.getInteger("jccl.proxySpins", -1);
        boolean oversubscribed = waitingThreadsPerHost > cores;
        return new IdlePolicy(spins >= 0 ? spins : oversubscribed ? 0 : 4000,
                yields >= 0 ? yields : oversubscribed ? 0 : 20,
                proxy >= 0 ? proxy : oversubscribed ? 0 : 2000);
    }

    /** A policy for tests and tools that do not know the load. */
    public static IdlePolicy defaults() {
        return forLoad(1, Runtime.getRuntime().availableProcessors());
    }
}
