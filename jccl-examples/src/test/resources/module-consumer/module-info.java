/** A program that uses JCCL as a library from the module path (ModuleConsumerTest compiles and runs it). */
module org.example.consumer {
    requires io.jccl;
    requires io.jccl.cuda;
}
