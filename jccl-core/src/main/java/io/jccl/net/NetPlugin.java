package io.jccl.net;

import java.io.IOException;
import java.lang.foreign.MemorySegment;

/**
 * Service-provider interface of network plugins, shaped like NCCL's {@code ncclNet_t}: devices and their
 * properties, a listen / connect / accept handshake through an opaque handle that the library carries to the peer
 * over its bootstrap, memory registration, and non-blocking tagged sends and receives completed by polling
 * {@link #test}. The built-in implementation is {@code Socket} (TCP); others are found with
 * {@link java.util.ServiceLoader} (module {@code provides io.jccl.net.NetPlugin}, or a
 * {@code META-INF/services/io.jccl.net.NetPlugin} file on the class path) and chosen by name with
 * {@code NCCL_NET}.
 *
 * <p>Threads: setup calls ({@link #listen}, {@link #connect}, {@link #accept}, {@link #regMr}) come from the thread
 * that creates a communicator; data calls ({@link #isend}, {@link #irecv}, {@link #test}) on one comm always come
 * from one thread at a time (the communicator's proxy thread). No call may block for long: {@link #connect} and
 * {@link #accept} return {@code null} until the connection is ready and are called again; {@link #isend} and
 * {@link #irecv} return {@code null} when the comm cannot take another request yet. Requests on one comm complete
 * in the order they were posted and must be matched by the peer's requests in the same order. Failures are
 * reported as {@link IOException}s, which the library turns into a communicator error naming the peer.
 *
 * <p>Mirrors: ncclNet_t (v6 and later: non-blocking connect/accept; regMr's pointer type and iflush for
 * GPUDirect RDMA).
 */
public interface NetPlugin {
    /**
     * The plugin's name, matched case-insensitively against {@code NCCL_NET}.
     *
     * @return a short name such as {@code Socket} or {@code IB}
     */
    String name();

    /**
     * Number of network devices this plugin can use.
     *
     * @return the device count, 0 when the plugin cannot run here
     * @throws IOException when the devices cannot be listed
     */
    int devices() throws IOException;

    /**
     * What one device offers.
     *
     * @param dev device index in {@code [0, devices())}
     * @return the device's properties
     * @throws IOException when the device cannot be queried
     */
    NetProperties properties(int dev) throws IOException;

    /**
     * Starts listening on a device for one incoming connection.
     *
     * @param dev device index
     * @return the handle to give the peer and the listening comm
     * @throws IOException when the device cannot listen
     */
    NetListen listen(int dev) throws IOException;

    /**
     * Connects to a peer that listens with {@code handle}; non-blocking: returns {@code null} while the connection
     * is being established, and the caller calls again with the same arguments until it gets a comm.
     *
     * @param dev    local device index
     * @param handle the peer's handle from its {@link #listen}
     * @return the send comm once connected, else {@code null}
     * @throws IOException when the connection failed for good
     */
    SendComm connect(int dev, byte[] handle) throws IOException;

    /**
     * Accepts the connection of the peer that received this listener's handle; non-blocking: returns {@code null}
     * until it has arrived.
     *
     * @param listenComm a comm from {@link #listen}
     * @return the receive comm once connected, else {@code null}
     * @throws IOException when accepting failed for good
     */
    RecvComm accept(ListenComm listenComm) throws IOException;

    /**
     * Registers memory that later sends or receives on {@code comm} use.
     *
     * @param comm    a send or receive comm of this plugin
     * @param segment the memory, native or heap
     * @return a handle to pass with every request on that memory
     * @throws IOException when the memory cannot be registered
     */
    MemHandle regMr(Comm comm, MemorySegment segment) throws IOException;

    /**
     * Registers memory of a given kind (NCCL's {@code regMr} with its {@code type}): {@link NetProperties#PTR_HOST}
     * for host memory, {@link NetProperties#PTR_CUDA} for device memory the NIC reads and writes directly (GPUDirect
     * RDMA; the segment then addresses the device memory as the plugin's CPU side may use it). The default registers
     * host memory through {@link #regMr(Comm, MemorySegment)} and refuses any other kind, as a plugin that reports
     * {@code PTR_HOST} only does.
     *
     * @param comm    a send or receive comm of this plugin
     * @param segment the memory
     * @param ptrType one of the {@code PTR_*} bits of {@link NetProperties}
     * @return a handle to pass with every request on that memory
     * @throws IOException when the memory cannot be registered, or is of a kind this plugin does not support
     */
    default MemHandle regMr(Comm comm, MemorySegment segment, int ptrType) throws IOException {
        if (ptrType != NetProperties.PTR_HOST) {
            throw new IOException(name() + " registers host memory only (ptrSupport HOST), not memory of type "
                    + ptrType);
        }
        return regMr(comm, segment);
    }

