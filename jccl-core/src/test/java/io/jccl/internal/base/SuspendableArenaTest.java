package io.jccl.internal.base;

import io.jccl.JcclException;
import io.jccl.MemoryStats;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The memory ledger counts what its arenas allocate and map, and forgets it when they close; a suspendable arena
 * frees a period's memory at once and opens a new period on the next allocation.
 */
class SuspendableArenaTest {
    @Test
    void aCountedArenaCountsAllocationsAndMappingsUntilItCloses() {
        MemoryLedger ledger = new MemoryLedger();
        CountedArena a = new CountedArena(ledger);
        MemorySegment s = a.allocate(1000, 64);
        a.allocate(24);
        a.mapped(MemoryLedger.Kind.SHARED, 4096);
        a.mapped(MemoryLedger.Kind.PEER_MAPPED, 8192);
        a.uncounted().allocate(1 << 20);   // the application's: not counted
        assertThat(ledger.stats()).isEqualTo(new MemoryStats(1024, 4096, 8192, 0, 0, 0, false));
        assertThat(a.ownBytes()).isEqualTo(1024 + 4096);
        assertThat(ledger.stats().totalBytes()).isEqualTo(1024 + 4096);
        a.close();
        assertThat(ledger.stats()).isEqualTo(new MemoryStats(0, 0, 0, 0, 0, 0, false));
        assertThatThrownBy(() -> s.get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aSuspendableArenaFreesAPeriodAndOpensTheNext() {
        MemoryLedger ledger = new MemoryLedger();
        SuspendableArena sa = new SuspendableArena(ledger);
        Arena first = sa.arena();
        MemorySegment s = first.allocate(4096);
        assertThat(sa.arena()).isSameAs(first);
        assertThat(sa.release()).isEqualTo(4096);
        assertThat(s.scope().isAlive()).isFalse();
        assertThat(ledger.bytes(MemoryLedger.Kind.HOST)).isZero();
        assertThat(sa.release()).isZero();
        Arena second = sa.arena();
        assertThat(second).isNotSameAs(first);
        second.allocate(100);
        ledger.suspended(4096);
        assertThat(ledger.stats()).isEqualTo(new MemoryStats(100, 0, 0, 0, 0, 4096, true));
        ledger.resumed();
        assertThat(ledger.stats().suspended()).isFalse();
        assertThat(ledger.stats().suspendedBytes()).isZero();
        sa.close();
        assertThat(ledger.bytes(MemoryLedger.Kind.HOST)).isZero();
        assertThatThrownBy(sa::arena).isInstanceOf(JcclException.class).hasMessageContaining("closed or aborted");
    }

    @Test
    void statsOfAGpuRankAndItsHostCommunicatorAdd() {
        MemoryStats gpu = new MemoryStats(1, 0, 10, 100, 1000, 1101, true);
        MemoryStats host = new MemoryStats(2, 20, 30, 0, 0, 22, true);
        assertThat(MemoryLedger.sum(gpu, host)).isEqualTo(new MemoryStats(3, 20, 40, 100, 1000, 1123, true));
        assertThat(MemoryStats.size(1536)).isEqualTo("1.5 KiB");
        assertThat(MemoryStats.size(1L << 30)).isEqualTo("1.0 GiB");
        assertThat(MemoryStats.size(1000)).isEqualTo("1000 B");
    }
}
