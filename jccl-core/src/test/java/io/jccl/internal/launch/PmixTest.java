package io.jccl.internal.launch;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.UniqueId;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.LogCapture;
import io.jccl.launch.Placement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The PMIx session and the pmix rendezvous against a libpmix made of Java methods (a PMIx server of one namespace
 * whose key-value store is a map), reading and writing the structs at the offsets the real one uses.
 */
class PmixTest {
    private static final Map<String, String> STORE = new ConcurrentHashMap<>();
    private static final AtomicInteger FINALIZES = new AtomicInteger();
    private static volatile int rankOfInit;
    private static volatile int fenceStatus;
    private static volatile boolean fenceBlocks;
    private static volatile int fenceTimeoutSeconds;
    private static volatile boolean fenceCollects;

    @AfterEach
    void reset() {
        STORE.clear();
        FINALIZES.set(0);
        fenceStatus = 0;
        fenceBlocks = false;
    }

    @Test
    void rankZeroPutsTheIdAndTheOthersGetIt() {
        Pmix.Lib lib = fakeLib();
        UniqueId made = UniqueId.create(new InetSocketAddress("127.0.0.1", 4242));
        rankOfInit = 0;
        UniqueId atZero = PmixRendezvous.exchange(lib, Map.of(), new Placement(0, 2, 0, 2, "test"), () -> made,
                Duration.ofSeconds(30));
        assertThat(atZero).isEqualTo(made);
        assertThat(STORE).hasSize(1);
        assertThat(STORE.keySet().iterator().next()).startsWith(PmixRendezvous.KEY + ".");
        assertThat(fenceCollects).isTrue();
        assertThat(fenceTimeoutSeconds).isBetween(29, 30);
        rankOfInit = 1;
        UniqueId atOne = PmixRendezvous.exchange(lib, Map.of(), new Placement(1, 2, 1, 2, "test"), () -> {
            throw new AssertionError("only rank 0 makes the id");
        }, Duration.ofSeconds(30));
        assertThat(atOne).isEqualTo(made);
        assertThat(FINALIZES.get()).isEqualTo(2);
    }

    @Test
    void aRankOtherThanTheLaunchersIsRefusedAndStillFinalized() {
        rankOfInit = 3;
        assertThatThrownBy(() -> PmixRendezvous.exchange(fakeLib(), Map.of(), new Placement(0, 4, 0, 4, "test"),
                () -> UniqueId.create(new InetSocketAddress("127.0.0.1", 1)), Duration.ofSeconds(5)))
                .isInstanceOf(JcclException.class).hasMessageContaining("rank 3").hasMessageContaining("fake-ns");
        assertThat(FINALIZES.get()).isEqualTo(1);
    }

    @Test
    void aFenceThatNeverReturnsTimesOutNamingRankNamespaceAndCall() {
        rankOfInit = 1;
        fenceBlocks = true;
        long t0 = System.nanoTime();
        try (LogCapture log = LogCapture.start(Log.Level.WARN, "ALL")) {
            Pmix pmix = Pmix.init(fakeLib(), Map.of(), Duration.ofMillis(400), TimeUnit.MILLISECONDS.toNanos(100));
            assertThatThrownBy(pmix::fence).isInstanceOf(JcclException.class)
                    .satisfies(e -> assertThat(((JcclException) e).result()).isEqualTo(Result.TIMEOUT))
                    .hasMessageContaining("PMIx_Fence").hasMessageContaining("rank 1")
                    .hasMessageContaining("namespace fake-ns");
            pmix.close();
            assertThat(log.messages()).anyMatch(m -> m.contains("still waiting in PMIx_Fence"))
                    .anyMatch(m -> m.contains("not finalized: PMIx_Fence never returned"));
        }
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isLessThan(5_000);
        assertThat(FINALIZES.get()).isZero();
    }

    @Test
    void theLibrarysOwnTimeoutIsATimeoutAndOtherStatusesNameTheCall() {
        rankOfInit = 2;
        fenceStatus = Pmix.ERR_TIMEOUT;
        try (Pmix pmix = Pmix.init(fakeLib(), Map.of(), Duration.ofSeconds(5))) {
            assertThatThrownBy(pmix::fence).isInstanceOf(JcclException.class)
                    .satisfies(e -> assertThat(((JcclException) e).result()).isEqualTo(Result.TIMEOUT))
                    .hasMessageContaining("FAKE_ERROR (-24)").hasMessageContaining("rank 2");
            fenceStatus = -1;
            assertThatThrownBy(pmix::fence).isInstanceOf(JcclException.class)
                    .satisfies(e -> assertThat(((JcclException) e).result()).isEqualTo(Result.SYSTEM_ERROR))
                    .hasMessageContaining("PMIx_Fence of rank 2 in namespace fake-ns failed");
        }
        assertThat(FINALIZES.get()).isEqualTo(1);
    }

    @Test
    void numbersOfEachWidthAreRead() {
        rankOfInit = 0;
        STORE.put("pmix.lrank", "u16:65535");
        STORE.put("pmix.job.size", "u32:4000000000");
        try (Pmix pmix = Pmix.init(fakeLib(), Map.of(), Duration.ofSeconds(5))) {
            assertThat(pmix.getNumber(0, "pmix.lrank")).isEqualTo(65535);
            assertThat(pmix.getNumber(Pmix.RANK_WILDCARD, "pmix.job.size")).isEqualTo(4_000_000_000L);
        }
    }

