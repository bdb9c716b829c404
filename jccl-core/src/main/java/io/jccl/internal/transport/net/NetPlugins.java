package io.jccl.internal.transport.net;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.base.Tls;
import io.jccl.internal.debug.Log;
import io.jccl.internal.debug.Subsys;
import io.jccl.internal.param.Params;
import io.jccl.internal.transport.net.socket.NetInterfaces;
import io.jccl.internal.transport.net.socket.SocketNetPlugin;
import io.jccl.net.NetPlugin;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/**
 * Picks the communicator's network plugin: {@code NCCL_NET} names one (case-insensitive) among the built-ins
 * ({@code Socket}, {@code FaultInject}) and the {@link NetPlugin} services {@link ServiceLoader} finds; unset, the
 * built-in {@code Socket}. {@code JCCL_NET_FAULT} wraps the choice in {@link FaultInjectNet}. A name that matches
 * nothing fails, listing what was found.
 *
 * <p>Owned by: the thread creating a communicator. Mirrors: net.cc ncclNetInit / ncclNetPluginLoad (NCCL_NET).
 */
public final class NetPlugins {
    private NetPlugins() {
    }

    /**
     * The plugin for a communicator whose peers are all on this host ({@code allLocal}) or not; the built-in Socket
     * runs every connection under {@code tls} when it is not null (JCCL_TLS). Another plugin carries its own
     * security: JCCL_TLS with one is refused, as NCCL's encryption covers its sockets only.
     */
    public static NetPlugin select(int rank, boolean allLocal, Tls tls) {
        String wanted = Params.NET_PLUGIN.get().trim();
        String fault = Params.NET_FAULT.get().trim();
        NetPlugin chosen;
        if (wanted.isEmpty() || wanted.equalsIgnoreCase("Socket")) {
            chosen = socket(rank, allLocal, tls);
        } else if (wanted.equalsIgnoreCase(FaultInjectNet.NAME)) {
            chosen = new FaultInjectNet(socket(rank, allLocal, tls), FaultInjectNet.Spec.parse(fault), rank);
            fault = "";
        } else {
            if (tls != null) {
                throw new JcclException(Result.INVALID_USAGE, "JCCL_TLS covers the built-in Socket plugin only; "
                        + "NCCL_NET=" + wanted + " must encrypt its own traffic (unset JCCL_TLS, or use Socket)");
            }
            chosen = external(wanted);
        }
        if (!fault.isEmpty()) {
            chosen = new FaultInjectNet(chosen, FaultInjectNet.Spec.parse(fault), rank);
        }
        try {
            if (chosen.devices() < 1) {
                throw new JcclException(Result.SYSTEM_ERROR, "network plugin " + chosen.name() + " has no device");
            }
        } catch (IOException e) {
            throw new JcclException(Result.SYSTEM_ERROR, "network plugin " + chosen.name()
                    + " cannot list its devices: "
                    + e.getMessage(), e);
        }
        Log.info(Subsys.NET, rank, "Using network %s", chosen.name());
        return chosen;
    }

    /**
     * The plugin for GPU ranks' connections: the built-in Socket with its GPU socket layout
     * ({@link SocketNetPlugin#forDeviceMemory}); any other plugin (or a wrapped one) as it is.
     */
    public static NetPlugin forDeviceMemory(NetPlugin plugin, int rank) {
        return plugin instanceof SocketNetPlugin s ? s.forDeviceMemory(rank) : plugin;
    }

    /**
     * The built-in Socket plugin without TLS, for a plugin that carries its bytes over it (tests' GPUDirect RDMA
     * plugin on the CPU emulator).
     */
    public static NetPlugin builtinSocket(int rank, boolean allLocal) {
        return socket(rank, allLocal, null);
    }

    private static NetPlugin socket(int rank, boolean allLocal, Tls tls) {
        return new SocketNetPlugin(NetInterfaces.forPeers(allLocal), rank, tls);
    }

    private static NetPlugin external(String wanted) {
        List<String> found = new ArrayList<>(List.of("Socket", FaultInjectNet.NAME));
        try {
            for (NetPlugin p : ServiceLoader.load(NetPlugin.class)) {
                if (p.name().equalsIgnoreCase(wanted)) {
                    return p;
                }
                found.add(p.name() + " (" + p.getClass().getName() + ")");
            }
        } catch (ServiceConfigurationError e) {
            throw new JcclException(Result.SYSTEM_ERROR, "NCCL_NET=" + wanted + ": a network plugin failed to load: "
                    + e.getMessage(), e);
        }
        throw new JcclException(Result.INVALID_ARGUMENT, "NCCL_NET=" + wanted + ": no such network plugin; found: "
                + String.join(", ", found)
                        + " (plugins are io.jccl.net.NetPlugin services on the class or module path)");
    }
}
