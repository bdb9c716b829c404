package io.jccl.internal.tuning;

import io.jccl.Collective;

import java.util.ArrayList;
import java.util.List;

/**
 * A tuner plugin registered through META-INF/services for the tests: rules out Ring/LL, makes Tree/Simple look very
 * fast, caps channels at 3 and records its calls. {@link #failNext} makes the next getCollInfo throw.
 */
public final class TestTunerPlugin implements TunerPlugin {
    static final List<String> CALLS = new ArrayList<>();
    static boolean failNext;

    @Override
    public String name() {
        return "test-tuner";
    }

    @Override
    public void init(int nRanks, int nNodes) {
        CALLS.add("init " + nRanks + " " + nNodes);
    }

    @Override
    public int getCollInfo(Collective coll, long nBytes, int numPipeOps, CostTable table, int maxChannels) {
        CALLS.add("getCollInfo " + coll.ncclName() + " " + nBytes + " " + maxChannels);
        if (failNext) {
            failNext = false;
            throw new IllegalStateException("plugin bug");
        }
        table.set(Algorithm.RING, Protocol.LL, CostTable.IGNORE);
        if (table.get(Algorithm.TREE, Protocol.SIMPLE) > 0) {
            table.set(Algorithm.TREE, Protocol.SIMPLE, 0.5);
        }
        table.set(Algorithm.NVLS, Protocol.SIMPLE, 0.01); // unusable combination: must stay unusable
        return 3;
    }

    @Override
    public void close() {
        CALLS.add("close");
    }
}
