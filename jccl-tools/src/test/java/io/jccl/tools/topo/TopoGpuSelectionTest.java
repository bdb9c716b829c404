package io.jccl.tools.topo;

import io.jccl.Collective;
import io.jccl.cuda.GpuOptions;
import io.jccl.cuda.internal.enqueue.CollPlanner;
import io.jccl.cuda.internal.enqueue.GpuExplain;
import io.jccl.internal.topology.TopoEnv;
import io.jccl.internal.tuning.Explain;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On a GPU system, {@code jccl topo --explain} prints what a GPU communicator launches: for every collective and
 * every size from 8 B to 2 GiB on the 2×H200 and DGX-H100 topologies, its {@code runs:} line is the selection of the
 * planner a {@code GpuCommunicator} builds on such a machine (132 multiprocessors, NVLink between every pair), which
 * is what {@code algorithmFor} describes.
 */
class TopoGpuSelectionTest {
    private static final Path FIXTURES = Path.of("..", "jccl-core", "src", "test", "resources", "topology");
    private static final List<String> COLLS = List.of("allreduce", "allgather", "reducescatter", "broadcast",
            "reduce", "alltoall", "send");

    @ParameterizedTest(name = "{0}, one process: {2}")
    @CsvSource({"nvlink-pair-h200.xml, 2, false", "nvlink-pair-h200.xml, 2, true", "dgx-h100.xml, 8, false",
            "dgx-h100.xml, 8, true"})
    void topoPrintsWhatTheCommunicatorLaunches(String fixture, int nRanks, boolean oneProcess) {
        Path topo = FIXTURES.resolve(fixture);
        assertThat(Files.isRegularFile(topo)).as(topo.toString()).isTrue();
        List<String> args = new ArrayList<>(List.of("--topo-file", topo.toString(), "--explain"));
        List<Explain.Request> requests = new ArrayList<>();
        for (String c : COLLS) {
            for (long bytes = 8; bytes <= 2L << 30; bytes *= 2) {
                for (long b : new long[] {bytes, bytes + bytes / 2 + 8}) {
                    args.add(c + ":" + b);
                    requests.add(Explain.Request.parse(c + ":" + b));
                }
            }
        }
        if (oneProcess) {
            args.add("--one-process");
        }
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = TopoMain.run(args.toArray(String[]::new), new PrintWriter(out, true), new PrintWriter(err, true),
                TopoEnv.of(Map.of()));
        assertThat(code).as(err.toString()).isZero();
        List<String> printed = out.toString().lines().filter(l -> l.startsWith("runs: ")).toList();
        CollPlanner launched = GpuExplain.planner(GpuOptions.defaults(),
                new GpuExplain.GpuSystem(nRanks, 132, oneProcess, true));
        assertThat(out.toString()).contains(nRanks + " rank(s), 132 multiprocessors")
                .contains("NVLink between every pair");
        assertThat(printed).hasSize(requests.size());
        Set<String> allReduceKinds = new TreeSet<>();
        for (int i = 0; i < requests.size(); i++) {
            var s = GpuExplain.select(launched, requests.get(i));
            assertThat(printed.get(i)).as(requests.get(i).toString()).isEqualTo("runs: " + s.line());
            if (requests.get(i).collective() == Collective.ALL_REDUCE) {
                allReduceKinds.add(s.algorithm());
            }
        }
        // the sweep crosses the planner's size boundaries: several kernels, the ring at the top
        assertThat(allReduceKinds).contains("ring").hasSizeGreaterThanOrEqualTo(3);
        if (oneProcess) {
            assertThat(allReduceKinds).contains("twoshot");
        }
    }
}
