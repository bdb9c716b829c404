package io.jccl.tools.run.netns;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What JCCL_TLS=on hides, seen on the wire: two namespace hosts, one rank each, broadcast and allGather a fresh
 * marker text (the bootstrap and the socket net transport both cross the link), while a packet socket in the root
 * namespace captures every frame on host 1's bridge port. In plaintext the marker is there in many frames; under
 * TLS the same job moves at least as many bytes and not one frame holds it. Needs root (skipped otherwise).
 */
class TlsOnTheWireTest {
    private static final Duration JOB_TIMEOUT = Duration.ofSeconds(90);
    /** A 1 MiB broadcast and a 2 x 1 MiB allGather cross the link 8 times: the capture must see at least that. */
    private static final long MIN_BYTES = 24L << 20;

    @TempDir
    Path dir;

    @Test
    void theMarkerCrossesThePlainLinkAndNeverTheTlsOne() throws Throwable {
        try (NetnsHosts hosts = NetnsHosts.create(2, null)) {
            Captured plain = run(hosts, "off");
            assertThat(plain.bytes).isGreaterThanOrEqualTo(MIN_BYTES);

            Captured tls = run(hosts, "on");
            assertThat(tls.bytes).as("the job under TLS crossed the captured link").isGreaterThanOrEqualTo(MIN_BYTES);
            assertThat(tls.matches).as("frames holding the marker under JCCL_TLS=on").isZero();
            assertThat(tls.log).contains("TLSv1.3 (fresh key, bound to the communicator's secret)");
            System.out.printf("plaintext: %d of %d frames (%d bytes) hold the marker; TLS: 0 of %d frames (%d bytes)%n",
                    plain.matches, plain.frames, plain.bytes, tls.frames, tls.bytes);
        }
    }

    /** Frames that held the marker, all frames and bytes captured on host 1's bridge port, and the job's log. */
    private record Captured(long matches, long frames, long bytes, String log) {
    }

    private Captured run(NetnsHosts hosts, String tls) throws Throwable {
        String marker = "JCCL-WIRE-MARKER-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
        HostJobs.Outcome o;
        long matches;
        long frames;
        long bytes;
        try (PacketCapture cap = PacketCapture.start(hosts.bridgeLink(1), marker)) {
            o = HostJobs.run(hosts, dir, 1, JOB_TIMEOUT, Map.of("JCCL_TLS", tls, "NCCL_DEBUG", "INFO",
                    "NCCL_DEBUG_SUBSYS", "INIT,NET"), "marker", marker);
            Thread.sleep(300);      // the last frames of the job reach the capture
            matches = cap.matches();
            frames = cap.frames();
            bytes = cap.bytes();
        }
        assertThat(o.result().exitCode()).as("JCCL_TLS=" + tls + ": " + o.all()).isZero();
        assertThat(o.out()).as(o.all()).contains("[0] MARKER OK").contains("[1] MARKER OK");
        if (tls.equals("off")) {
            assertThat(matches).as("frames holding the marker in plaintext (of %d)", frames).isGreaterThan(0);
        }
        return new Captured(matches, frames, bytes, o.err());
    }
}
