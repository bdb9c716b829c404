package io.jccl.internal.topology.channels;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class BinaryTreesTest {

    @Test
    void ncclWorkedExamples() {
        // n = 8, rank 1: parent 2, first child of it (1 < 2), no children.
        assertThat(BinaryTrees.btree(8, 1)).isEqualTo(new TreeLinks(2, -1, -1, 0));
        // The 14-rank tree of NCCL's comment: 0 -> 8; 8 -> 4, 12; 4 -> 2, 6; 12 -> 10, 13.
        assertThat(BinaryTrees.btree(14, 0)).isEqualTo(new TreeLinks(-1, -1, 8, -1));
        TreeLinks t8 = BinaryTrees.btree(14, 8);
        assertThat(t8.up()).isZero();
        assertThat(new int[] {t8.down0(), t8.down1()}).containsExactly(4, 12);
        TreeLinks t4 = BinaryTrees.btree(14, 4);
        assertThat(new int[] {t4.up(), t4.down0(), t4.down1()}).containsExactly(8, 2, 6);
        TreeLinks t12 = BinaryTrees.btree(14, 12);
        assertThat(new int[] {t12.up(), t12.down0(), t12.down1()}).containsExactly(8, 10, 13);
        assertThat(BinaryTrees.btree(1, 0)).isEqualTo(new TreeLinks(-1, -1, -1, -1));
    }

    @Test
    void invariantsForEverySizeUpTo1024() {
        for (int n = 1; n <= 1024; n++) {
            for (int which = 0; which < 2; which++) {
                TreeLinks[] t = new TreeLinks[n];
                for (int r = 0; r < n; r++) {
                    t[r] = BinaryTrees.dtree(n, r, which);
                }
                int roots = 0;
                int edges = 0;
                for (int r = 0; r < n; r++) {
                    if (t[r].up() == -1) {
                        roots++;
                    } else {
                        assertThat(t[r].up()).isBetween(0, n - 1).isNotEqualTo(r);
                        TreeLinks p = t[t[r].up()];
                        // symmetric: my parent lists me as a child, in the slot my parentChildType says
                        int[] kids = {p.down0(), p.down1()};
                        assertThat(kids).as("n=%d tree=%d rank=%d", n, which, r).contains(r);
                        assertThat(kids[t[r].parentChildType()]).as("n=%d tree=%d rank=%d slot", n, which, r)
                                .isEqualTo(r);
                    }
                    for (int d : new int[] {t[r].down0(), t[r].down1()}) {
                        if (d != -1) {
                            assertThat(d).isBetween(0, n - 1);
                            assertThat(t[d].up()).as("n=%d tree=%d child %d of %d", n, which, d, r).isEqualTo(r);
                            edges++;
                        }
                    }
                }
                assertThat(roots).as("n=%d tree=%d", n, which).isEqualTo(1);
                assertThat(edges).isEqualTo(n - 1); // connected: a tree over all n ranks
            }
        }
    }

    @Test
    void secondTreeIsMirrorForEvenAndShiftForOdd() {
        for (int n = 2; n <= 257; n++) {
            for (int r = 0; r < n; r++) {
                TreeLinks t1 = BinaryTrees.dtree(n, r, 1);
                TreeLinks ref = n % 2 == 0 ? BinaryTrees.btree(n, n - 1 - r) : BinaryTrees.btree(n, (r - 1 + n) % n);
                int[] mapped = {map(ref.up(), n), map(ref.down0(), n), map(ref.down1(), n)};
                assertThat(new int[] {t1.up(), t1.down0(), t1.down1()}).as("n=%d r=%d", n, r).containsExactly(mapped);
            }
        }
    }

    private static int map(int x, int n) {
        if (x == -1) {
            return -1;
        }
        return n % 2 == 0 ? n - 1 - x : (x + 1) % n;
    }

    @Test
    void everyInnerNodeOfOneTreeIsALeafInTheOtherForPowersOfTwo() {
        // The point of the double tree: for n = 2^k every rank has children in at most one of the two trees.
        for (int n = 2; n <= 1024; n *= 2) {
            for (int r = 0; r < n; r++) {
                TreeLinks a = BinaryTrees.dtree(n, r, 0);
                TreeLinks b = BinaryTrees.dtree(n, r, 1);
                boolean innerA = a.down0() != -1 || a.down1() != -1;
                boolean innerB = b.down0() != -1 || b.down1() != -1;
                assertThat(innerA && innerB).as("n=%d r=%d", n, r).isFalse();
            }
        }
    }
}
