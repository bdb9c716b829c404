package io.jccl.internal.profile;

import io.jccl.internal.comm.InitPhase;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A JFR event per phase of communicator creation (bootstrap, peer exchange, transports, connections, shared memory,
 * runtime) and one for the whole creation ({@code phase} = {@code INIT}).
 *
 * <p>Owned by: the initialising thread.
 */
@Name("io.jccl.InitPhase")
@Label("JCCL Init Phase")
@Category("JCCL")
@Description("One phase of creating a communicator on one rank; phase INIT spans the whole creation")
@StackTrace(false)
public final class InitPhaseEvent extends CommEvent {
    @Label("Phase")
    public String phase;
}
