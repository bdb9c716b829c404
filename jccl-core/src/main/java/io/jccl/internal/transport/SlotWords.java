package io.jccl.internal.transport;

/**
 * The two counters of one connector direction that a proxy reads and writes: {@code tail}, the steps the producer
 * has put into the slots, and {@code head}, the steps the consumer has freed. Both only grow; each is written by one
 * side with a release store and read by the other with an acquire load, so a slot's bytes are visible once the
 * counter that publishes them is. {@link ConnFifo} keeps both in one control block; a GPU connector keeps them in two
 * different blocks of mapped host memory (the peer's mirror and this rank's own), where a kernel polls them.
 *
 * <p>Owned by: each counter has one writer (the producer writes tail, the consumer head) and one reader. Mirrors:
 * the {@code head} / {@code tail} words of NCCL's ncclSendMem / ncclRecvMem.
 */
public interface SlotWords {
    /** Steps the producer has published (acquire). */
    long tail();

    /** Publishes {@code steps} steps (release). */
    void releaseTail(long steps);

    /** Steps the consumer has freed (acquire). */
    long head();

    /** Frees slots up to {@code steps} steps (release). */
    void releaseHead(long steps);
}
