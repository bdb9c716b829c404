/**
 * JCCL core: the public API {@code io.jccl}, the net plugin SPI {@code io.jccl.net} and the rendezvous SPI
 * {@code io.jccl.launch}; everything else is internal. Reads {@code jdk.jfr} for its
 * flight-recorder events and {@code java.management} for its MXBeans and
 * {@code jdk.httpserver} for the opt-in metrics endpoint; profiler plugins are services of
 * {@link io.jccl.Profiler}.
 */
// the qualified exports name io.jccl.cuda and io.jccl.tools, which are not built yet when this module compiles
@SuppressWarnings("module")
module io.jccl {
    requires static jdk.incubator.vector;
    requires jdk.jfr;
    requires java.management;
    requires jdk.httpserver;
    exports io.jccl;
    exports io.jccl.net;
    exports io.jccl.launch;
    exports io.jccl.internal.base to io.jccl.cuda;
    exports io.jccl.internal.comm to io.jccl.cuda;
    exports io.jccl.internal.debug to io.jccl.cuda;
    exports io.jccl.internal.enqueue to io.jccl.cuda;
    exports io.jccl.internal.param to io.jccl.cuda, io.jccl.tools;
    exports io.jccl.internal.profile to io.jccl.cuda;
    exports io.jccl.internal.proxy to io.jccl.cuda;
    exports io.jccl.internal.ras to io.jccl.cuda, io.jccl.tools;
    exports io.jccl.internal.topology to io.jccl.cuda, io.jccl.tools;
    exports io.jccl.internal.topology.channels to io.jccl.cuda;
    exports io.jccl.internal.topology.discovery to io.jccl.cuda, io.jccl.tools;
    exports io.jccl.internal.topology.search to io.jccl.tools;
    exports io.jccl.internal.topology.setup to io.jccl.cuda, io.jccl.tools;
    exports io.jccl.internal.topology.xml to io.jccl.cuda, io.jccl.tools;
    exports io.jccl.internal.transport to io.jccl.cuda;
    exports io.jccl.internal.transport.net to io.jccl.cuda;
    exports io.jccl.internal.transport.shm to io.jccl.cuda;
    exports io.jccl.internal.tuning to io.jccl.cuda, io.jccl.tools;
    uses io.jccl.Profiler;
    uses io.jccl.net.NetPlugin;
    uses io.jccl.launch.Rendezvous;
}
