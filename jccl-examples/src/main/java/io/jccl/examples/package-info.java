/**
 * Runnable programs mirroring NCCL's documented examples, each started with {@code ./jccl run}: one rank per
 * process ({@link io.jccl.examples.AllReduceExample}, {@link io.jccl.examples.BroadcastExample},
 * {@link io.jccl.examples.RingExchangeExample}), several ranks as threads of one process
 * ({@link io.jccl.examples.ThreadsExample}), and on NVIDIA GPUs ({@link io.jccl.examples.MultiDeviceExample},
 * {@link io.jccl.examples.OneDevicePerProcessExample}, and one-sided: {@link io.jccl.examples.PutSignalExample});
 * {@link io.jccl.examples.LaunchedAllReduce} is the allReduce
 * example as another launcher's worker (torchrun), with a crash on demand for testing restarts.
 */
package io.jccl.examples;
