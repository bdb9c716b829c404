package io.jccl.internal.launch;

import io.jccl.JcclException;
import io.jccl.Result;

import java.util.ArrayList;
import java.util.List;

/**
 * Slurm's compact lists: host lists ({@code node[01-04,07],login1}) and task counts per node ({@code 2(x3),1}).
 *
 * <p>Owned by: the calling thread (stateless). Mirrors: Slurm's hostlist expression syntax (scontrol show hostnames).
 */
public final class SlurmHosts {
    private SlurmHosts() {
    }

    /** The host names of a Slurm host list, in order. */
    public static List<String> expand(String hostList) {
        List<String> out = new ArrayList<>();
        int i = 0;
        int n = hostList.length();
        while (i < n) {
            int start = i;
            int depth = 0;
            while (i < n && (depth > 0 || hostList.charAt(i) != ',')) {
                char c = hostList.charAt(i);
                depth += c == '[' ? 1 : c == ']' ? -1 : 0;
                i++;
            }
            if (depth != 0) {
                throw bad(hostList);
            }
            String item = hostList.substring(start, i).trim();
            if (!item.isEmpty()) {
                expandItem(item, hostList, out);
            }
            i++;
        }
        return out;
    }

    private static void expandItem(String item, String whole, List<String> out) {
        int open = item.indexOf('[');
        if (open < 0) {
            out.add(item);
            return;
        }
        int close = item.indexOf(']', open);
        if (close < 0) {
            throw bad(whole);
        }
        String prefix = item.substring(0, open);
        List<String> tails = new ArrayList<>();
        String rest = item.substring(close + 1);
        if (rest.isEmpty()) {
            tails.add("");
        } else {
            expandItem(rest, whole, tails);
        }
        for (String range : item.substring(open + 1, close).split(",")) {
            String[] ends = range.trim().split("-", -1);
            if (ends.length > 2 || ends[0].isEmpty()) {
                throw bad(whole);
            }
            int width = ends[0].length();
            long lo = number(ends[0], whole);
            long hi = ends.length == 2 ? number(ends[1], whole) : lo;
            if (hi < lo || hi - lo > 1 << 20) {
                throw bad(whole);
            }
            for (long v = lo; v <= hi; v++) {
                String digits = String.format("%0" + width + "d", v);
                for (String t : tails) {
                    out.add(prefix + digits + t);
                }
            }
        }
    }

    /**
     * The number of tasks on node {@code nodeId} of {@code SLURM_TASKS_PER_NODE} ({@code 2(x3),1}: 2, 2, 2, 1), or
     * -1 when either is unknown.
     */
    public static int localTasks(String tasksPerNode, int nodeId) {
        if (tasksPerNode == null || tasksPerNode.isBlank() || nodeId < 0) {
            return -1;
        }
        int node = 0;
        for (String part : tasksPerNode.split(",")) {
            String p = part.trim();
            int x = p.indexOf("(x");
            int count = EnvPlacement.parseInt(x < 0 ? p : p.substring(0, x), "SLURM_TASKS_PER_NODE");
            int repeat = x < 0 ? 1 : EnvPlacement.parseInt(p.substring(x + 2, p.length() - 1),
                    "SLURM_TASKS_PER_NODE");
            if (nodeId < node + repeat) {
                return count;
            }
            node += repeat;
        }
        return -1;
    }

    private static long number(String s, String whole) {
        try {
            return Long.parseLong(s.trim());
        } catch (NumberFormatException e) {
            throw bad(whole);
        }
    }

    private static JcclException bad(String hostList) {
        return new JcclException(Result.INVALID_ARGUMENT, "'" + hostList + "' is not a Slurm host list "
                + "(node[01-04,07],other)");
    }
}
