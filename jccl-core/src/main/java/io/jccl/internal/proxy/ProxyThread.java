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
    private static final java.util.function.Consumer<SelectionKey> IGNORE_KEY = k -> { };
    private final CommHealth health;
    private final int rank;
    private final int spins;
    private final Selector selector;
    private final ConcurrentLinkedQueue<ProxyConnection> pending = new ConcurrentLinkedQueue<>();
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

    /** Wakes the proxy if it sleeps; callers publish their work (with a full fence) first. */
    public void wake() {
        if (sleeping) {
            selector.wakeup();
        }
    }

    /** Stops the thread and closes every connector's socket. */
    public void stop() {
        stopping = true;
        selector.wakeup();
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
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

    private void drainPending() {
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
