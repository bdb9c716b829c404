package io.jccl;

import io.jccl.testing.ProcessRanks;
import io.jccl.testing.RankMain;
import io.jccl.testing.ThreadRanks;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code JCCL_TLS}: bootstrap and socket-transport connections under TLS 1.3. Thread ranks over the socket plugin
 * (shared memory off, several data sockets moved by helper threads, or everything on one socket) and separate JVMs on
 * two NCCL_HOSTID hosts (bootstrap over TCP too) get every collective right; a rank whose JCCL_TLS differs stops the
 * job with an error that says so. That nothing readable crosses the link is shown by capturing it
 * ({@code TlsOnTheWireTest} in jccl-tools, on network-namespace hosts).
 */
class TlsTest {
    @AfterEach
    void restore() {
        for (String k : List.of("JCCL_TLS", "NCCL_SHM_DISABLE", "NCCL_SOCKET_NTHREADS", "NCCL_NSOCKS_PERTHREAD",
                "NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_FILE")) {
            System.clearProperty(k);
        }
        io.jccl.internal.debug.Log.reconfigure();
    }

    @Test
    void everyCollectiveIsExactOverTlsSockets(@TempDir Path dir) throws Exception {
        System.setProperty("JCCL_TLS", "on");
        System.setProperty("NCCL_DEBUG", "INFO");
        System.setProperty("NCCL_DEBUG_SUBSYS", "NET");
        System.setProperty("NCCL_DEBUG_FILE", dir.resolve("log-%p.txt").toString());
        io.jccl.internal.debug.Log.reconfigure();
        System.setProperty("NCCL_SHM_DISABLE", "1");
        for (int threads : new int[]{1, 2}) {
            System.setProperty("NCCL_SOCKET_NTHREADS", "" + threads);
            System.setProperty("NCCL_NSOCKS_PERTHREAD", "2");
            int n = 3;
            long count = threads == 1 ? 300_007 : 1_000_003;
            ThreadRanks.run(n, comm -> {
                CollectivesTest.checkAllReduce(comm, count, DataType.FLOAT32, RedOp.SUM, false);
                CollectivesTest.checkAllReduce(comm, 7, DataType.INT32, RedOp.MAX, true);
                CollectivesTest.checkBroadcast(comm, count, DataType.FLOAT32, n - 1, true);
                CollectivesTest.checkReduce(comm, count, DataType.FLOAT32, RedOp.MAX, 0);
                CollectivesTest.checkAllGather(comm, count, DataType.FLOAT32, false);
                CollectivesTest.checkReduceScatter(comm, count, DataType.FLOAT32, RedOp.SUM);
                CollectivesTest.checkAllToAll(comm, 99_999, DataType.FLOAT32);
                CollectivesTest.checkGather(comm, count, DataType.FLOAT32, 1);
                CollectivesTest.checkScatter(comm, count, DataType.FLOAT32, 0);
            });
        }
        String log = Files.readString(dir.resolve("log-" + ProcessHandle.current().pid() + ".txt"));
        assertThat(log).contains("NET/Socket : Using").contains("TLSv1.3 (fresh key, bound to the communicator's "
                + "secret)");
    }

    @Test
    void processesOnTwoHostsBootstrapAndTransferOverTls() throws Exception {
        ProcessRanks.Result r = ProcessRanks.start(4, RankMain.class, List.of(), Map.of("JCCL_TLS", "on",
                "NCCL_DEBUG", "INFO", "NCCL_DEBUG_SUBSYS", "NET"),
                rank -> Map.of("NCCL_HOSTID", rank % 2 == 0 ? "host-a" : "host-b")).await(180);
        assertThat(r.allOk()).as("exit codes %s, output:\n%s", r.exitCodes(), String.join("\n---\n", r.outputs()))
                .isTrue();
        for (int i = 0; i < 4; i++) {
            assertThat(r.outputs().get(i)).contains("OK rank " + i).contains("TLSv1.3 (fresh key, bound to the "
                    + "communicator's secret)");
        }
    }

    @Test
    void aRankWithoutTlsStopsTheJobSayingWhy() throws Exception {
        ProcessRanks.Result r = ProcessRanks.start(2, RankMain.class, List.of(), Map.of("JCCL_TIMEOUT_MS",
                "8000"), rank -> Map.of("NCCL_HOSTID", "host-" + rank, "JCCL_TLS", rank == 0 ? "on" : "off"))
                .await(120);
        assertThat(r.allOk()).isFalse();
        // the rank without TLS reads the root's TLS record and says so; the root names the TLS failure
        assertThat(r.outputs().get(1)).contains("the other end speaks TLS and this one does not (JCCL_TLS must be the "
                + "same on every rank)");
        assertThat(r.outputs().get(0)).contains("TLS with a rank at").contains("JCCL_TLS must be the same");
    }

    @Test
    void keystoreModeChecksCertificatesBothWaysAndRefusesAStranger(@TempDir Path dir) throws Exception {
        Path shared = keystore(dir, "job");
        Path stranger = keystore(dir, "stranger");
        Map<String, String> tls = Map.of("JCCL_TLS", "keystore", "JCCL_TLS_KEYSTORE_PASSWORD", "changeit",
                "NCCL_DEBUG", "INFO", "NCCL_DEBUG_SUBSYS", "NET", "JCCL_TIMEOUT_MS", "8000");
        ProcessRanks.Result ok = ProcessRanks.start(2, RankMain.class, List.of(), tls,
                rank -> Map.of("NCCL_HOSTID", "host-" + rank, "JCCL_TLS_KEYSTORE", shared.toString())).await(120);
        assertThat(ok.allOk()).as("exit codes %s, output:\n%s", ok.exitCodes(), String.join("\n---\n",
                ok.outputs())).isTrue();
        assertThat(ok.outputs().get(1)).contains("OK rank 1").contains("TLSv1.3 (certificates from "
                + "JCCL_TLS_KEYSTORE, checked both ways, and bound to the communicator's secret)");

        // rank 1's certificate is not in rank 0's truststore (nor rank 0's in its): the handshake fails, saying so
        ProcessRanks.Result refused = ProcessRanks.start(2, RankMain.class, List.of(), tls,
                rank -> Map.of("NCCL_HOSTID", "host-" + rank, "JCCL_TLS_KEYSTORE",
                        (rank == 0 ? shared : stranger).toString())).await(120);
        assertThat(refused.allOk()).isFalse();
        assertThat(String.join("\n", refused.outputs())).contains("TLS with").containsIgnoringCase("certif");
    }

    /** A PKCS12 keystore with one self-signed EC key, made by the JDK's keytool. */
    private static Path keystore(Path dir, String name) throws Exception {
        Path ks = dir.resolve(name + ".p12");
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Process p = new ProcessBuilder(keytool.toString(), "-genkeypair", "-keyalg", "EC", "-groupname", "secp256r1",
                "-alias", name, "-dname", "CN=" + name, "-validity", "2", "-storetype", "PKCS12", "-keystore",
                ks.toString(), "-storepass", "changeit").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as("keytool: %s", out).isZero();
        return ks;
    }
}
