package io.jccl.internal.profile;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A JFR event per collective or point-to-point call, from the call until this rank's part completed; JDK Mission
 * Control shows them under JCCL. Created only while a recording runs ({@link JfrGate}).
 *
 * <p>Owned by: the calling thread until committed (async calls commit on the completing worker thread).
 */
@Name("io.jccl.Collective")
@Label("JCCL Collective")
@Category("JCCL")
@Description("One collective or point-to-point call on one rank, from the call to its completion")
@StackTrace(false)
public final class CollectiveEvent extends jdk.jfr.Event {
    @Label("Communicator")
    public String commId;

    @Label("Rank")
    public int rank;

    @Label("Ranks")
    public int nRanks;

    @Label("Sequence")
    @Description("The call's sequence number on this communicator")
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

    @Label("Algorithm")
    public String algorithm;

    @Label("Protocol")
    public String protocol;

    @Label("Channels")
    public int nChannels;

    @Label("Root")
    public int root;

    @Label("Peer")
    public int peer;

    @Label("Grouped")
    @Description("Recorded inside a group; the duration runs to the group's completion")
    public boolean grouped;

    @Label("Asynchronous")
    public boolean async;

    @Label("Error")
    public String error;
}
