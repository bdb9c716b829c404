package io.jccl.internal.transport.net.socket;

import java.io.IOException;
import java.lang.invoke.VarHandle;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.List;

/**
 * A helper thread of one comm (NCCL_SOCKET_NTHREADS &gt; 1): moves the chunks of the data sockets it owns, and
 * sleeps in a selector on them when nothing moves; posting a chunk wakes it.
 *
 * <p>Owned by: its own thread "jccl-sock-helper-..."; {@link #wake} and {@link #stop} are called by others.
 * Mirrors: net_socket.cc's persistentSocketThread.
 */
final class SocketHelper implements Runnable {
    private static final int SPINS = 200;
    /** The longest {@link #stop} waits for the thread to end. */
    static final long STOP_WAIT_MS = 10_000;
    private final SocketComm comm;
    private final DataLane[] lanes;
    private final Selector selector;
    private final SelectionKey[] keys;
    private final Thread thread;
    private volatile boolean sleeping;
    private volatile boolean stopping;

    SocketHelper(SocketComm comm, List<DataLane> owned, String name) throws IOException {
        this.comm = comm;
        this.lanes = owned.toArray(new DataLane[0]);
        this.selector = Selector.open();
        this.keys = new SelectionKey[lanes.length];
        for (int i = 0; i < lanes.length; i++) {
            keys[i] = lanes[i].wire.channel().register(selector, 0);
            lanes[i].ownedBy(this);
        }
        this.thread = Thread.ofPlatform().daemon().name(name).unstarted(this);
    }

    void start() {
        thread.start();
    }

    void wake() {
        if (sleeping) {
            selector.wakeup();
        }
    }

    /**
     * Stops the thread and waits until it ended, at most {@link #STOP_WAIT_MS}: it reads and writes the memory of
     * the requests it moves, which the comm's owner may free once this returned.
     *
     * @return true when the thread has ended
     */
    boolean stop() {
        stopping = true;
        selector.wakeup();
        boolean interrupted = false;
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(STOP_WAIT_MS);
        for (long leftNs; thread.isAlive() && (leftNs = deadline - System.nanoTime()) > 0; ) {
            try {
                thread.join(java.time.Duration.ofNanos(leftNs));
            } catch (InterruptedException e) {
                interrupted = true;   // keep waiting: see above
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return !thread.isAlive();
    }

    @Override
    public void run() {
        int idle = 0;
        try {
            while (!stopping) {
                boolean moved = false;
                for (DataLane l : lanes) {
                    moved |= l.progress();
                }
                if (moved) {
                    idle = 0;
                } else if (++idle < SPINS) {
                    Thread.onSpinWait();
                } else {
                    idle = 0;
                    sleep();
                }
            }
        } catch (IOException | RuntimeException e) {
            if (!stopping) {
                comm.fail(e instanceof IOException io ? io : new IOException(e.toString(), e));
            }
        } finally {
            try {
                selector.close();
            } catch (IOException ignored) {
                // closing
            }
        }
    }

    private void sleep() throws IOException {
        sleeping = true;
        VarHandle.fullFence();
        boolean work = false;
        for (int i = 0; i < lanes.length; i++) {
            boolean w = lanes[i].hasWork();
            work |= w;
            keys[i].interestOps(w ? (comm.sending ? SelectionKey.OP_WRITE : SelectionKey.OP_READ) : 0);
        }
        if (!stopping) {
            selector.select(k -> { }, work ? 10 : 100);
        }
        sleeping = false;
    }
}