    @Test
    void environmentAndLibraryNames() {
        assertThat(Pmix.inEnvironment(Map.of("PMIX_SERVER_URI41", "x"))).isTrue();
        assertThat(Pmix.inEnvironment(Map.of("PMIX_RANK", "0"))).isTrue();
        assertThat(Pmix.inEnvironment(Map.of("SLURM_PROCID", "0"))).isFalse();
        assertThat(new PmixRendezvous().detect(Map.of("OMPI_COMM_WORLD_RANK", "0"))).isFalse();
        assertThat(Pmix.libraryNames("")).isEqualTo(List.of("libpmix.so.2", System.mapLibraryName("pmix")));
        assertThat(Pmix.libraryNames(" /opt/pmix/lib/libpmix.so ")).containsExactly("/opt/pmix/lib/libpmix.so");
    }

    // ---- a libpmix of Java methods ---------------------------------------------------------------------------

    private static Pmix.Lib fakeLib() {
        return new Pmix.Lib("fake", h("init", int.class, MemorySegment.class, MemorySegment.class, long.class),
                h("fin", int.class, MemorySegment.class, long.class),
                h("put", int.class, byte.class, MemorySegment.class, MemorySegment.class),
                h("commit", int.class),
                h("fence", int.class, MemorySegment.class, long.class, MemorySegment.class, long.class),
                h("get", int.class, MemorySegment.class, MemorySegment.class, MemorySegment.class, long.class,
                        MemorySegment.class),
                h("nothing", void.class, MemorySegment.class),
                h("errorString", MemorySegment.class, int.class),
                h("nothing", void.class, MemorySegment.class));
    }

    private static MethodHandle h(String name, Class<?> returned, Class<?>... params) {
        try {
            return MethodHandles.lookup().findStatic(PmixTest.class, name, MethodType.methodType(returned, params));
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    static int init(MemorySegment proc, MemorySegment info, long ninfo) {
        proc.asSlice(0, Pmix.NSPACE_MAX + 1).fill((byte) 0).setString(0, "fake-ns");
        proc.set(JAVA_INT, Pmix.PROC_RANK, rankOfInit);
        return 0;
    }

    static int fin(MemorySegment info, long ninfo) {
        FINALIZES.incrementAndGet();
        return 0;
    }

    @SuppressWarnings("restricted")
    static int put(byte scope, MemorySegment key, MemorySegment value) {
        assertThat(scope).isEqualTo(Pmix.SCOPE_GLOBAL);
        assertThat(value.get(JAVA_SHORT, 0)).isEqualTo(Pmix.TYPE_STRING);
        STORE.put(key.getString(0), value.get(ADDRESS, Pmix.VALUE_DATA).reinterpret(Long.MAX_VALUE).getString(0));
        return 0;
    }

    static int commit() {
        return 0;
    }

    static int fence(MemorySegment procs, long nprocs, MemorySegment info, long ninfo) throws InterruptedException {
        assertThat(nprocs).isEqualTo(1);
        assertThat(procs.getString(0)).isEqualTo("fake-ns");
        assertThat(procs.get(JAVA_INT, Pmix.PROC_RANK)).isEqualTo(Pmix.RANK_WILDCARD);
        for (int i = 0; i < ninfo; i++) {
            MemorySegment one = info.asSlice(i * Pmix.INFO_BYTES, Pmix.INFO_BYTES);
            MemorySegment v = one.asSlice(Pmix.INFO_VALUE);
            switch (one.getString(0)) {
                case "pmix.collect" -> fenceCollects = v.get(JAVA_SHORT, 0) == Pmix.TYPE_BOOL
                        && v.get(JAVA_BYTE, Pmix.VALUE_DATA) == 1;
                case "pmix.timeout" -> fenceTimeoutSeconds = v.get(JAVA_INT, Pmix.VALUE_DATA);
                default -> throw new AssertionError(one.getString(0));
            }
        }
        if (fenceBlocks) {
            Thread.sleep(Long.MAX_VALUE);
        }
        return fenceStatus;
    }

    static int get(MemorySegment proc, MemorySegment key, MemorySegment info, long ninfo, MemorySegment out) {
        String k = key.getString(0);
        String stored = STORE.get(k);
        if (stored == null && k.startsWith(PmixRendezvous.KEY)) {
            stored = STORE.values().stream().filter(s -> !s.contains(":")).findFirst().orElse(null);
        }
        if (stored == null) {
            return -46;
        }
        MemorySegment v = Arena.global().allocate(Pmix.VALUE_BYTES, 8);
        if (stored.startsWith("u16:")) {
            v.set(JAVA_SHORT, 0, Pmix.TYPE_UINT16);
            v.set(JAVA_SHORT, Pmix.VALUE_DATA, (short) Integer.parseInt(stored.substring(4)));
        } else if (stored.startsWith("u32:")) {
            v.set(JAVA_SHORT, 0, Pmix.TYPE_UINT32);
            v.set(JAVA_INT, Pmix.VALUE_DATA, (int) Long.parseLong(stored.substring(4)));
        } else {
            v.set(JAVA_SHORT, 0, Pmix.TYPE_STRING);
            v.set(ADDRESS, Pmix.VALUE_DATA, Arena.global().allocateFrom(stored));
        }
        out.set(ADDRESS, 0, v);
        return 0;
    }

    static void nothing(MemorySegment value) {
    }

    static MemorySegment errorString(int status) {
        return Arena.global().allocateFrom("FAKE_ERROR");
    }
}
