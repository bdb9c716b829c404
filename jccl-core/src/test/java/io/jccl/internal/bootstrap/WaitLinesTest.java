package io.jccl.internal.bootstrap;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.UniqueId;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.LogCapture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Init never waits in silence: a rank whose peers do not come, and a rank whose root cannot be reached, say so every
 * JCCL_WAIT_LOG_MS (who joined, who is missing, the last connect error) until the deadline.
 */
class WaitLinesTest {
    @AfterEach
    void clear() {
        System.clearProperty("JCCL_WAIT_LOG_MS");
    }

    @Test
    void theRootAndTheWaitingRankNameTheMissingRanks() {
        System.setProperty("JCCL_WAIT_LOG_MS", "300");
        long timeoutNs = TimeUnit.MILLISECONDS.toNanos(1_500);
        try (LogCapture log = LogCapture.start(Log.Level.WARN, "ALL")) {
            UniqueId id = BootstrapRoot.startNew();
            assertThatThrownBy(() -> Bootstrap.init(id, 0, 3, timeoutNs)).isInstanceOf(JcclException.class)
                    .satisfies(e -> assertThat(((JcclException) e).result()).isEqualTo(Result.TIMEOUT))
                    .hasMessageContaining("[1, 2]");
            assertThat(log.messages()).anyMatch(m -> m.contains("1 of 3 ranks joined")
                    && m.contains("waiting for rank(s) [1, 2]"));
            assertThat(log.messages()).anyMatch(m -> m.contains("rank 0 of 3: joined the bootstrap root")
                    && m.contains("waiting for the other ranks"));
        }
    }

    @Test
    void aRankThatCannotReachItsRootSaysWhyWhileItRetries() throws Exception {
        System.setProperty("JCCL_WAIT_LOG_MS", "300");
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();   // closed again: nobody listens there
        }
        UniqueId id = UniqueId.create(new InetSocketAddress("127.0.0.1", port));
        try (LogCapture log = LogCapture.start(Log.Level.WARN, "ALL")) {
            assertThatThrownBy(() -> Bootstrap.init(id, 1, 2, TimeUnit.MILLISECONDS.toNanos(1_200)))
                    .isInstanceOf(JcclException.class).hasMessageContaining("could not connect");
            assertThat(log.messages()).anyMatch(m -> m.contains("rank 1: still connecting to the bootstrap root")
                    && m.contains("127.0.0.1:" + port) && m.contains("last error"));
        }
    }
}
