package io.jccl.cuda.internal.enqueue;

import io.jccl.internal.profile.CallEvent;
import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A JFR event per GPU kernel launch of a GPU communicator: the call ({@link CallEvent}'s fields), the kernel the
 * planner chose (algorithm, grid, ring chunk), and, as its duration, the host's time from planning to the launch on
 * the stream (the kernel itself runs later, stream-ordered; its GPU time is not measured). JDK Mission Control shows
 * them under JCCL beside the host communicators' {@code io.jccl.Collective}. Created only while a recording runs.
 *
 * <p>Thread: the communicator's issuing thread (or the thread ending a GPU group). Mirrors the kernel-launch events of
 * NCCL's profiler plugin interface.
 */
@Name("io.jccl.GpuLaunch")
@Label("JCCL GPU Launch")
@Category("JCCL")
@Description("One GPU collective or point-to-point kernel launch on one rank, from planning to the launch on the "
        + "stream")
@StackTrace(false)
final class GpuLaunchEvent extends CallEvent {
    @Label("Algorithm")
    @Description("The kernel: ll, llpacked, ll128, push, oneshot, twoshot, ring, p2p; copy on one rank (none)")
    public String algorithm;

    @Label("Blocks")
    public int blocks;

    @Label("Ring Chunk")
    @DataAmount(DataAmount.BYTES)
    public long chunkBytes;
}
