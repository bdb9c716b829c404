package io.jccl.tools.run.netns;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.Group;
import io.jccl.Jccl;
import io.jccl.JcclException;
import io.jccl.RedOp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One rank of the cross-host tests, started by the hostfile launcher in a namespace host; joins through
 * {@link Communicator#fromEnvironment()}. Modes (first argument):
 * <ul>
 *   <li>{@code all}: every collective (allReduce, broadcast, reduce, allGather, reduceScatter, allToAll, gather,
 *   scatter, send/recv in a ring) at a few int32 counts (one element, an odd count, over a MiB), every element of
 *   every result compared with its exact value; prints {@code OK <collective> <count>} and ends with
 *   {@code ALL OK <ranks> ranks on <hosts> hosts};</li>
 *   <li>{@code marker TEXT}: the last rank broadcasts 1 MiB of TEXT repeated, then every rank allGathers it, 8
 *   times each, every byte checked; ends with {@code MARKER OK} (what a wire capture looks for);</li>
 *   <li>{@code loop SECONDS}: verified allReduces for that long, a {@code progress N} line every 200 ms.</li>
 * </ul>
 * A wrong element prints {@code WRONG ...} and exits 3; a {@code JcclException} prints {@code JCCL_ERROR <result>
 * <message>} and exits 4. Runs on the rank's main thread.
 */
public final class CrossHostCheck {
    private static final int[] COUNTS = {1, 4099, 262_147};

    private final Communicator comm;
    private final int rank;
    private final int n;
    private final Arena arena = Arena.ofShared();
    private boolean announce = true;

    private CrossHostCheck(Communicator comm) {
        this.comm = comm;
        this.rank = comm.rank();
        this.n = comm.size();
    }

    public static void main(String[] args) {
        try (Communicator comm = Communicator.fromEnvironment()) {
            CrossHostCheck c = new CrossHostCheck(comm);
            if (args[0].equals("all")) {
                c.all();
                System.out.println("ALL OK " + comm.size() + " ranks, local " + System.getenv("LOCAL_RANK") + "/"
                        + System.getenv("LOCAL_WORLD_SIZE"));
            } else if (args[0].equals("marker")) {
                c.marker(args[1]);
                System.out.println("MARKER OK");
            } else {
                c.loop(Double.parseDouble(args[1]));
            }
        } catch (JcclException e) {
            System.out.println("JCCL_ERROR " + e.result() + " " + e.getMessage());
            System.out.flush();
            System.exit(4);
        }
    }

    /** The value rank {@code r} contributes at element {@code i}; sums over 16 ranks stay far below 2^31. */
    static int value(int r, long i) {
        return r * 1_000_003 + (int) (i % 999_983) + 1;
    }

    private void all() {
        int root = n - 1;   // on the last host: the root's data crosses hosts
        for (int count : COUNTS) {
            MemorySegment send = ints(count * (long) n);
            MemorySegment recv = ints(count * (long) n);
            fill(send, count * (long) n, i -> value(rank, i));

            comm.allReduce(send, recv, count, DataType.INT32, RedOp.SUM);
            check("allReduce", recv, count, i -> sum(i));

            comm.broadcast(send, recv, count, DataType.INT32, root);
            check("broadcast", recv, count, i -> value(root, i));

            fill(recv, count, i -> -7);
            comm.reduce(send, recv, count, DataType.INT32, RedOp.SUM, root);
            check("reduce", recv, rank == root ? count : 0, i -> sum(i));

            comm.allGather(send, recv, count, DataType.INT32);
            check("allGather", recv, count * (long) n, i -> value((int) (i / count), i % count));

            comm.reduceScatter(send, recv, count, DataType.INT32, RedOp.SUM);
            check("reduceScatter", recv, count, i -> sum(rank * (long) count + i));

            comm.allToAll(send, recv, count, DataType.INT32);
            check("allToAll", recv, count * (long) n, i -> value((int) (i / count), rank * (long) count + i % count));

            comm.gather(send, recv, count, DataType.INT32, root);
            check("gather", recv, rank == root ? count * (long) n : 0, i -> value((int) (i / count), i % count));

            comm.scatter(send, recv, count, DataType.INT32, root);
            check("scatter", recv, count, i -> value(root, rank * (long) count + i));

            int next = (rank + 1) % n;
            int prev = (rank - 1 + n) % n;
            try (Group g = Jccl.group()) {
                comm.send(send, count, DataType.INT32, next);
                comm.recv(recv, count, DataType.INT32, prev);
            }
            check("sendRecv", recv, count, i -> value(prev, i));
        }
    }

    private void marker(String text) {
        byte[] pattern = text.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        int count = 1 << 20;
        MemorySegment send = arena.allocate(count);
        MemorySegment recv = arena.allocate((long) count * n);
        for (int i = 0; i < count; i++) {
            send.set(ValueLayout.JAVA_BYTE, i, pattern[i % pattern.length]);
        }
        for (int round = 0; round < 8; round++) {
            recv.fill((byte) 0);
            comm.broadcast(send, recv, count, DataType.UINT8, n - 1);
            checkBytes("broadcast", recv, count, pattern);
            comm.allGather(send, recv, count, DataType.UINT8);
            checkBytes("allGather", recv, (long) count * n, pattern);
        }
    }

    private void checkBytes(String what, MemorySegment seg, long count, byte[] pattern) {
        int period = 1 << 20;
        for (long i = 0; i < count; i++) {
            if (seg.get(ValueLayout.JAVA_BYTE, i) != pattern[(int) (i % period % pattern.length)]) {
                System.out.println("WRONG " + what + " rank " + rank + " byte " + i + " of " + count);
                System.out.flush();
                System.exit(3);
            }
        }
    }

    private void loop(double seconds) {
        announce = false;
        int count = 65_536;
        MemorySegment send = ints(count + 1);
        MemorySegment recv = ints(count + 1);
        fill(send, count, i -> value(rank, i));
        long end = System.nanoTime() + (long) (seconds * 1e9);
        long nextReport = 0;
        long iter = 0;
        boolean stop = false;
        while (!stop) {
            // the last element carries rank 0's "time is up", so every rank runs the same number of operations
            send.setAtIndex(ValueLayout.JAVA_INT, count, rank == 0 && System.nanoTime() >= end ? 1 : 0);
            fill(recv, count + 1, i -> -1);
            comm.allReduce(send, recv, count + 1, DataType.INT32, RedOp.SUM);
            check("allReduce", recv, count, this::sum);
            stop = recv.getAtIndex(ValueLayout.JAVA_INT, count) != 0;
            iter++;
            if (System.nanoTime() >= nextReport) {
                System.out.println("progress " + iter);
                nextReport = System.nanoTime() + 200_000_000L;
            }
        }
        System.out.println("DONE " + iter + " verified allReduces");
    }

    private int sum(long i) {
        return sum(n, i);
    }

    /** The sum over {@code n} ranks of {@link #value} at element {@code i}. */
    static int sum(int n, long i) {
        int s = 0;
        for (int r = 0; r < n; r++) {
            s += value(r, i);
        }
        return s;
    }

    private MemorySegment ints(long count) {
        return arena.allocate(ValueLayout.JAVA_INT, Math.max(1, count));
    }

    private interface Expect {
        int at(long i);
    }

    private static void fill(MemorySegment seg, long count, Expect v) {
        for (long i = 0; i < count; i++) {
            seg.setAtIndex(ValueLayout.JAVA_INT, i, v.at(i));
        }
    }

    private void check(String what, MemorySegment seg, long count, Expect expected) {
        for (long i = 0; i < count; i++) {
            int got = seg.getAtIndex(ValueLayout.JAVA_INT, i);
            int want = expected.at(i);
            if (got != want) {
                System.out.println("WRONG " + what + " rank " + rank + " element " + i + " of " + count + ": got "
                        + got + ", expected " + want);
                System.out.flush();
                System.exit(3);
            }
        }
        if (announce) {
            System.out.println("OK " + what + " " + count);
        }
    }
}
