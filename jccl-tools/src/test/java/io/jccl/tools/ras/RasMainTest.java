package io.jccl.tools.ras;

import io.jccl.Communicator;
import io.jccl.Config;
import io.jccl.RedOp;
import io.jccl.internal.ras.RasServer;
import io.jccl.tools.Cli;
import io.jccl.tools.run.RankEnvironment;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code jccl ras} against the status port of communicators in this JVM, and against nothing. */
class RasMainTest {
    @Test
    void printsEveryRankOfARunningCommunicator() {
        String s = askAfterAnAllReduce("ras-cli");
        assertThat(s).contains("JCCL status from pid " + ProcessHandle.current().pid()).contains("(ras-cli)")
                .containsPattern("\\n  1 .* alive ");
    }

    @Test
    void printsTheStatusAsJson() {
        String s = askAfterAnAllReduce("ras-json", "--json");
        com.google.gson.JsonObject o = com.google.gson.JsonParser.parseString(s).getAsJsonObject();
        assertThat(o.get("pid").getAsLong()).isEqualTo(ProcessHandle.current().pid());
        com.google.gson.JsonObject comm = null;
        for (com.google.gson.JsonElement e : o.getAsJsonArray("communicators")) {
            com.google.gson.JsonElement name = e.getAsJsonObject().get("name");
            if (name.isJsonPrimitive() && name.getAsString().equals("ras-json")) {
                comm = e.getAsJsonObject();
            }
        }
        assertThat(comm).as(s).isNotNull();
        assertThat(comm.get("nRanks").getAsInt()).isEqualTo(2);
        assertThat(comm.get("healthy").getAsBoolean()).isTrue();
        assertThat(comm.getAsJsonArray("ranks").get(1).getAsJsonObject().get("state").getAsString())
                .isEqualTo("alive");
    }

    /** Runs an allReduce on a 2-rank communicator named {@code name}, then runs jccl ras with {@code args}. */
    private static String askAfterAnAllReduce(String name, String... args) {
        List<Communicator> comms = Communicator.initAll(2, Config.defaults().withName(name));
        try {
            Thread[] ts = new Thread[2];
            for (int r = 0; r < 2; r++) {
                Communicator c = comms.get(r);
                ts[r] = Thread.ofPlatform().start(() -> c.allReduce(new float[16], RedOp.SUM));
            }
            for (Thread t : ts) {
                t.join();
            }
            List<String> all = new java.util.ArrayList<>(List.of("--host", "127.0.0.1", "--port",
                    Integer.toString(RasServer.address().getPort())));
            all.addAll(List.of(args));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int code = Cli.commandLine(new RasMain().with(new PrintStream(out, true, StandardCharsets.UTF_8), System.err))
                    .execute(all.toArray(String[]::new));
            String s = out.toString(StandardCharsets.UTF_8);
            assertThat(code).as(s).isZero();
            return s;
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        } finally {
            comms.forEach(Communicator::abort);
        }
    }

    @Test
    void saysWhenNothingAnswers() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Cli.commandLine(new RasMain().with(System.out, new PrintStream(err, true, StandardCharsets.UTF_8)))
                .execute("--port", Integer.toString(RankEnvironment.freePort()), "--timeout", "1000");
        assertThat(code).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("nothing answers").contains("./jccl run");
    }
}
