package io.jccl.tools.run;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What to launch: {@code nRanks} local JVMs running {@code mainClass} with {@code args}, each told its rank through
 * the environment (see {@link RankEnvironment}). A value computed once by the caller; {@link LocalJob} runs it.
 *
 * @param nRanks         number of processes (ranks), at least 1
 * @param mainClass      fully qualified class whose {@code main} every rank runs
 * @param args           arguments passed to every rank
 * @param extraClasspath entries appended to this JVM's classpath for the children
 * @param timeout        overall limit for the whole job, or {@code null} for none
 * @param labels         which ranks' output lines get a {@code [rank] } prefix
 * @param extraEnv       variables added to every rank's environment (after the rank variables, so they win)
 * @param bindTo         {@code --bind-to} for local ranks (core, none, auto), or null for {@code JCCL_BIND_TO}, else
 * none
 */
public record LaunchSpec(int nRanks, String mainClass, List<String> args, List<String> extraClasspath,
                         Duration timeout, Labels labels, Map<String, String> extraEnv, String bindTo) {

    /** Which output lines are prefixed with their rank. */
    public enum Labels {
        /** Every line of every rank, stdout and stderr: {@code [3] text}. */
        ALL,
        /** Rank 0's lines pass through untouched (a tool whose rank 0 prints a report); the others are prefixed. */
        ALL_BUT_RANK0
    }

    public LaunchSpec {
        if (nRanks < 1) {
            throw new IllegalArgumentException("the number of ranks must be at least 1, got " + nRanks);
        }
        Objects.requireNonNull(mainClass, "mainClass");
        if (mainClass.isBlank()) {
            throw new IllegalArgumentException("the main class name is empty");
        }
        args = List.copyOf(args);
        extraClasspath = List.copyOf(extraClasspath);
        if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
            throw new IllegalArgumentException("timeout must be positive, got " + timeout);
        }
        labels = Objects.requireNonNull(labels, "labels");
        extraEnv = Map.copyOf(extraEnv);
        CoreBinding.Policy.parse(bindTo);
    }

    /** {@code nRanks} ranks of {@code mainClass}, every line labelled, no timeout, no extra classpath. */
    public static LaunchSpec of(int nRanks, String mainClass, List<String> args) {
        return new LaunchSpec(nRanks, mainClass, args, List.of(), null, Labels.ALL, Map.of(), null);
    }

    public LaunchSpec withTimeout(Duration t) {
        return new LaunchSpec(nRanks, mainClass, args, extraClasspath, t, labels, extraEnv, bindTo);
    }

    public LaunchSpec withLabels(Labels l) {
        return new LaunchSpec(nRanks, mainClass, args, extraClasspath, timeout, l, extraEnv, bindTo);
    }

    public LaunchSpec withExtraClasspath(List<String> cp) {
        return new LaunchSpec(nRanks, mainClass, args, cp, timeout, labels, extraEnv, bindTo);
    }

    public LaunchSpec withBindTo(String b) {
        return new LaunchSpec(nRanks, mainClass, args, extraClasspath, timeout, labels, extraEnv, b);
    }

    public LaunchSpec withExtraEnv(Map<String, String> env) {
        return new LaunchSpec(nRanks, mainClass, args, extraClasspath, timeout, labels, env, bindTo);
    }
}
