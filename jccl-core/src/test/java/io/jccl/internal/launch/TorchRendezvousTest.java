package io.jccl.internal.launch;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.UniqueId;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.LogCapture;
import io.jccl.launch.Placement;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class TorchRendezvousTest {
    private static final Path PYTHON = Path.of("/usr/bin/python3");
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    /** The environment torchrun gives rank {@code rank} of {@code size}, its agent's store at {@code port}. */
    private static Map<String, String> env(int rank, int size, int port, String attempt, boolean agentStore) {
        Map<String, String> env = new HashMap<>();
        env.put("RANK", Integer.toString(rank));
        env.put("WORLD_SIZE", Integer.toString(size));
        env.put("LOCAL_RANK", Integer.toString(rank));
        env.put("LOCAL_WORLD_SIZE", Integer.toString(size));
        env.put("MASTER_ADDR", "127.0.0.1");
        env.put("MASTER_PORT", Integer.toString(port));
        env.put("TORCHELASTIC_RUN_ID", "run-42");
        env.put("TORCHELASTIC_RESTART_COUNT", attempt);
        env.put("TORCHELASTIC_MAX_RESTARTS", "3");
        env.put("TORCHELASTIC_USE_AGENT_STORE", agentStore ? "True" : "False");
        return env;
    }

    private static TorchRendezvous rendezvous(Map<String, String> env) {
        return new TorchRendezvous(() -> env, new AtomicInteger(), () -> Duration.ofMillis(100));
    }

    private static UniqueId someId(int port) {
        return UniqueId.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    }

    /** Ranks 1..size-1 start waiting first, rank 0 publishes a little later; every rank's id is returned. */
    private static List<UniqueId> shareAll(int size, int port, String attempt, UniqueId made) throws Exception {
        List<CompletableFuture<UniqueId>> others = new ArrayList<>();
        for (int r = 1; r < size; r++) {
            Map<String, String> e = env(r, size, port, attempt, true);
            TorchRendezvous rv = rendezvous(e);
            Placement p = rv.placement(e);
            others.add(CompletableFuture.supplyAsync(() -> rv.shareId(p, () -> {
                throw new AssertionError("only rank 0 makes the id");
            }, TIMEOUT)));
        }
        Thread.sleep(300);
        Map<String, String> e0 = env(0, size, port, attempt, true);
        TorchRendezvous rv0 = rendezvous(e0);
        List<UniqueId> ids = new ArrayList<>();
        ids.add(rv0.shareId(rv0.placement(e0), () -> made, TIMEOUT));
        for (CompletableFuture<UniqueId> f : others) {
            ids.add(f.get(60, TimeUnit.SECONDS));
        }
        return ids;
    }

    @Test
    void torchrunIsDetectedAboveMasterAddressAndPlacesByRank() {
        Map<String, String> e = env(2, 4, 29500, "0", false);
        TorchRendezvous rv = new TorchRendezvous();
        assertThat(rv.detect(e)).isTrue();
        assertThat(rv.placement(e)).isEqualTo(new Placement(2, 4, 2, 4, "torchrun"));
        assertThat(Rendezvouses.detect(e).name()).isEqualTo("torchrun");
        Map<String, String> plain = new HashMap<>(e);
        plain.keySet().removeIf(k -> k.startsWith("TORCHELASTIC_"));
        assertThat(rv.detect(plain)).isFalse();
        assertThat(Rendezvouses.detect(plain).name()).isEqualTo("address");
        assertThat(rv.priority()).isGreaterThan(10).isLessThan(100);
    }

    @Test
    void theIdGoesThroughAValidatingStore() throws Exception {
        try (FakeTorchStore store = new FakeTorchStore()) {
            try (TcpStoreClient c = TcpStoreClient.connect(store.address(), deadline(), Duration.ofSeconds(5))) {
                assertThat(c.dialect()).isEqualTo(TcpStoreClient.Dialect.VALIDATED);
            }
            UniqueId made = someId(4242);
            List<UniqueId> ids = shareAll(3, store.port(), "0", made);
            assertThat(ids).containsOnly(made).hasSize(3);
            assertThat(store.value("/jccl/run-42/attempt_0/unique_id/0")).isEqualTo(made.toBytes());
        }
    }

    @Test
    void aRestartPublishesAFreshKeyAndTheNextIdOfAProcessTheNextOne() throws Exception {
        try (FakeTorchStore store = new FakeTorchStore()) {
            shareAll(2, store.port(), "0", someId(1000));
            UniqueId second = someId(2000);
            assertThat(shareAll(2, store.port(), "1", second)).containsOnly(second);
            assertThat(store.value("/jccl/run-42/attempt_1/unique_id/0")).isEqualTo(second.toBytes());

            Map<String, String> e0 = env(0, 2, store.port(), "1", true);
            TorchRendezvous rv0 = rendezvous(e0);
            rv0.shareId(rv0.placement(e0), () -> someId(3000), TIMEOUT);
            UniqueId next = someId(3001);
            rv0.shareId(rv0.placement(e0), () -> next, TIMEOUT);
            assertThat(UniqueId.fromBytes(store.value("/jccl/run-42/attempt_1/unique_id/1"))).isEqualTo(next);
        }
    }

    @Test
    void aRankWaitingInVainNamesItselfTheStoreTheKeyAndTheTimeAndSaysSoEveryInterval() throws Exception {
        try (FakeTorchStore store = new FakeTorchStore(); LogCapture log = LogCapture.start(Log.Level.WARN, "ALL")) {
            Map<String, String> e = env(3, 4, store.port(), "2", true);
            TorchRendezvous rv = rendezvous(e);
            Placement p = rv.placement(e);
            assertThatThrownBy(() -> rv.shareId(p, () -> someId(1), Duration.ofMillis(450)))
                    .isInstanceOfSatisfying(JcclException.class, x -> assertThat(x.result()).isEqualTo(Result.TIMEOUT))
                    .hasMessageContaining("rank 3")
                    .hasMessageContaining("127.0.0.1:" + store.port())
                    .hasMessageContaining("/jccl/run-42/attempt_2/unique_id/0")
                    .hasMessageMatching("(?s).*waited \\d+\\.\\d s.*");
            assertThat(log.messages()).filteredOn(m -> m.contains("still waiting")).hasSizeGreaterThanOrEqualTo(2)
                    .allSatisfy(m -> assertThat(m).contains("rank 3").contains("/jccl/run-42/attempt_2/unique_id/0")
                            .contains("127.0.0.1:" + store.port()));
        }
    }

    @Test
    void aStoreThatAnswersNeitherDialectIsRefused() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            List<Socket> held = new ArrayList<>();
            Thread t = Thread.ofVirtual().start(() -> {
                try {
                    while (true) {
                        held.add(silent.accept());
                    }
                } catch (IOException ignored) {
                    // closed
                }
            });
            InetSocketAddress at = new InetSocketAddress(InetAddress.getLoopbackAddress(), silent.getLocalPort());
            assertThatThrownBy(() -> TcpStoreClient.connect(at, deadline(), Duration.ofMillis(200)))
                    .isInstanceOf(IOException.class).hasMessageContaining("no torch TCPStore answers at")
                    .hasMessageContaining("did not answer");
            silent.close();
            t.join();
        }
    }

    @Test
    void noStoreAtAllIsATimeoutNamingTheStore() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Map<String, String> e = env(1, 2, port, "0", true);
        TorchRendezvous rv = rendezvous(e);
        assertThatThrownBy(() -> rv.shareId(rv.placement(e), () -> someId(1), Duration.ofMillis(500)))
                .isInstanceOfSatisfying(JcclException.class, x -> assertThat(x.result()).isEqualTo(Result.TIMEOUT))
                .hasMessageContaining("rank 1").hasMessageContaining("127.0.0.1:" + port)
                .hasMessageContaining("/jccl/run-42/attempt_0/unique_id/0").hasMessageContaining("cannot connect");
    }

    @Test
    void withoutAnAgentStoreEveryRankDerivesTheIdOfTheRunAndAttempt() {
        int port = 40000 + (int) (ProcessHandle.current().pid() % 20000);
        Map<String, String> e1 = env(1, 2, port, "0", false);
        Map<String, String> e2 = env(2, 3, port, "0", false);
        Map<String, String> again = env(1, 2, port, "1", false);
        Supplier<UniqueId> none = () -> {
            throw new AssertionError("no id is made without an agent store");
        };
        UniqueId a = rendezvous(e1).shareId(rendezvous(e1).placement(e1), none, TIMEOUT);
        UniqueId b = rendezvous(e2).shareId(rendezvous(e2).placement(e2), none, TIMEOUT);
        UniqueId c = rendezvous(again).shareId(rendezvous(again).placement(again), none, TIMEOUT);
        assertThat(a).isEqualTo(b);
        assertThat(a.rootAddress().getPort()).isEqualTo(port);
        assertThat(c).isNotEqualTo(a);
        assertThat(c.magic()).isNotEqualTo(a.magic());
    }

    /** A real torch TCPStore (whatever torch /usr/bin/python3 has), the id shared through it both ways. */
    @Test
    void theIdGoesThroughARealTorchStore() throws Exception {
        assumeTrue(Files.isExecutable(PYTHON), "no " + PYTHON + ": the real TCPStore test is skipped");
        Process probe = new ProcessBuilder(PYTHON.toString(), "-c", "import torch.distributed")
                .redirectErrorStream(true).start();
        probe.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
        assumeTrue(probe.waitFor(60, TimeUnit.SECONDS) && probe.exitValue() == 0,
                PYTHON + " has no torch.distributed: the real TCPStore test is skipped");
        String script = String.join("\n",
                "import sys, datetime, torch, torch.distributed as d",
                "s = d.TCPStore('127.0.0.1', 0, 1, True, timeout=datetime.timedelta(seconds=60))",
                "print(torch.__version__, s.port, flush=True)",
                "s.set('from_py', b'hello from torch')",
                "print(s.get('from_java').hex(), flush=True)",
                "print(s.get('jccl/run-42/attempt_0/unique_id/0').hex(), flush=True)",
                "sys.stdin.read()");
        Process py = new ProcessBuilder(PYTHON.toString(), "-c", script).redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(py.getInputStream(),
                StandardCharsets.UTF_8))) {
            String[] first = out.readLine().trim().split(" ");
            String version = first[0];
            int port = Integer.parseInt(first[1]);
            InetSocketAddress at = new InetSocketAddress("127.0.0.1", port);
            try (TcpStoreClient c = TcpStoreClient.connect(at, deadline(), Duration.ofSeconds(5))) {
                assertThat(c.dialect()).as("dialect of torch %s", version).isEqualTo(version.startsWith("1.")
                        ? TcpStoreClient.Dialect.LEGACY : TcpStoreClient.Dialect.VALIDATED);
                assertThat(c.await("/from_py", deadline(), Duration.ofSeconds(10), ms -> { })).isTrue();
                assertThat(c.get("/from_py")).isEqualTo("hello from torch".getBytes(StandardCharsets.UTF_8));
                assertThat(c.check("/not-there")).isFalse();
                c.set("/from_java", new byte[] {1, 2, 3, (byte) 0xfe});
                assertThat(out.readLine()).isEqualTo("010203fe");
            }
            UniqueId made = someId(5151);
            assertThat(shareAll(3, port, "0", made)).containsOnly(made).hasSize(3);
            assertThat(out.readLine()).isEqualTo(HexFormat.of().formatHex(made.toBytes()));
        } finally {
            py.getOutputStream().close();
            if (!py.waitFor(10, TimeUnit.SECONDS)) {
                py.destroyForcibly();
            }
        }
    }

    private static long deadline() {
        return System.nanoTime() + TIMEOUT.toNanos();
    }
}
