package io.jccl.tools.perf;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class OpWatchdogTest {

    @Test
    void firesOnceWhenAnArmedOperationRunsTooLong() throws InterruptedException {
        CountDownLatch fired = new CountDownLatch(1);
        try (OpWatchdog dog = new OpWatchdog(0.1, fired::countDown)) {
            dog.arm();
            assertThat(fired.await(5, TimeUnit.SECONDS)).isTrue();
            assertThat(dog.fired()).isTrue();
        }
    }

    @Test
    void staysQuietWhileDisarmedOrWithinTheLimit() throws InterruptedException {
        CountDownLatch fired = new CountDownLatch(1);
        try (OpWatchdog dog = new OpWatchdog(0.2, fired::countDown)) {
            for (int i = 0; i < 5; i++) {
                dog.arm();
                Thread.sleep(20);
                dog.disarm();
            }
            Thread.sleep(400);
            assertThat(fired.getCount()).isEqualTo(1);
            assertThat(dog.fired()).isFalse();
        }
    }

    @Test
    void rejectsNonPositiveTimeouts() {
        assertThatThrownBy(() -> new OpWatchdog(0, () -> { })).hasMessageContaining("positive");
    }
}
