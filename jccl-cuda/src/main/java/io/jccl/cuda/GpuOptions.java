package io.jccl.cuda;

import io.jccl.Collective;
import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.param.ExternalParams;
import io.jccl.internal.tuning.AlgoProtoFilter;
import io.jccl.internal.tuning.Protocol;

import java.util.Locale;
import java.util.Objects;

/**
 * Tuning of a {@link GpuCommunicator}: which allReduce kernel to use by message size, where the other collectives
 * switch from LL to the ring, grid sizes, and the geometry of the Simple-protocol FIFOs. {@link #defaults()} holds
 * the values measured best on 2×H200 (NV18: LL128 to 4 MiB, then two-shot to 64 MiB and the ring; push instead of
 * two-shot to 32 MiB with one process per GPU); every field can be overridden through a system property
 * ({@link #fromSystemProperties()}) named {@code jccl.cuda.<field>}, sizes with K/M/G suffixes. Every rank of a
 * communicator must use the same options (init checks it).
 *
 * @param algorithm       AUTO, or one allReduce algorithm forced for every size
 * @param llMaxBytes      LL (barrier-free, one hop) allReduce on 2 ranks up to this many bytes; every other
 *                        collective, and allReduce on more ranks, uses LL up to the smaller of this and 64 KiB;
 *                        also each LL slot's capacity
 * @param llPackedMaxBytes allReduce on 2 NVLink GPUs by packed LL (12 data bytes per 16-byte line) up to this size,
 *                        above llMaxBytes, when LL128 does not take it; 0 (the default) turns it off: on 2×H200 it
 *                        beat push (1 MiB: 8.4 against 10.2 µs) but not LL128, so it is for users who would rather
 *                        rely on whole 16-byte stores than on whole 128-byte lines (set ll128MaxBytes to 0)
 * @param pushMaxBytes    allReduce by NVLink writes (push one-shot) up to this size when the pull kernels cannot
 *                        run (one process per GPU, preMulSum); each GPU's push area holds 2 * nRanks * pushMaxBytes
 * @param pullFromBytes   with one process driving every GPU, the pull kernels take over from push above this size
 * @param pushChunkBytes  the push one-shot's pipeline step per block: it writes chunk k+1 while it reduces chunk k
 * @param oneShotMaxBytes pull one-shot allReduce up to this size (one process driving all GPUs only)
 * @param twoShotMaxBytes pull two-shot allReduce up to this size, the ring above
 * @param maxBlocks       grid limit of every kernel (512 threads per block)
 * @param ringChannels    channels (blocks) of the ring and of each point-to-point connection
 * @param ringSlotBytes   bytes per FIFO slot (8 slots per channel and connection)
 * @param ringChunkSteps  FIFO slots per ring chunk
 * @param packsPerThread  16-byte packs per thread the push and pull allReduce grids are sized for (1: more blocks
 *                        write and read in parallel; push at 128 KiB took 7.9 µs against 8.2 with 2)
 * @param pullUnroll      pull allReduce on 2 GPUs: 16-byte packs per source each thread keeps in flight, 2, 4 or 8
 *                        (4: two-shot at 8 MiB took 32.0 µs against 32.9 with 2; 8 gained nothing more)
 * @param llPackedBlockGroups packed LL: 48-byte groups per block (a multiple of 32, at most 512, one per thread):
 *                        fewer spread a call over more SMs
 * @param ll128MaxBytes   allReduce on 2 GPUs linked by NVLink by LL128 (120 data bytes per 128-byte line) from 0 up
 *                        to this size, before LL and packed LL are considered; 0 turns it off, and so does NCCL_PROTO
 *                        leaving LL128 out of allReduce (^LL128) when the property is not set. On 2×H200 it beat
 *                        every other kernel from 8 B (4.2 against LL's 4.5 µs) to 4 MiB (19.5 against push's
 *                        20.1 µs), not at 8 MiB (35.5 against two-shot's 32.2 µs)
 * @param ll128BlocksPerSm LL128's grid limit in blocks per multiprocessor, 1 or 2 (its 43 registers per thread let 2
 *                        blocks of 512 threads stay resident on an SM, which every LL128 grid needs; more warps keep
 *                        more lines in flight)
 * @param ctaPolicy       {@link CtaPolicy#ZERO}: allGather, allToAll and broadcast into a {@link GpuWindow} run on the
 *                        copy engines ({@code NCCL_CTA_POLICY}, {@code jccl.cuda.ctaPolicy})
 */
