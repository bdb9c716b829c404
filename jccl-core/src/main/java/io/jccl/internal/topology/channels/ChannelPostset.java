package io.jccl.internal.topology.channels;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.topology.TopoConstants;

import java.util.Arrays;
import java.util.List;

/**
 * Joins the per-node rings and trees of all ranks into the communicator's channels:
 * <ol>
 *   <li>rail alternation: with cross-NIC rings ({@code crossNic == 2}) and an even channel count, ranks on odd nodes
 *   swap channels c and c^1, so channel 0 runs NET0→…→NET1 and channel 1 NET1→…→NET0 on the same rails;</li>
 *   <li>rings: each node's last GPU sends to the next node's first GPU;</li>
 *   <li>trees: the double binary tree over nodes; channel c uses tree 0 and channel c + n tree 1, joining the chain of
 *   each node through its parent- and child-facing GPUs;</li>
 *   <li>duplication to 2n channels (at most 64), then NCCL_MAX_NCHANNELS caps and NCCL_MIN_NCHANNELS copies channels
 *   round-robin up to the minimum;</li>
 *   <li>every ring is checked to contain every rank once.</li>
 * </ol>
 *
 * <p>Stateless; mirrors ncclTopoPostset, connectRings, connectTrees and copyChannels (src/graph/connect.cc).
 */
public final class ChannelPostset {
    private ChannelPostset() {
    }

    /**
     * @param nodeOfRank    node index of each rank (nodes numbered by their first rank)
     * @param allRanks      every rank's preset result, indexed by rank
     * @param nChannels     channels each rank's preset covered
     * @param ringCrossNic  crossNic of the (merged) ring graph
     * @param minChannels   NCCL_MIN_NCHANNELS (0 = none)
     * @param maxChannels   NCCL_MAX_NCHANNELS (0 = MAXCHANNELS)
     */
    public static CommChannels postset(int[] nodeOfRank, List<TopoRanks> gathered, int nChannels, int ringCrossNic,
                                       int minChannels, int maxChannels) {
        int nRanks = nodeOfRank.length;
        List<TopoRanks> allRanks = gathered.stream().map(TopoRanks::copy).toList();
        if (allRanks.size() != nRanks) {
            throw new JcclException(Result.INTERNAL_ERROR, "postset needs the TopoRanks of all " + nRanks
                    + " ranks, got "
                    + allRanks.size());
        }
        int nNodes = Arrays.stream(nodeOfRank).max().orElse(-1) + 1;
        int[] firstRank = new int[nNodes];
        Arrays.fill(firstRank, -1);
        for (int r = 0; r < nRanks; r++) {
            if (firstRank[nodeOfRank[r]] < 0) {
                firstRank[nodeOfRank[r]] = r;
            }
        }
        if (ringCrossNic == 2 && nChannels % 2 == 0) {
            for (int r = 0; r < nRanks; r++) {
                if (nodeOfRank[r] % 2 == 1) {
                    for (int c = 0; c < nChannels; c += 2) {
                        allRanks.get(r).swapRings(c, c ^ 1);
                    }
                }
            }
        }
        int total = Math.min(TopoConstants.MAXCHANNELS, nChannels * 2);
        int[][] prev = new int[TopoConstants.MAXCHANNELS][];
        int[][] next = new int[TopoConstants.MAXCHANNELS][];
        int[][] up = new int[TopoConstants.MAXCHANNELS][];
        int[][][] down = new int[TopoConstants.MAXCHANNELS][][];
        for (int c = 0; c < nChannels; c++) {
            prev[c] = new int[nRanks];
            next[c] = new int[nRanks];
            for (int r = 0; r < nRanks; r++) {
                prev[c][r] = allRanks.get(r).ringPrev()[c];
                next[c][r] = allRanks.get(r).ringNext()[c];
            }
            for (int n = 0; n < nNodes; n++) {
                TopoRanks here = allRanks.get(firstRank[n]);
                TopoRanks before = allRanks.get(firstRank[(n - 1 + nNodes) % nNodes]);
                TopoRanks after = allRanks.get(firstRank[(n + 1) % nNodes]);
                prev[c][here.ringRecv()[c]] = before.ringSend()[c];
                next[c][here.ringSend()[c]] = after.ringRecv()[c];
            }
        }
        for (int c = 0; c < nChannels; c++) {
            for (int t = 0; t < 2 && c + t * nChannels < TopoConstants.MAXCHANNELS; t++) {
                int ch = c + t * nChannels;
                up[ch] = new int[nRanks];
                down[ch] = new int[nRanks][TopoConstants.MAX_TREE_ARITY];
                for (int r = 0; r < nRanks; r++) {
                    up[ch][r] = allRanks.get(r).treeUp()[c];
                    Arrays.fill(down[ch][r], -1);
                    down[ch][r][0] = allRanks.get(r).treeDown()[c];
                }
                connectTree(t, c, nNodes, firstRank, allRanks, up[ch], down[ch]);
            }
        }
        for (int c = nChannels; c < total; c++) {
            prev[c] = prev[c - nChannels];
            next[c] = next[c - nChannels];
        }
        int nc = total;
        if (maxChannels > 0) {
            nc = Math.min(nc, maxChannels);
        }
        int start = nc;
        int end = Math.max(nc, Math.min(minChannels, TopoConstants.MAXCHANNELS));
        for (int c = start; c < end; c++) {
            prev[c] = prev[c - start];
            next[c] = next[c - start];
            up[c] = up[c - start];
            down[c] = down[c - start];
        }
        nc = end;
        int[] flatNext = new int[nc * nRanks];
        for (int c = 0; c < nc; c++) {
            System.arraycopy(next[c], 0, flatNext, c * nRanks, nRanks);
        }
        RingBuilder.buildRings(nc, 0, nRanks, flatNext);
        int depth = nRanks / Math.max(1, nNodes) - 1 + log2i(nNodes);
        return new CommChannels(nRanks, nc, Arrays.copyOf(prev, nc), Arrays.copyOf(next, nc), Arrays.copyOf(up, nc),
                Arrays.copyOf(down, nc), depth);
    }

