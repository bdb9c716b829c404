/**
 * JCCL's public API: {@link io.jccl.Communicator} and its values. Everything under {@code io.jccl.internal} is
 * private to the library and not exported.
 */
package io.jccl;
