package io.jccl.internal.tuning;

import io.jccl.Collective;
import io.jccl.JcclException;
import io.jccl.Result;

import java.util.Arrays;

/**
 * NCCL_ALGO / NCCL_PROTO in NCCL's grammar: {@code [func:]list[;func:list]...}, where a list is comma-separated names
 * (case-insensitive), {@code ^} before a list means "all but these", a function prefix ({@code allreduce:}) limits the
 * list to that collective and only the first list may omit it (then it applies to all five tuned collectives).
 * Examples: {@code NCCL_ALGO="ring,collnetdirect;allreduce:tree,collnetdirect;broadcast:ring"},
 * {@code NCCL_PROTO="^LL128;allreduce:LL128"}.
 *
 * <p>Protocols are tri-state: 0 excluded, 1 enabled, 2 not mentioned (LL128 starts at 2 and is then kept only where
 * the hardware supports it). A collective mentioned by either variable is "forced": its candidates are exactly the
 * allowed algorithm × protocol pairs, and when none is usable the selection fails with INVALID_USAGE instead of
 * falling back. Unknown names or prefixes are INVALID_USAGE errors quoting the token and the string.
 *
 * <p>Immutable after parsing; mirrors parseList and the enable merge of NCCL's src/tuning/cost_model.cc.
 */
public final class AlgoProtoFilter {
    /** The collectives the cost model tunes, in NCCL's function order. */
    public static final Collective[] FUNCS = {Collective.BROADCAST, Collective.REDUCE, Collective.ALL_GATHER,
        Collective.REDUCE_SCATTER, Collective.ALL_REDUCE};

    private final String algoString;
    private final String protoString;
    private final int[][] algoEnable = new int[FUNCS.length][Algorithm.COUNT];
    private final int[][] protoEnable = new int[FUNCS.length][Protocol.COUNT];
    private final boolean[] forced = new boolean[FUNCS.length];

    private AlgoProtoFilter(String algo, String proto) {
        this.algoString = algo;
        this.protoString = proto;
        for (int f = 0; f < FUNCS.length; f++) {
            Arrays.fill(algoEnable[f], algo == null ? 1 : 0);
            for (Protocol p : Protocol.values()) {
                protoEnable[f][p.ordinal()] = p == Protocol.LL128 ? 2 : 1;
            }
        }
        if (algo != null) {
            parseList("NCCL_ALGO", algo, names(Algorithm.values()), algoEnable);
        }
        if (proto != null) {
            parseList("NCCL_PROTO", proto, names(Protocol.values()), protoEnable);
        }
    }

    /** No restriction. */
    public static AlgoProtoFilter none() {
        return new AlgoProtoFilter(null, null);
    }

    /** Parses the two settings; null or blank means unset. */
    public static AlgoProtoFilter parse(String ncclAlgo, String ncclProto) {
        return new AlgoProtoFilter(blankToNull(ncclAlgo), blankToNull(ncclProto));
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }

    private static String[] names(Enum<?>[] values) {
        String[] n = new String[values.length];
        for (int i = 0; i < values.length; i++) {
            n[i] = values[i] instanceof Algorithm a ? a.ncclName() : ((Protocol) values[i]).ncclName();
        }
        return n;
    }

    private void parseList(String var, String str, String[] elems, int[][] list) {
        boolean first = true;
        for (String token : str.split(";")) {
            if (token.isEmpty()) {
                continue;
            }
            String prefix = null;
            String elemList = token;
            int colon = token.indexOf(':');
            if (colon >= 0) {
                prefix = token.substring(0, colon).trim();
                String rest = token.substring(colon + 1);
                int second = rest.indexOf(':');
                elemList = second >= 0 ? rest.substring(0, second) : rest;
            } else if (!first) {
                throw new JcclException(Result.INVALID_USAGE, var + "=\"" + str
                        + "\": every list after the first needs a"
                        + " collective prefix, e.g. 'allreduce:ring'");
            }
            first = false;
            int unset = 0;
            int set = 1;
            elemList = elemList.trim();
            if (elemList.startsWith("^")) {
                unset = 1;
                set = 0;
                elemList = elemList.substring(1);
            }
            boolean foundPrefix = false;
            for (int f = 0; f < FUNCS.length; f++) {
                if (prefix != null && !prefix.equalsIgnoreCase(FUNCS[f].ncclName())) {
                    continue;
                }
                foundPrefix = true;
                forced[f] = true;
                Arrays.fill(list[f], unset);
                for (String e : elemList.split(",")) {
                    String name = e.trim();
                    if (name.isEmpty()) {
                        continue;
                    }
                    int idx = -1;
                    for (int i = 0; i < elems.length; i++) {
                        if (elems[i].equalsIgnoreCase(name)) {
                            idx = i;
                        }
                    }
                    if (idx < 0) {
                        throw new JcclException(Result.INVALID_USAGE, "Unrecognized element token \"" + name
                                + "\" when parsing " + var + "=\"" + str + "\"; known: " + String.join(", ", elems));
                    }
                    list[f][idx] = set;
                }
            }
            if (!foundPrefix) {
                throw new JcclException(Result.INVALID_USAGE, "Unrecognized prefix token \"" + prefix
                        + "\" when parsing "
                        + var + "=\"" + str + "\"; known: Broadcast, Reduce, AllGather, ReduceScatter, AllReduce");
            }
        }
    }

    /** Index of a tuned collective in {@link #FUNCS}, or -1 for collectives the cost model does not tune. */
    public static int funcIndex(Collective c) {
        for (int f = 0; f < FUNCS.length; f++) {
            if (FUNCS[f] == c) {
                return f;
            }
        }
        return -1;
    }

    public boolean forced(int f) {
        return forced[f];
    }

    /** True when NCCL_ALGO or NCCL_PROTO was set at all. */
    public boolean anySet() {
        return algoString != null || protoString != null;
    }

    public boolean algoAllowed(int f, Algorithm a) {
        return algoEnable[f][a.ordinal()] != 0;
    }

    /** 0 excluded, 1 enabled, 2 not mentioned. */
    public int protoState(int f, Protocol p) {
        return protoEnable[f][p.ordinal()];
    }

    /**
     * Why the environment rules out this candidate for a forced collective, or null when it allows it (or the
     * collective is not forced).
     */
    public String exclusion(int f, Algorithm a, Protocol p) {
        if (!forced[f]) {
            return null;
        }
        if (!algoAllowed(f, a)) {
            return "excluded by NCCL_ALGO=\"" + algoString + "\"";
        }
        if (protoEnable[f][p.ordinal()] == 0) {
            return "excluded by NCCL_PROTO=\"" + protoString + "\"";
        }
        return null;
    }

    public String algoString() {
        return algoString;
    }

    public String protoString() {
        return protoString;
    }
}
