/**
 * JCCL's command-line tools: {@code perf}, {@code run}, {@code demo}, {@code topo}, {@code params}, {@code ras},
 * {@code plot}. They run from the class path (the {@code jccl} script); as a module they are compiled against only
 * the public API and the internals jccl-core and jccl-cuda export to them by name, so the compiler holds the tools to
 * what those modules choose to give.
 */
module io.jccl.tools {
    requires io.jccl;
    requires io.jccl.cuda;
    requires info.picocli;
    requires com.google.gson;
    requires java.management;
}
