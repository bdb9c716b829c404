package io.jccl.internal.proxy;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.base.CommHealth;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;

import java.io.IOException;
import java.lang.invoke.VarHandle;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * The communicator's network progress thread (NCCL's proxy progress thread): it polls every network connector's
 * state machine, so channel workers never touch sockets. When nothing moves for a while it sleeps in a
 * {@link Selector} until a socket is readable or a worker posts work ({@link #wake()}).
 *
 * <p>Owned by: its own thread "jccl-proxy-..."; {@link #add}, {@link #wake} and {@link #stop} are called from others.
 * Mirrors: proxy.cc ncclProxyProgress / progressOps.
 */
public final class ProxyThread implements Runnable {
    /** Park while a connection can only be polled (helper threads, plugins without sockets). */
    private static final long POLL_PARK_NS = 20_000;
    /** The longest {@link #stop} waits for the thread to end. */
    static final long STOP_WAIT_MS = 10_000;
    private static final java.util.function.Consumer<SelectionKey> IGNORE_KEY = k -> { };
    private final CommHealth health;
    private final int rank;
    private final int spins;
    private final Selector selector;
    private final ConcurrentLinkedQueue<ProxyConnection> pending = new ConcurrentLinkedQueue<>();
    /** Connectors to stop progressing ({@link #detach}), with the latch their caller waits on. */
    private final ConcurrentLinkedQueue<Detach> detaching = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    private ProxyConnection[] conns = new ProxyConnection[0];
    private SelectionKey[][] keys = new SelectionKey[0][];
    private volatile boolean sleeping;
    private volatile boolean stopping;

    public ProxyThread(CommHealth health, int rank, String name, int spins) {
        this.spins = spins;
        this.health = health;
        this.rank = rank;
        try {
            this.selector = Selector.open();
        } catch (IOException e) {
            throw new JcclException(Result.SYSTEM_ERROR, "cannot open a selector for the proxy thread: "
                    + e.getMessage(), e);
        }
        this.thread = new Thread(this, name);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /** Hands a connector to the proxy thread; refused (and the connector closed) once the thread is stopping. */
    public void add(ProxyConnection c) {
        if (stopping) {
            c.close();
            throw new JcclException(Result.INVALID_USAGE, "rank " + rank + ": a data connection was set up after "
                    + "the communicator's proxy thread stopped (the communicator is closed or aborted)");
        }
        pending.add(c);
        selector.wakeup();
    }

    /** A {@link #detach} request: the connectors, and the latch counted down once the proxy dropped them. */
    private record Detach(java.util.Set<ProxyConnection> conns, java.util.concurrent.CountDownLatch done) {
    }

    /**
     * Stops progressing {@code conns} without closing them (a communicator being suspended: it closes them itself
     * once every rank stopped, so no proxy sees a peer's connection close and takes it for a failure). Waits until
     * the proxy thread dropped them, at most {@code timeoutNs}; true when it did (or the thread has ended).
     */
    public boolean detach(java.util.Collection<? extends ProxyConnection> conns, long timeoutNs) {
        if (conns.isEmpty() || !thread.isAlive()) {
            return true;
        }
        java.util.Set<ProxyConnection> set = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        set.addAll(conns);
        Detach d = new Detach(set, new java.util.concurrent.CountDownLatch(1));
        detaching.add(d);
        selector.wakeup();
        long deadline = System.nanoTime() + timeoutNs;
        boolean interrupted = false;
        try {
            while (thread.isAlive()) {
                long leftNs = deadline - System.nanoTime();
                if (leftNs <= 0) {
                    return false;
                }
                try {
                    if (d.done().await(Math.min(leftNs, 100_000_000L), java.util.concurrent.TimeUnit.NANOSECONDS)) {
                        return true;
                    }
                } catch (InterruptedException e) {
                    interrupted = true;   // keep waiting: the caller frees the connectors' memory next
                }
            }
            return true;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Wakes the proxy if it sleeps; callers publish their work (with a full fence) first. */
    public void wake() {
        if (sleeping) {
            selector.wakeup();
        }
    }

    /**
     * Stops the thread and closes every connector; waits until the thread has ended, at most {@link #STOP_WAIT_MS},
     * with a warning line every 2 s it takes. Memory the connectors read or write (slots, GPU FIFOs) may be freed
     * only once this returned true: a proxy still running would touch it after its release (a crash, or another
     * allocation's bytes overwritten).
     *
     * @return true when the thread has ended
     */
    public boolean stop() {
        stopping = true;
        selector.wakeup();
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(STOP_WAIT_MS);
        boolean interrupted = false;
        while (thread.isAlive()) {
            long leftNs = deadline - System.nanoTime();
            if (leftNs <= 0) {
                Log.warn(rank, "proxy thread %s did not stop within %d ms; the memory of its connectors stays "
                        + "allocated", thread.getName(), STOP_WAIT_MS);
                break;
            }
            try {
                if (!thread.join(java.time.Duration.ofNanos(Math.min(leftNs, 2_000_000_000L)))) {
                    Log.warn(rank, "proxy thread %s is still stopping (at %s)", thread.getName(), where());
                }
            } catch (InterruptedException e) {
                interrupted = true;   // keep waiting: the memory must not be freed under a running proxy
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return !thread.isAlive();
    }

    /** True once the thread has ended (never started threads count as ended). */
    public boolean ended() {
        return !thread.isAlive();
    }

    /** The top frame of the proxy thread, for the warning of a slow stop. */
    private String where() {
        StackTraceElement[] st = thread.getStackTrace();
        return st.length > 0 ? st[0].toString() : "no frame";
    }

    /** True when called from the proxy thread itself. */
    public boolean isProxyThread() {
        return Thread.currentThread() == thread;
    }

    @Override
    public void run() {
        int idle = 0;
        try {
            while (!stopping) {
                drainPending();
                boolean moved = false;
                if (!health.isBroken()) {
                    for (ProxyConnection c : conns) {
                        moved |= c.progress();
                    }
                }
                if (moved) {
                    idle = 0;
                    continue;
                }
                if (++idle < spins) {
                    Thread.onSpinWait();
                    continue;
                }
                sleep();
                idle = 0;
            }
        } catch (JcclException e) {
            health.fail(e);
        } catch (RuntimeException | Error e) {
            health.fail(new JcclException(Result.INTERNAL_ERROR, "rank " + rank + ": proxy thread crashed: " + e, e));
        } finally {
            for (ProxyConnection c : conns) {
                c.close();
            }
            for (ProxyConnection c; (c = pending.poll()) != null; ) {
                c.close();
            }
            try {
                selector.close();
            } catch (IOException ignored) {
                // closing
            }
        }
    }

    private void sleep() {
        sleeping = true;
        VarHandle.fullFence();
        boolean moved = false;
        if (!health.isBroken()) {
            for (ProxyConnection c : conns) {
                moved |= c.progress();
            }
        }
        boolean selectable = true;
        for (ProxyConnection c : conns) {
            selectable &= c.canSleep();
        }
        if (!moved && !stopping && pending.isEmpty() && !selectable) {
            LockSupport.parkNanos(POLL_PARK_NS);
        } else if (!moved && !stopping && pending.isEmpty()) {
            for (int i = 0; i < conns.length; i++) {
                for (int j = 0; j < keys[i].length; j++) {
                    SelectionKey k = keys[i][j];
                    if (k.isValid()) {
                        k.interestOps(conns[i].sleepInterest(j));
                    }
                }
            }
            try {
                selector.select(IGNORE_KEY, 100); // keys need no handling; no selected-key set entries allocated
            } catch (IOException e) {
                Log.warn(rank, "proxy selector failed: %s", e.getMessage());
            }
        }
        sleeping = false;
    }

    /** Drops the connectors of {@code d} (pending ones too), cancelling their selection keys. */
    private void dropAll(Detach d) {
        pending.removeIf(d.conns()::contains);
        int k = 0;
        for (int i = 0; i < conns.length; i++) {
            if (d.conns().contains(conns[i])) {
                for (SelectionKey key : keys[i]) {
                    key.cancel();
                }
            } else {
                conns[k] = conns[i];
                keys[k++] = keys[i];
            }
        }
        if (k < conns.length) {
            conns = Arrays.copyOf(conns, k);
            keys = Arrays.copyOf(keys, k);
            Log.trace(Subsys.PROXY, rank, "proxy: now progressing %d connectors", k);
        }
        d.done().countDown();
    }

    private void drainPending() {
        for (Detach d; (d = detaching.poll()) != null; ) {
            dropAll(d);
        }
        ProxyConnection c;
        while ((c = pending.poll()) != null) {
            try {
                SelectableChannel[] chs = c.channels();
                SelectionKey[] k = new SelectionKey[chs.length];
                for (int j = 0; j < chs.length; j++) {
                    k[j] = chs[j].register(selector, 0);
                }
                conns = Arrays.copyOf(conns, conns.length + 1);
                keys = Arrays.copyOf(keys, keys.length + 1);
                conns[conns.length - 1] = c;
                keys[keys.length - 1] = k;
                Log.trace(Subsys.PROXY, rank, "proxy: now progressing %d connectors", conns.length);
            } catch (ClosedChannelException | java.nio.channels.IllegalBlockingModeException e) {
                health.fail(new JcclException(Result.REMOTE_ERROR, "rank " + rank
                        + ": a data connection closed before use"));
            }
        }
    }
}