    /**
     * Makes the bytes a completed receive wrote into device memory ({@link NetProperties#PTR_CUDA}) visible to the
     * GPU before the library tells the kernel they are there (NCCL's {@code iflush} after a GPUDirect RDMA receive:
     * the NIC's PCIe writes may still be in flight when the receive completes). Called by the proxy thread after
     * {@link #test} returned true for a receive into memory registered as {@code PTR_CUDA}, before it advances the
     * tail the kernel polls. The default has nothing to flush (a plugin that receives into host memory only).
     *
     * @param comm      the receive comm
     * @param mhandle   the registration the receive wrote into
     * @param offset    first byte received, relative to the registered segment
     * @param sizeBytes bytes received
     * @return a request to {@link #test} until the flush is complete, or {@code null} when nothing needs flushing
     * @throws IOException when the flush cannot be posted
     */
    default Request iflush(RecvComm comm, MemHandle mhandle, long offset, int sizeBytes) throws IOException {
        return null;
    }

    /**
     * Releases a registration.
     *
     * @param comm   the comm it was registered for
     * @param handle the registration from {@link #regMr}
     * @throws IOException when the plugin fails to release it
     */
    void deregMr(Comm comm, MemHandle handle) throws IOException;

    /**
     * Posts a send of {@code sizeBytes} bytes starting at {@code offset} of the registered memory.
     *
     * @param comm      the send comm
     * @param mhandle   the registration that covers the bytes
     * @param offset    first byte, relative to the registered segment
     * @param sizeBytes bytes to send (may be 0)
     * @param tag       a tag the matching receive must carry
     * @return the request to {@link #test}, or {@code null} when the comm cannot take another request now
     * @throws IOException when the connection is broken
     */
    Request isend(SendComm comm, MemHandle mhandle, long offset, int sizeBytes, int tag) throws IOException;

    /**
     * Posts a receive of at most {@code maxBytes} bytes into the registered memory at {@code offset}.
     *
     * @param comm     the receive comm
     * @param mhandle  the registration that covers the bytes
     * @param offset   first byte, relative to the registered segment
     * @param maxBytes capacity; a larger incoming message is an error
     * @param tag      the tag the matching send carries
     * @return the request to {@link #test}, or {@code null} when the comm cannot take another request now
     * @throws IOException when the connection is broken
     */
    Request irecv(RecvComm comm, MemHandle mhandle, long offset, int maxBytes, int tag) throws IOException;

    /**
     * Advances a request without blocking and says whether it is complete; a completed request is returned to the
     * plugin (its {@link Request#sizeBytes()} stays readable until the next post on the same comm).
     *
     * @param request a request from {@link #isend} or {@link #irecv}, not yet seen complete
     * @return true once the bytes were sent (the memory may be reused) or received
     * @throws IOException when the connection broke or the stream is inconsistent
     */
    boolean test(Request request) throws IOException;

    /**
     * Closes a send comm and its connections.
     *
     * @param comm the comm; closing twice is harmless
     * @throws IOException when closing fails
     */
    void closeSend(SendComm comm) throws IOException;

    /**
     * Closes a receive comm and its connections.
     *
     * @param comm the comm; closing twice is harmless
     * @throws IOException when closing fails
     */
    void closeRecv(RecvComm comm) throws IOException;

    /**
     * Stops listening.
     *
     * @param comm the listening comm; closing twice is harmless
     * @throws IOException when closing fails
     */
    void closeListen(ListenComm comm) throws IOException;

    /** Either side of a connection; implemented by the plugin's own classes. */
    interface Comm {
    }

    /** The sending side of a connection ({@code sendComm}). */
    interface SendComm extends Comm {
    }

    /** The receiving side of a connection ({@code recvComm}). */
    interface RecvComm extends Comm {
    }

    /** A listener waiting for one connection ({@code listenComm}). */
    interface ListenComm {
    }

    /** A memory registration ({@code mhandle}). */
    interface MemHandle {
    }

    /** A posted send or receive. */
    interface Request {
        /**
         * Bytes moved: for a receive, the size the sender sent; valid once {@link NetPlugin#test} returned true.
         *
         * @return the byte count
         */
        int sizeBytes();
    }
}
