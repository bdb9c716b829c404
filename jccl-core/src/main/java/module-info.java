/** JCCL core: the public API package only; everything else is internal. */
module io.jccl {
    requires jdk.incubator.vector;
    exports io.jccl;
}
