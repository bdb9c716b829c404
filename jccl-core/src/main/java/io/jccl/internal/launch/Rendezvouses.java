package io.jccl.internal.launch;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;
import io.jccl.internal.param.Params;
import io.jccl.launch.Rendezvous;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

/**
 * The built-in rendezvous and the service providers, and the choice among them ({@code JCCL_RENDEZVOUS}, else the
 * detected one of highest priority; built-in ones first on a tie).
 *
 * <p>Owned by: the calling thread (stateless). Mirrors: Lightning's cluster-environment detection.
 */
public final class Rendezvouses {
    private Rendezvouses() {
    }

    /** Built-in ones, then the ServiceLoader providers. */
    public static List<Rendezvous> all() {
        List<Rendezvous> out = new ArrayList<>(builtIn());
        for (Rendezvous r : ServiceLoader.load(Rendezvous.class)) {
            out.add(r);
        }
        return List.copyOf(out);
    }

    static List<Rendezvous> builtIn() {
        return List.of(new AddressRendezvous(), new TorchRendezvous(), new KubernetesRendezvous(),
                new PmixRendezvous(), new SlurmRendezvous());
    }

    /** The rendezvous for this environment. */
    public static Rendezvous detect(Map<String, String> env) {
        List<Rendezvous> all = all();
        String forced = Params.RENDEZVOUS.get();
        if (!forced.isEmpty()) {
            return all.stream().filter(r -> r.name().equalsIgnoreCase(forced)).findFirst()
                    .orElseThrow(() -> new JcclException(Result.INVALID_ARGUMENT, Params.RENDEZVOUS.name() + "="
                            + forced + " is none of " + names(all)));
        }
        List<Rendezvous> found = all.stream().filter(r -> r.detect(env)).toList();
        Rendezvous best = found.stream().max(Comparator.comparingInt(Rendezvous::priority)
                .thenComparing(r -> -all.indexOf(r))).orElseThrow(() -> new JcclException(Result.INVALID_ARGUMENT,
                        "no launcher environment found (tried " + names(all) + "): set RANK and WORLD_SIZE "
                                + "with MASTER_ADDR/MASTER_PORT or JCCL_COMM_ID, or start with ./jccl run, torchrun, "
                                + "mpirun, srun or a Kubernetes Indexed Job (docs/launchers.md)"));
        if (found.size() > 1) {
            Log.info(Subsys.BOOTSTRAP, -1, "rendezvous %s (also detected: %s; %s picks one)", best.name(),
                    names(found.stream().filter(r -> r != best).toList()), Params.RENDEZVOUS.name());
        }
        return best;
    }

    private static String names(List<Rendezvous> rs) {
        return rs.stream().map(Rendezvous::name).collect(Collectors.joining(", "));
    }
}
