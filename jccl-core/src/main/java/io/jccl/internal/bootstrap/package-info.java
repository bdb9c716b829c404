/**
 * The bootstrap network (NCCL's bootstrap.cc): the root that introduces the ranks, the ring allGather of their
 * addresses, and tagged messages between any two ranks.
 *
 * <p>Security: a {@link io.jccl.UniqueId} holds a 32-byte secret; it is the only credential and must be handed to the
 * ranks out of band like a password. {@link io.jccl.internal.base.AuthKeys} derives one key per purpose
 * ({@code HMAC-SHA256(secret, label)}) and every connection starts with a challenge-response
 * ({@link io.jccl.internal.bootstrap.Handshake}): the root authenticates each rank and signs its answer, ranks
 * authenticate each other in both directions, and data connections of the socket transport carry a MAC over the
 * listener's nonce. The secret never travels; child communicators (split, shrink) derive theirs from the parent's.
 * Frames are length-limited (512 bytes until a peer is authenticated, 16 MiB after), every connection is served on
 * its own virtual thread with a 5 s handshake deadline and a cap on concurrent handshakes, so garbage, oversized,
 * slow or forged clients are dropped without delaying real ranks. A rank presenting another communicator's id is
 * told "this rank's UniqueId belongs to another communicator". Frames after the handshake are not encrypted or
 * MAC'd: run on a trusted network, or tunnel it.
 *
 * <p>Departures: a rank that releases a communicator writes a goodbye frame (orderly, or after a failure) on each
 * connection; a connection that ends without one tells the peer monitor that the rank was killed or crashed.
 */
package io.jccl.internal.bootstrap;

import io.jccl.internal.base.AuthKeys;

