package io.jccl.net;

/**
 * What a network device offers, as a plugin reports it (NCCL's {@code ncclNetProperties_t}, the fields a host
 * library uses).
 *
 * @param name      device name, such as {@code eth0} or {@code mlx5_0}
 * @param pciPath   sysfs path of the device's PCI function, or {@code null} when it has none (a virtual NIC)
 * @param guid      a unique identifier of the device (NICs with the same guid are the same device)
 * @param speedMbps link speed in megabits per second
 * @param port      port number on the device
 * @param latencyUs expected latency in microseconds, 0 when unknown
 * @param maxComms  most comms the device can hold open at once
 * @param maxRecvs  most receives one {@code irecv} may group (1 for plugins without grouped receives)
 */
public record NetProperties(String name, String pciPath, long guid, int speedMbps, int port, double latencyUs,
                            int maxComms, int maxRecvs) {
}
