package io.jccl.internal.launch;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.UniqueId;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.LogCapture;
import io.jccl.launch.Placement;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KubernetesRendezvousTest {
    private static final Supplier<UniqueId> NO_NEW_ID = () -> {
        throw new AssertionError("the id comes from the address");
    };

    /** What the pod of index {@code index} of Job "train" (4 completions, Service "train-svc") sees. */
    private static Map<String, String> pod(int index) {
        Map<String, String> env = new HashMap<>();
        env.put("JOB_COMPLETION_INDEX", Integer.toString(index));
        env.put("HOSTNAME", "train-" + index);
        env.put("WORLD_SIZE", "4");
        env.put("JCCL_K8S_SERVICE", "train-svc");
        env.put("KUBERNETES_SERVICE_HOST", "10.96.0.1");
        return env;
    }

    /** A DNS that knows {@code host} only from the {@code failures + 1}-th lookup on, recording every lookup. */
    private static KubernetesRendezvous.Resolver lateDns(String host, InetAddress answer, int failures,
            List<String> asked) {
        return name -> {
            asked.add(name);
            if (!name.equals(host) || asked.size() <= failures) {
                throw new UnknownHostException(name + ": Name or service not known");
            }
            return answer;
        };
    }

    private static KubernetesRendezvous rendezvous(Map<String, String> env, KubernetesRendezvous.Resolver dns) {
        return new KubernetesRendezvous(() -> env, dns, Duration.ofMillis(1), () -> Duration.ofMillis(50));
    }

    @Test
    void theIndexIsTheRankAndThePodIsItsOwnHost() {
        KubernetesRendezvous rv = new KubernetesRendezvous();
        Map<String, String> env = pod(2);
        assertThat(rv.detect(env)).isTrue();
        assertThat(rv.detect(Map.of("HOSTNAME", "x"))).isFalse();
        assertThat(rv.placement(env)).isEqualTo(new Placement(2, 4, 0, 1, "kubernetes"));
        env.put("LOCAL_RANK", "1");
        env.put("LOCAL_WORLD_SIZE", "2");
        assertThat(rv.placement(env)).isEqualTo(new Placement(2, 4, 1, 2, "kubernetes"));
        Map<String, String> jccl = pod(3);
        jccl.remove("WORLD_SIZE");
        jccl.put("JCCL_WORLD_SIZE", "8");
        assertThat(rv.placement(jccl).size()).isEqualTo(8);
        assertThat(Rendezvouses.detect(env).name()).isEqualTo("kubernetes");
    }

    @Test
    void aMissingOrWrongSizeIsExplained() {
        KubernetesRendezvous rv = new KubernetesRendezvous();
        Map<String, String> env = pod(1);
        env.remove("WORLD_SIZE");
        assertThatThrownBy(() -> rv.placement(env)).isInstanceOf(JcclException.class)
                .hasMessageContaining("JOB_COMPLETION_INDEX=1").hasMessageContaining("set WORLD_SIZE (or "
                        + "JCCL_WORLD_SIZE)").hasMessageContaining("completions");
        Map<String, String> small = pod(4);
        assertThatThrownBy(() -> rv.placement(small)).isInstanceOf(JcclException.class)
                .hasMessageContaining("JOB_COMPLETION_INDEX=4 is not in [0, WORLD_SIZE=4)");
    }

    @Test
    void rankZeroIsTheJobsPodOfIndexZeroUnderTheService() {
        assertThat(KubernetesRendezvous.rootHost(pod(3), 3)).isEqualTo("train-0.train-svc");
        Map<String, String> dashed = pod(11);
        dashed.put("HOSTNAME", "my-big-job-11");
        assertThat(KubernetesRendezvous.rootHost(dashed, 11)).isEqualTo("my-big-job-0.train-svc");
        Map<String, String> master = pod(1);
        master.put("MASTER_ADDR", "10.0.0.9");
        assertThat(KubernetesRendezvous.rootHost(master, 1)).isEqualTo("10.0.0.9");
        Map<String, String> noService = pod(1);
        noService.remove("JCCL_K8S_SERVICE");
        assertThatThrownBy(() -> KubernetesRendezvous.rootHost(noService, 1)).isInstanceOf(JcclException.class)
                .hasMessageContaining("rank 1").hasMessageContaining("set JCCL_K8S_SERVICE")
                .hasMessageContaining("MASTER_ADDR");
        Map<String, String> oddHost = pod(1);
        oddHost.put("HOSTNAME", "laptop");
        assertThatThrownBy(() -> KubernetesRendezvous.rootHost(oddHost, 1)).isInstanceOf(JcclException.class)
                .hasMessageContaining("HOSTNAME=laptop");
    }

    @Test
    void theRootIsResolvedOnceItsNameAppearsAndEveryRankDerivesTheSameId() throws Exception {
        InetAddress podIp = InetAddress.getByAddress(new byte[] {10, 1, 2, 3});
        List<String> asked1 = new ArrayList<>();
        List<String> asked3 = new ArrayList<>();
        Map<String, String> p1 = pod(1);
        Map<String, String> p3 = pod(3);
        KubernetesRendezvous r1 = rendezvous(p1, lateDns("train-0.train-svc", podIp, 2, asked1));
        KubernetesRendezvous r3 = rendezvous(p3, lateDns("train-0.train-svc", podIp, 0, asked3));
        UniqueId a = r1.shareId(r1.placement(p1), NO_NEW_ID, Duration.ofSeconds(10));
        UniqueId b = r3.shareId(r3.placement(p3), NO_NEW_ID, Duration.ofSeconds(10));
        assertThat(asked1).containsExactly("train-0.train-svc", "train-0.train-svc", "train-0.train-svc");
        assertThat(a).isEqualTo(b);
        assertThat(a.rootAddress()).isEqualTo(new InetSocketAddress(podIp, 29500));
        assertThat(a).isEqualTo(AddressRendezvous.idFor("train-0.train-svc:29500", a.rootAddress(), ""));

        Map<String, String> ported = pod(2);
        ported.put("JCCL_K8S_PORT", "31000");
        KubernetesRendezvous r2 = rendezvous(ported, name -> podIp);
        assertThat(r2.shareId(r2.placement(ported), NO_NEW_ID, Duration.ofSeconds(1)).rootAddress().getPort())
                .isEqualTo(31000);
        ported.put("MASTER_PORT", "32000");
        assertThat(r2.shareId(r2.placement(ported), NO_NEW_ID, Duration.ofSeconds(1)).rootAddress().getPort())
                .isEqualTo(32000);
    }

    @Test
    void aNameThatNeverAppearsIsATimeoutNamingIt() {
        try (LogCapture log = LogCapture.start(Log.Level.WARN, "ALL")) {
            Map<String, String> p2 = pod(2);
            KubernetesRendezvous rv = rendezvous(p2, lateDns("nothing", null, 0, new ArrayList<>()));
            assertThatThrownBy(() -> rv.shareId(rv.placement(p2), NO_NEW_ID, Duration.ofMillis(300)))
                    .isInstanceOfSatisfying(JcclException.class, e -> assertThat(e.result()).isEqualTo(Result.TIMEOUT))
                    .hasMessageContaining("rank 2").hasMessageContaining("train-0.train-svc")
                    .hasMessageContaining("publishNotReadyAddresses");
            assertThat(log.messages()).filteredOn(m -> m.contains("still cannot resolve")).isNotEmpty()
                    .allSatisfy(m -> assertThat(m).contains("rank 2").contains("train-0.train-svc"));
        }
    }

    @Test
    void torchrunInsideAPodWins() {
        Map<String, String> env = pod(1);
        env.put("RANK", "3");
        env.put("MASTER_ADDR", "train-0.train-svc");
        env.put("MASTER_PORT", "29500");
        env.put("TORCHELASTIC_RUN_ID", "r");
        assertThat(Rendezvouses.detect(env).name()).isEqualTo("torchrun");
    }
}
