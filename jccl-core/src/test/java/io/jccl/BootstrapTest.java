package io.jccl;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Bootstrap: handles round-trip, wrong magic is rejected, a missing rank is named. */
class BootstrapTest {
    @Test
    void uniqueIdRoundTripsThrough128Bytes() {
        UniqueId id = Jccl.uniqueId();
        byte[] b = id.toBytes();
        assertThat(b).hasSize(128);
        UniqueId back = UniqueId.fromBytes(b);
        assertThat(back).isEqualTo(id);
        assertThat(back.rootAddress()).isEqualTo(id.rootAddress());
        assertThat(back.magic()).isEqualTo(id.magic());
        assertThat(back.toString()).doesNotContain(java.util.HexFormat.of().formatHex(id.secret()));
        assertThatThrownBy(() -> UniqueId.fromBytes(new byte[10])).isInstanceOf(JcclException.class);
    }

    @Test
    void aRankWithTheWrongMagicIsRejected() {
        UniqueId id = Jccl.uniqueId();
        UniqueId forged = UniqueId.create(id.rootAddress(), id.magic() ^ 1, new byte[32]);
        Config cfg = Config.defaults().withTimeout(Duration.ofSeconds(5));
        assertThatThrownBy(() -> Communicator.init(forged, 2, 0, cfg))
                .isInstanceOf(JcclException.class).hasMessageContaining("magic");
    }

    @Test
    void aMissingRankIsNamedInTheTimeout() throws Exception {
        UniqueId id = Jccl.uniqueId();
        Config cfg = Config.defaults().withTimeout(Duration.ofSeconds(2));
        CompletableFuture<Throwable> r0 = CompletableFuture.supplyAsync(() -> attempt(id, 0, cfg), r -> Thread.ofPlatform().start(r));
        CompletableFuture<Throwable> r2 = CompletableFuture.supplyAsync(() -> attempt(id, 2, cfg), r -> Thread.ofPlatform().start(r));
        Throwable e0 = r0.get(20, TimeUnit.SECONDS);
        Throwable e2 = r2.get(20, TimeUnit.SECONDS);
        for (Throwable e : new Throwable[] {e0, e2}) {
            assertThat(e).isInstanceOf(JcclException.class).hasMessageContaining("[1]").hasMessageContaining("did not join");
            assertThat(((JcclException) e).result()).isEqualTo(Result.TIMEOUT);
        }
    }

    private static Throwable attempt(UniqueId id, int rank, Config cfg) {
        try (Communicator c = Communicator.init(id, 3, rank, cfg)) {
            return null;
        } catch (Throwable t) {
            return t;
        }
    }
}