public record GpuOptions(AllReduceAlgorithm algorithm, long llMaxBytes, long llPackedMaxBytes, long pushMaxBytes,
        long pushChunkBytes,
                         long pullFromBytes, long oneShotMaxBytes,
                         long twoShotMaxBytes, int maxBlocks, int ringChannels, long ringSlotBytes,
                         int ringChunkSteps, int packsPerThread, int pullUnroll,
                         int llPackedBlockGroups, long ll128MaxBytes, int ll128BlocksPerSm, CtaPolicy ctaPolicy) {
    /** Grid limit imposed by the kernels' barrier and pointer slots (kMaxBlocks). */
    public static final int KERNEL_MAX_BLOCKS = 160;

    public GpuOptions {
        Objects.requireNonNull(algorithm, "algorithm");
        Objects.requireNonNull(ctaPolicy, "ctaPolicy");
        check(llMaxBytes >= 16 && llMaxBytes % 16 == 0, "llMaxBytes must be a positive multiple of 16", llMaxBytes);
        check(llPackedMaxBytes >= 0, "llPackedMaxBytes must be >= 0", llPackedMaxBytes);
        check(pushMaxBytes >= 16 && pushMaxBytes % 16 == 0, "pushMaxBytes must be a positive multiple of 16",
                pushMaxBytes);
        check(pushChunkBytes >= 16 && pushChunkBytes % 16 == 0, "pushChunkBytes must be a positive multiple of 16",
                pushChunkBytes);
        check(pullFromBytes >= 0, "pullFromBytes must be >= 0", pullFromBytes);
        check(oneShotMaxBytes >= 0, "oneShotMaxBytes must be >= 0", oneShotMaxBytes);
        check(twoShotMaxBytes >= 0, "twoShotMaxBytes must be >= 0", twoShotMaxBytes);
        check(maxBlocks >= 1 && maxBlocks <= KERNEL_MAX_BLOCKS, "maxBlocks must be in 1.." + KERNEL_MAX_BLOCKS,
                maxBlocks);
        check(ringChannels >= 1 && ringChannels <= KERNEL_MAX_BLOCKS, "ringChannels must be in 1.." + KERNEL_MAX_BLOCKS,
                ringChannels);
        check(ringSlotBytes >= 4096 && ringSlotBytes % 4096 == 0, "ringSlotBytes must be a multiple of 4096",
                ringSlotBytes);
        check(ringChunkSteps >= 1 && ringChunkSteps <= 8, "ringChunkSteps must be in 1..8", ringChunkSteps);
        check(packsPerThread >= 1 && packsPerThread <= 64, "packsPerThread must be in 1..64", packsPerThread);
        check(pullUnroll == 2 || pullUnroll == 4 || pullUnroll == 8, "pullUnroll must be 2, 4 or 8", pullUnroll);
        check(llPackedBlockGroups >= 32 && llPackedBlockGroups <= 512 && llPackedBlockGroups % 32 == 0,
                "llPackedBlockGroups must be a multiple of 32 in 32..512", llPackedBlockGroups);
        check(ll128MaxBytes >= 0, "ll128MaxBytes must be >= 0", ll128MaxBytes);
        check(ll128BlocksPerSm == 1 || ll128BlocksPerSm == 2, "ll128BlocksPerSm must be 1 or 2", ll128BlocksPerSm);
    }

    /** The defaults measured on 2×H200. */
    public static GpuOptions defaults() {
        return new GpuOptions(AllReduceAlgorithm.AUTO, 512 << 10, 0, 32L << 20, 64 << 10, 4L << 20, 4L << 20,
                64L << 20,
                128, 128, 256 << 10, 2, 1, 4, 128, 4L << 20, 1, CtaPolicy.DEFAULT);
    }

    /** {@link #defaults()} with every {@code jccl.cuda.<field>} system property applied. */
    public static GpuOptions fromSystemProperties() {
        GpuOptions d = defaults();
        return new GpuOptions(
                AllReduceAlgorithm.fromName((io.jccl.internal.param.InternalProperties.CUDA_ALGORITHM.isSet()
                        ? io.jccl.internal.param.InternalProperties.CUDA_ALGORITHM.get() : d.algorithm.shortName())),
                bytes("llMaxBytes", d.llMaxBytes), bytes("llPackedMaxBytes", d.llPackedMaxBytes),
                bytes("pushMaxBytes", d.pushMaxBytes),
                bytes("pushChunkBytes", d.pushChunkBytes), bytes("pullFromBytes", d.pullFromBytes),
                bytes("oneShotMaxBytes", d.oneShotMaxBytes),
                bytes("twoShotMaxBytes", d.twoShotMaxBytes), (int) bytes("maxBlocks", d.maxBlocks),
                (int) bytes("ringChannels", d.ringChannels), bytes("ringSlotBytes", d.ringSlotBytes),
                (int) bytes("ringChunkSteps", d.ringChunkSteps), (int) bytes("packsPerThread", d.packsPerThread),
                (int) bytes("pullUnroll", d.pullUnroll), (int) bytes("llPackedBlockGroups", d.llPackedBlockGroups),
                !io.jccl.internal.param.InternalProperties.cudaOption("ll128MaxBytes").isSet()
                        && !ll128AllowedBy(ExternalParams.PROTO.get()) ? 0 : bytes("ll128MaxBytes", d.ll128MaxBytes),
                (int) bytes("ll128BlocksPerSm", d.ll128BlocksPerSm), ctaPolicyProperty());
    }

    /** {@code jccl.cuda.ctaPolicy}, else {@code NCCL_CTA_POLICY}, else DEFAULT. */
    private static CtaPolicy ctaPolicyProperty() {
        io.jccl.internal.param.Param<String> p = io.jccl.internal.param.InternalProperties.cudaOption("ctaPolicy");
        if (p.isSet()) {
            return CtaPolicy.parse(p.get());
        }
        String env = ExternalParams.CTA_POLICY.get();
        return env.isBlank() ? CtaPolicy.DEFAULT : CtaPolicy.parse(env);
    }

    /** These options with the collectives' CTA policy set ({@link CtaPolicy#ZERO}: copy engines on windows). */
    public GpuOptions withCtaPolicy(CtaPolicy policy) {
        return edit(e -> e.ctaPolicy = policy);
    }

    public GpuOptions withAlgorithm(AllReduceAlgorithm a) {
        return edit(e -> e.algorithm = a);
    }

    public GpuOptions withLlMaxBytes(long bytes) {
        return edit(e -> e.llMaxBytes = bytes);
    }

    public GpuOptions withLlPackedMaxBytes(long bytes) {
        return edit(e -> e.llPackedMaxBytes = bytes);
    }

    public GpuOptions withLl128MaxBytes(long bytes) {
        return edit(e -> e.ll128MaxBytes = bytes);
    }

    public GpuOptions withLl128BlocksPerSm(int blocks) {
        return edit(e -> e.ll128BlocksPerSm = blocks);
    }

    public GpuOptions withPushMaxBytes(long bytes) {
        return edit(e -> e.pushMaxBytes = bytes);
    }

    public GpuOptions withPushChunkBytes(long bytes) {
        return edit(e -> e.pushChunkBytes = bytes);
    }

    public GpuOptions withPullFromBytes(long bytes) {
        return edit(e -> e.pullFromBytes = bytes);
    }

    public GpuOptions withMaxBlocks(int blocks) {
        return edit(e -> e.maxBlocks = blocks);
    }

    public GpuOptions withRing(int channels, long slotBytes, int chunkSteps) {
        return edit(e -> {
            e.ringChannels = channels;
            e.ringSlotBytes = slotBytes;
            e.ringChunkSteps = chunkSteps;
        });
    }

    /** A copy of these options with {@code change} applied (and checked by the constructor). */
    private GpuOptions edit(java.util.function.Consumer<Edit> change) {
        Edit e = new Edit(this);
        change.accept(e);
        return e.done();
    }

    /** The fields of a GpuOptions, mutable for the with-methods: the one place a new field joins them. */
    private static final class Edit {
        AllReduceAlgorithm algorithm;
        long llMaxBytes;
        long llPackedMaxBytes;
        long pushMaxBytes;
        long pushChunkBytes;
        long pullFromBytes;
        long oneShotMaxBytes;
        long twoShotMaxBytes;
        int maxBlocks;
        int ringChannels;
        long ringSlotBytes;
        int ringChunkSteps;
        int packsPerThread;
        int pullUnroll;
        int llPackedBlockGroups;
        long ll128MaxBytes;
        int ll128BlocksPerSm;
        CtaPolicy ctaPolicy;

        Edit(GpuOptions o) {
            algorithm = o.algorithm;
            llMaxBytes = o.llMaxBytes;
            llPackedMaxBytes = o.llPackedMaxBytes;
            pushMaxBytes = o.pushMaxBytes;
            pushChunkBytes = o.pushChunkBytes;
            pullFromBytes = o.pullFromBytes;
            oneShotMaxBytes = o.oneShotMaxBytes;
            twoShotMaxBytes = o.twoShotMaxBytes;
            maxBlocks = o.maxBlocks;
            ringChannels = o.ringChannels;
            ringSlotBytes = o.ringSlotBytes;
            ringChunkSteps = o.ringChunkSteps;
            packsPerThread = o.packsPerThread;
            pullUnroll = o.pullUnroll;
            llPackedBlockGroups = o.llPackedBlockGroups;
            ll128MaxBytes = o.ll128MaxBytes;
            ll128BlocksPerSm = o.ll128BlocksPerSm;
            ctaPolicy = o.ctaPolicy;
        }

        GpuOptions done() {
            return new GpuOptions(algorithm, llMaxBytes, llPackedMaxBytes, pushMaxBytes, pushChunkBytes, pullFromBytes,
                    oneShotMaxBytes, twoShotMaxBytes, maxBlocks, ringChannels, ringSlotBytes, ringChunkSteps,
                    packsPerThread, pullUnroll, llPackedBlockGroups, ll128MaxBytes, ll128BlocksPerSm, ctaPolicy);
        }
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

    /**
     * Whether {@code ncclProto} (NCCL_PROTO, NCCL's grammar: "^LL128", "LL,Simple", "allreduce:^LL128"; null or
     * blank: unset) leaves LL128 to allReduce, as NCCL users turn LL128 off; a malformed value is an error.
     */
    public static boolean ll128AllowedBy(String ncclProto) {
        AlgoProtoFilter f = AlgoProtoFilter.parse(null, ncclProto);
        return f.protoState(AlgoProtoFilter.funcIndex(Collective.ALL_REDUCE), Protocol.LL128) != 0;
    }

    private static long bytes(String field, long dflt) {
        io.jccl.internal.param.Param<String> p = io.jccl.internal.param.InternalProperties.cudaOption(field);
        return p.isSet() ? parseBytes(p.get()) : dflt;
    }

    private static void check(boolean ok, String what, long value) {
        if (!ok) {
            throw new JcclException(Result.INVALID_ARGUMENT, "GpuOptions: " + what + ", got " + value);
        }
    }
}
