package io.jccl.internal.topology.discovery;

import java.util.List;

/**
 * How topology discovery learns about GPUs: the CUDA module implements this (through the CUDA driver / NVML), and
 * {@link #none()} serves hosts without GPUs. Called once per discovery on the initialising thread. Stands in for
 * NCCL's CUDA/NVML queries of src/graph/xml.cc.
 */
@FunctionalInterface
public interface GpuProbe {
    /** The GPUs of this host, in CUDA device order. */
    List<GpuInfo> gpus();

    /** No GPUs (CPU-only hosts, or before the CUDA module is present). */
    static GpuProbe none() {
        return List::of;
    }
}
