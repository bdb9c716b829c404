package io.jccl.internal.ras;

import io.jccl.Collective;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The JSON status view: strings escaped as JSON requires, the facts of the text view. */
class StatusJsonTest {
    @Test
    void stringsAreEscaped() {
        assertThat(StatusJson.quote(new StringBuilder(), "a\"b\\c\nd\te\u0001\u2028").toString())
                .isEqualTo("\"a\\\"b\\\\c\\nd\\te\\u0001\\u2028\"");
        assertThat(StatusJson.quote(new StringBuilder(), null).toString()).isEqualTo("null");
        assertThat(StatusJson.quote(new StringBuilder(), "héllo").toString()).isEqualTo("\"héllo\"");
    }

    @Test
    void aStuckOperationIsDescribed() {
        StatusReport.Row[] rows = {
            new StatusReport.Row(0, "h\"0", 11, "alive",
                    new RasMessages.PeerStatus(7, 6, Collective.ALL_REDUCE, 1500, "receiving from rank 1")),
            new StatusReport.Row(1, "h1", 12, "LOST", null)};
        String json = StatusJson.format(5, "host", List.of(new StatusReport.Comm("c0ffee", null, 0, 2,
                "rank 1 lost", rows)));
        assertThat(json).startsWith("{\"pid\":5,\"host\":\"host\",\"communicators\":[{\"id\":\"c0ffee\",\"name\":null,"
                + "\"rank\":0,\"nRanks\":2,\"healthy\":false,\"failure\":\"rank 1 lost\",\"ranks\":[")
                .contains("{\"rank\":0,\"host\":\"h\\\"0\",\"pid\":11,\"state\":\"alive\",\"completedSeq\":6,"
                        + "\"issuedSeq\":7,\"inFlight\":true,\"currentOp\":\"AllReduce\",\"inFlightMs\":1500,"
                        + "\"waitingFor\":\"receiving from rank 1\"}")
                .contains("{\"rank\":1,\"host\":\"h1\",\"pid\":12,\"state\":\"LOST\"}")
                .contains("\"diagnosis\":[\"operation seq 7 is in flight");
    }
}
