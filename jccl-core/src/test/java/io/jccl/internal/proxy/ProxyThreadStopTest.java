package io.jccl.internal.proxy;

import io.jccl.internal.base.CommHealth;
import org.junit.jupiter.api.Test;

import java.nio.channels.SelectableChannel;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ProxyThread#stop} returns only once the thread has ended, so the memory its connectors touch can be freed
 * after it: a stop that gave up after a fixed join let a GPU communicator free pinned FIFOs the proxy still read.
 */
class ProxyThreadStopTest {
    /** A connector that polls until told to close, and whose close takes {@code closeMs}. */
    private static final class SlowClose implements ProxyConnection {
        final CountDownLatch polled = new CountDownLatch(1);
        final AtomicBoolean closed = new AtomicBoolean();
        final long closeMs;
        volatile boolean progressAfterClose;

        SlowClose(long closeMs) {
            this.closeMs = closeMs;
        }

        @Override
        public boolean progress() {
            progressAfterClose |= closed.get();
            polled.countDown();
            return false;
        }

        @Override
        public SelectableChannel[] channels() {
            return new SelectableChannel[0];
        }

        @Override
        public int sleepInterest(int i) {
            return 0;
        }

        @Override
        public boolean canSleep() {
            return false;
        }

        @Override
        public void close() {
            try {
                Thread.sleep(closeMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            closed.set(true);
        }
    }

    @Test
    void stopWaitsForTheThreadToEndEvenWhenClosingTakesLong() throws InterruptedException {
        ProxyThread proxy = new ProxyThread(new CommHealth(2), 0, "jccl-proxy-stop-test", 10);
        SlowClose c = new SlowClose(3000);   // longer than the 2 s the stop used to wait
        proxy.add(c);
        assertThat(c.polled.await(10, TimeUnit.SECONDS)).isTrue();
        long t0 = System.nanoTime();
        assertThat(proxy.stop()).isTrue();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isGreaterThanOrEqualTo(2900);
        assertThat(c.closed).isTrue();
        assertThat(proxy.ended()).isTrue();
        assertThat(c.progressAfterClose).isFalse();
    }

    @Test
    void aQuickStopEndsTheThread() throws InterruptedException {
        ProxyThread proxy = new ProxyThread(new CommHealth(2), 0, "jccl-proxy-stop-test-2", 10);
        SlowClose c = new SlowClose(0);
        proxy.add(c);
        assertThat(c.polled.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(proxy.ended()).isFalse();
        assertThat(proxy.stop()).isTrue();
        assertThat(proxy.ended()).isTrue();
        assertThat(c.closed).isTrue();
    }
}
