package io.jccl.cuda.bench;

import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.RedOp;
import io.jccl.Result;
import io.jccl.cuda.AllReduceAlgorithm;
import io.jccl.cuda.CliqueOptions;

import java.util.ArrayList;
import java.util.List;

/**
 * Command line of {@link GpuAllReduceBench}, with nccl-tests' flag names where they exist:
 * {@code -g 2 -b 8 -e 1G -f 4 -d float -o sum -n 50 -w 5 -r 7 [--algo auto|ll|push|oneshot|twoshot|ring|all]
 * [--inplace] [--no-nccl] [--graph] [--graph-sizes 8,2K,...] [--nccl-dump]}.
 *
 * <p>Thread: immutable value built once by main.
 */
record BenchOptions(int gpus, long minBytes, long maxBytes, int factor, DataType type, RedOp op, int iters,
                    int warmup, int reps, List<AllReduceAlgorithm> algorithms, boolean inPlace, boolean nccl,
                    boolean graph, List<Long> graphSizes, int graphOpsPerLaunch, boolean ncclDump) {

    static BenchOptions parse(String[] args) {
        int gpus = 2;
        long minBytes = 8;
        long maxBytes = 1L << 30;
        int factor = 4;
        DataType type = DataType.FLOAT32;
        RedOp op = RedOp.SUM;
        int iters = 50;
        int warmup = 5;
        int reps = 7;
        List<AllReduceAlgorithm> algos = List.of(AllReduceAlgorithm.AUTO);
        boolean inPlace = false;
        boolean nccl = true;
        boolean graph = false;
        List<Long> graphSizes = List.of(8L);
        int graphOps = 20;
        boolean dump = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "-g" -> gpus = Integer.parseInt(value(args, ++i, a));
                case "-b" -> minBytes = CliqueOptions.parseBytes(value(args, ++i, a));
                case "-e" -> maxBytes = CliqueOptions.parseBytes(value(args, ++i, a));
                case "-f" -> factor = Integer.parseInt(value(args, ++i, a));
                case "-d" -> type = DataType.fromName(value(args, ++i, a));
                case "-o" -> op = RedOp.fromName(value(args, ++i, a));
                case "-n" -> iters = Integer.parseInt(value(args, ++i, a));
                case "-w" -> warmup = Integer.parseInt(value(args, ++i, a));
                case "-r" -> reps = Integer.parseInt(value(args, ++i, a));
                case "--algo" -> {
                    String v = value(args, ++i, a);
                    algos = v.equals("all")
                            ? List.of(AllReduceAlgorithm.AUTO, AllReduceAlgorithm.LL, AllReduceAlgorithm.PUSH,
                                    AllReduceAlgorithm.ONE_SHOT, AllReduceAlgorithm.TWO_SHOT, AllReduceAlgorithm.RING)
                            : splitAlgos(v);
                }
                case "--inplace" -> inPlace = true;
                case "--no-nccl" -> nccl = false;
                case "--graph" -> graph = true;
                case "--graph-sizes" -> {
                    graphSizes = new ArrayList<>();
                    for (String s : value(args, ++i, a).split(",")) {
                        graphSizes.add(CliqueOptions.parseBytes(s));
                    }
                }
                case "--graph-ops" -> graphOps = Integer.parseInt(value(args, ++i, a));
                case "--nccl-dump" -> dump = true;
                default -> throw new JcclException(Result.INVALID_ARGUMENT, "unknown option " + a + "; usage: "
                        + "-g N -b MIN -e MAX -f FACTOR -d TYPE -o OP -n ITERS -w WARMUP -r REPS "
                        + "[--algo auto|ll|push|oneshot|twoshot|ring|all|a,b] [--inplace] [--no-nccl] [--graph] "
                        + "[--graph-sizes 8,2K] [--graph-ops N] [--nccl-dump]");
            }
        }
        if (factor < 2 || minBytes < 1 || maxBytes < minBytes || iters < 1 || reps < 1 || gpus < 1) {
            throw new JcclException(Result.INVALID_ARGUMENT, "need -f >= 2, 1 <= -b <= -e, -n >= 1, -r >= 1, -g >= 1");
        }
        return new BenchOptions(gpus, minBytes, maxBytes, factor, type, op, iters, warmup, reps, algos, inPlace,
                nccl, graph, List.copyOf(graphSizes), graphOps, dump);
    }

    /** The message sizes: min, min*f, ... up to max, plus max itself when the series skips it. */
    List<Long> sizes() {
        List<Long> out = new ArrayList<>();
        long s = minBytes;
        for (; s <= maxBytes; s *= factor) {
            out.add(s);
            if (s > Long.MAX_VALUE / factor) {
                break;
            }
        }
        if (out.get(out.size() - 1) != maxBytes) {
            out.add(maxBytes);
        }
        return out;
    }

    /** Iterations per timed repetition: fewer for large messages to bound the run time. */
    int itersFor(long bytes) {
        if (bytes >= (256L << 20)) {
            return Math.max(2, iters / 10);
        }
        if (bytes >= (32L << 20)) {
            return Math.max(4, iters / 4);
        }
        return iters;
    }

    private static List<AllReduceAlgorithm> splitAlgos(String v) {
        List<AllReduceAlgorithm> l = new ArrayList<>();
        for (String s : v.split(",")) {
            l.add(AllReduceAlgorithm.fromName(s));
        }
        return List.copyOf(l);
    }

    private static String value(String[] args, int i, String flag) {
        if (i >= args.length) {
            throw new JcclException(Result.INVALID_ARGUMENT, flag + " needs a value");
        }
        return args[i];
    }
}
