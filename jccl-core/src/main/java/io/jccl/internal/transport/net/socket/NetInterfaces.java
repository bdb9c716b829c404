package io.jccl.internal.transport.net.socket;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.param.Params;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Chooses the network interface and address JCCL listens on, with {@code NCCL_SOCKET_IFNAME}'s grammar: a comma
 * list of name prefixes ({@code eth,ib}), {@code ^} to exclude them ({@code ^docker,lo}), {@code =} for exact names
 * ({@code =eth0}). Without it: any interface that is up except loopback and docker*, IPv4 first; loopback when nothing
 * else exists. Owned by: any thread (stateless). Mirrors: NCCL's ncclFindInterfaces / matchIfList.
 */
public final class NetInterfaces {
    private NetInterfaces() {
    }

    /** One usable address and the interface it belongs to. */
    public record IfAddress(String ifName, InetAddress address) {
        @Override
        public String toString() {
            return ifName + ":" + address.getHostAddress();
        }
    }

    /** The address to listen on; {@code preferLoopback} when every peer is known to be on this host. */
    public static IfAddress choose(boolean preferLoopback) {
        if (preferLoopback && !Params.SOCKET_IFNAME.isSet()) {
            return new IfAddress("lo", InetAddress.getLoopbackAddress());
        }
        List<IfAddress> all = candidates(Params.SOCKET_IFNAME.get(), Params.SOCKET_FAMILY.get());
        if (all.isEmpty()) {
            if (Params.SOCKET_IFNAME.isSet()) {
                throw new JcclException(Result.SYSTEM_ERROR, "no network interface matches NCCL_SOCKET_IFNAME="
                        + Params.SOCKET_IFNAME.get() + "; interfaces present: " + names());
            }
            return new IfAddress("lo", InetAddress.getLoopbackAddress());
        }
        return all.getFirst();
    }

    /**
     * The addresses to advertise to data-connection peers: loopback only when every peer is on this host; otherwise
     * never a loopback address (a peer on another host would connect to itself), so a loopback-only machine or an
     * NCCL_SOCKET_IFNAME that selects only loopback fails here, clearly, instead of hanging at connect.
     */
    public static List<IfAddress> forPeers(boolean allLocal) {
        if (allLocal) {
            return List.of(choose(true));
        }
        List<IfAddress> all = new ArrayList<>();
        for (IfAddress a : candidates(Params.SOCKET_IFNAME.get(), Params.SOCKET_FAMILY.get())) {
            if (!a.address().isLoopbackAddress()) {
                all.add(a);
            }
        }
        if (all.isEmpty()) {
            throw new JcclException(Result.SYSTEM_ERROR, "ranks run on several hosts but no non-loopback network "
                    + "interface " + (Params.SOCKET_IFNAME.isSet() ? "matches NCCL_SOCKET_IFNAME="
                    + Params.SOCKET_IFNAME.get() : "is up") + "; interfaces present: " + names());
        }
        return all;
    }

    /** The sysfs path of the interface's PCI device, or null for a virtual one. */
    public static String pciPath(String ifName) {
        try {
            java.nio.file.Path p = java.nio.file.Path.of("/sys/class/net", ifName, "device");
            return java.nio.file.Files.exists(p) ? p.toRealPath().toString() : null;
        } catch (java.io.IOException | RuntimeException e) {
            return null;
        }
    }

    /** The link speed sysfs reports, else 10 Gb/s (NCCL's default for an unknown speed). */
    public static int speedMbps(String ifName) {
        try {
            int v = Integer.parseInt(java.nio.file.Files.readString(
                    java.nio.file.Path.of("/sys/class/net", ifName, "speed")).trim());
            return v > 0 ? v : 10_000;
        } catch (java.io.IOException | RuntimeException e) {
            return 10_000;
        }
    }

    /** Every up interface's addresses matching the filter, IPv4 before IPv6, loopback last. */
    public static List<IfAddress> candidates(String ifFilter, String family) {
        List<IfAddress> v4 = new ArrayList<>();
        List<IfAddress> v6 = new ArrayList<>();
        boolean userFilter = ifFilter != null && !ifFilter.isBlank();
        String filter = userFilter ? ifFilter : "^docker,lo";
        try {
            for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (!ni.isUp() || !matches(ni.getName(), filter)) {
                    continue;
                }
                for (InetAddress a : Collections.list(ni.getInetAddresses())) {
                    if (a.isLinkLocalAddress() || (a.isLoopbackAddress() && !userFilter)) {
                        continue;
                    }
                    if (a instanceof Inet4Address && !"AF_INET6".equalsIgnoreCase(family)) {
                        v4.add(new IfAddress(ni.getName(), a));
                    } else if (a instanceof Inet6Address && !"AF_INET".equalsIgnoreCase(family)) {
                        v6.add(new IfAddress(ni.getName(), a));
                    }
                }
            }
        } catch (SocketException e) {
            throw new JcclException(Result.SYSTEM_ERROR, "cannot list network interfaces: " + e.getMessage(), e);
        }
        v4.addAll(v6);
        return v4;
    }

    /** NCCL's matchIfList: prefixes by default, {@code =} exact, {@code ^} inverts the whole list. */
    public static boolean matches(String ifName, String filter) {
        String f = filter.trim();
        boolean exclude = f.startsWith("^");
        if (exclude) {
            f = f.substring(1);
        }
        boolean exact = f.startsWith("=");
        if (exact) {
            f = f.substring(1);
        }
        boolean hit = false;
        for (String part : f.split(",")) {
            String p = part.trim();
            if (p.isEmpty()) {
                continue;
            }
            if (exact ? ifName.equals(p) : ifName.startsWith(p)) {
                hit = true;
                break;
            }
        }
        return exclude != hit;
    }

    private static String names() {
        try {
            List<String> n = new ArrayList<>();
            for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                n.add(ni.getName() + (ni.isUp() ? "" : "(down)"));
            }
            return String.join(",", n);
        } catch (SocketException e) {
            return "?";
        }
    }
}
