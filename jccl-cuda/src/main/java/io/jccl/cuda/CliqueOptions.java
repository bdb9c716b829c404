package io.jccl.cuda;

import io.jccl.JcclException;
import io.jccl.Result;

import java.util.Locale;
import java.util.Objects;

/**
 * Tuning of a {@link GpuClique}: which allReduce kernel to use by message size, grid sizes, and the ring's FIFO
 * geometry. {@link #defaults()} holds the values measured best on 2×H200 (NV18); every field can be overridden
 * through a system property ({@link #fromSystemProperties()}) named {@code jccl.cuda.<field>}, sizes with
 * K/M/G suffixes.
 *
 * @param algorithm       AUTO, or one algorithm forced for every size
 * @param llMaxBytes      AUTO uses LL up to this size; also the capacity of each GPU's LL area
 * @param pushMaxBytes    AUTO uses the push one-shot up to this size; each GPU's push area holds
 *                        2 * nRanks * pushMaxBytes
 * @param oneShotMaxBytes AUTO uses the pull one-shot (two-shot when in place) up to this size, with 2 GPUs
 * @param twoShotMaxBytes AUTO uses two-shot up to this size, ring above
 * @param maxBlocks       grid limit of the LL, one-shot and two-shot kernels (512 threads per block)
 * @param ringChannels    most channels (blocks) of the ring kernel
 * @param ringSlotBytes   bytes per ring FIFO slot (8 slots per channel and GPU)
 * @param ringChunkSteps  FIFO slots per ring chunk
 */
public record CliqueOptions(AllReduceAlgorithm algorithm, long llMaxBytes, long pushMaxBytes, long oneShotMaxBytes,
                            long twoShotMaxBytes, int maxBlocks, int ringChannels, long ringSlotBytes,
                            int ringChunkSteps) {
    /** Grid limit imposed by the kernels' barrier slots (kMaxBlocks). */
    public static final int KERNEL_MAX_BLOCKS = 128;

    public CliqueOptions {
        Objects.requireNonNull(algorithm, "algorithm");
        check(llMaxBytes >= 16 && llMaxBytes % 16 == 0, "llMaxBytes must be a positive multiple of 16", llMaxBytes);
        check(pushMaxBytes >= 16 && pushMaxBytes % 16 == 0, "pushMaxBytes must be a positive multiple of 16",
                pushMaxBytes);
        check(oneShotMaxBytes >= 0, "oneShotMaxBytes must be >= 0", oneShotMaxBytes);
        check(twoShotMaxBytes >= 0, "twoShotMaxBytes must be >= 0", twoShotMaxBytes);
        check(maxBlocks >= 1 && maxBlocks <= KERNEL_MAX_BLOCKS, "maxBlocks must be in 1.." + KERNEL_MAX_BLOCKS, maxBlocks);
        check(ringChannels >= 1 && ringChannels <= KERNEL_MAX_BLOCKS, "ringChannels must be in 1.." + KERNEL_MAX_BLOCKS,
                ringChannels);
        check(ringSlotBytes >= 4096 && ringSlotBytes % 4096 == 0, "ringSlotBytes must be a multiple of 4096",
                ringSlotBytes);
        check(ringChunkSteps >= 1 && ringChunkSteps <= 8, "ringChunkSteps must be in 1..8", ringChunkSteps);
    }

    /** The defaults measured on 2×H200. */
    public static CliqueOptions defaults() {
        return new CliqueOptions(AllReduceAlgorithm.AUTO, 64 << 10, 4L << 20, 32L << 20, 64L << 20, 128, 128, 256 << 10,
                2);
    }

    /** {@link #defaults()} with every {@code jccl.cuda.<field>} system property applied. */
    public static CliqueOptions fromSystemProperties() {
        CliqueOptions d = defaults();
        return new CliqueOptions(
                AllReduceAlgorithm.fromName(System.getProperty("jccl.cuda.algorithm", d.algorithm.shortName())),
                bytes("llMaxBytes", d.llMaxBytes), bytes("pushMaxBytes", d.pushMaxBytes),
                bytes("oneShotMaxBytes", d.oneShotMaxBytes),
                bytes("twoShotMaxBytes", d.twoShotMaxBytes), (int) bytes("maxBlocks", d.maxBlocks),
                (int) bytes("ringChannels", d.ringChannels), bytes("ringSlotBytes", d.ringSlotBytes),
                (int) bytes("ringChunkSteps", d.ringChunkSteps));
    }

    public CliqueOptions withAlgorithm(AllReduceAlgorithm a) {
        return new CliqueOptions(a, llMaxBytes, pushMaxBytes, oneShotMaxBytes, twoShotMaxBytes, maxBlocks, ringChannels,
                ringSlotBytes, ringChunkSteps);
    }

    public CliqueOptions withPushMaxBytes(long bytes) {
        return new CliqueOptions(algorithm, llMaxBytes, bytes, oneShotMaxBytes, twoShotMaxBytes, maxBlocks, ringChannels,
                ringSlotBytes, ringChunkSteps);
    }

    public CliqueOptions withMaxBlocks(int blocks) {
        return new CliqueOptions(algorithm, llMaxBytes, pushMaxBytes, oneShotMaxBytes, twoShotMaxBytes, blocks, ringChannels,
                ringSlotBytes, ringChunkSteps);
    }

    public CliqueOptions withRingChannels(int channels) {
        return new CliqueOptions(algorithm, llMaxBytes, pushMaxBytes, oneShotMaxBytes, twoShotMaxBytes, maxBlocks,
                channels,
                ringSlotBytes, ringChunkSteps);
    }

    /** Parses "4096", "64K", "8M", "1G" (binary units). */
    public static long parseBytes(String text) {
        String t = text.trim().toUpperCase(Locale.ROOT);
        long mult = 1;
        if (t.endsWith("B")) {
            t = t.substring(0, t.length() - 1);
        }
        if (!t.isEmpty()) {
            switch (t.charAt(t.length() - 1)) {
                case 'K' -> mult = 1L << 10;
                case 'M' -> mult = 1L << 20;
                case 'G' -> mult = 1L << 30;
                default -> mult = 1;
            }
            if (mult != 1) {
                t = t.substring(0, t.length() - 1);
            }
        }
        try {
            return Math.multiplyExact(Long.parseLong(t.trim()), mult);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new JcclException(Result.INVALID_ARGUMENT, "cannot parse size '" + text
                    + "': expected a number with an optional K, M or G suffix");
        }
    }

    private static long bytes(String field, long dflt) {
        String v = System.getProperty("jccl.cuda." + field);
        return v == null ? dflt : parseBytes(v);
    }

    private static void check(boolean ok, String what, long value) {
        if (!ok) {
            throw new JcclException(Result.INVALID_ARGUMENT, "CliqueOptions: " + what + ", got " + value);
        }
    }
}
