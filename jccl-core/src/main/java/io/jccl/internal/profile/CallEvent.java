package io.jccl.internal.profile;

import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;

/**
 * The fields every JCCL call event shares beyond {@link CommEvent}'s: the call's number, the collective and its
 * payload. Abstract: JFR records only its subclasses, the host communicators' {@link CollectiveEvent} and the GPU
 * communicators' kernel-launch event, each with these fields and its own.
 *
 * <p>Owned by: the thread that fills the event in. Mirrors the descriptor fields NCCL's profiler plugin events share.
 */
public abstract class CallEvent extends CommEvent {
    @Label("Sequence")
    @Description("This rank's call number on this communicator (on a GPU communicator: its launch number)")
    public long seq;

    @Label("Collective")
    public String collective;

    @Label("Count")
    public long count;

    @Label("Data Type")
    public String dataType;

    @Label("Payload")
    @DataAmount(DataAmount.BYTES)
    public long bytes;

    @Label("Root")
    public int root;
}
