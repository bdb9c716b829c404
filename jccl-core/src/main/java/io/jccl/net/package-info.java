/**
 * Network plugin service-provider interface ({@link io.jccl.net.NetPlugin}, NCCL's {@code ncclNet_t}): how JCCL
 * moves data between hosts. The built-in plugin is {@code Socket}; others are found with
 * {@link java.util.ServiceLoader} and chosen with {@code NCCL_NET}.
 */
package io.jccl.net;
