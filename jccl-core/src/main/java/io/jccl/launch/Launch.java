package io.jccl.launch;

import io.jccl.internal.launch.Rendezvouses;

import java.util.List;

/**
 * The rendezvous this process was launched with, and where it sits, before any communicator exists.
 * {@link io.jccl.Communicator#fromEnvironment()} uses the same choice.
 */
public final class Launch {
    private Launch() {
    }

    /**
     * The rendezvous of this process's launcher: {@code JCCL_RENDEZVOUS} when set, else the detected one of highest
     * priority among the built-in ones and the {@link java.util.ServiceLoader} providers of {@link Rendezvous}.
     *
     * @return the rendezvous
     * @throws io.jccl.JcclException when no launcher is recognised, listing what each one looks for
     */
    public static Rendezvous rendezvous() {
        return Rendezvouses.detect(System.getenv());
    }

    /**
     * Where this process sits, as the launcher says (to pick a GPU with {@link Placement#localRank()}).
     *
     * @return the placement
     */
    public static Placement placement() {
        return rendezvous().placement(System.getenv());
    }

    /**
     * Every rendezvous this process knows, built-in ones first.
     *
     * @return the rendezvous, in the order they are tried
     */
    public static List<Rendezvous> available() {
        return Rendezvouses.all();
    }
}