    private static void connectTree(int which, int c, int nNodes, int[] firstRank, List<TopoRanks> all, int[] up,
                                    int[][] down) {
        int[] ttp = new int[nNodes];
        int[] ttc0 = new int[nNodes];
        int[] ttc1 = new int[nNodes];
        for (int n = 0; n < nNodes; n++) {
            TopoRanks tr = all.get(firstRank[n]);
            ttp[n] = tr.treeToParent()[c];
            ttc0[n] = tr.treeToChild0()[c];
            ttc1[n] = tr.treeToChild1()[c];
        }
        for (int node = 0; node < nNodes; node++) {
            TreeLinks t = BinaryTrees.dtree(nNodes, node, which);
            if (t.up() != -1) {
                up[ttp[node]] = (t.parentChildType() == 0 ? ttc0 : ttc1)[t.up()];
            }
            if (t.down0() != -1) {
                addDown(down[ttc0[node]], ttp[t.down0()], c);
            }
            if (t.down1() != -1) {
                addDown(down[ttc1[node]], ttp[t.down1()], c);
            }
        }
    }

    private static void addDown(int[] slots, int child, int c) {
        for (int k = 0; k < slots.length; k++) {
            if (slots[k] < 0) {
                slots[k] = child;
                return;
            }
        }
        throw new JcclException(Result.INTERNAL_ERROR, "tree of channel " + c + " already has " + slots.length
                + " children (" + Arrays.toString(slots) + ")");
    }

    static int log2i(int n) {
        return n <= 0 ? -1 : 31 - Integer.numberOfLeadingZeros(n);
    }
}
