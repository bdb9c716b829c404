package io.jccl.internal.profile;

import io.jccl.Communicator;
import io.jccl.internal.enqueue.Planner;

import java.lang.foreign.Arena;
import java.lang.reflect.Field;

/** Test helpers: a communicator's probe, and probes without a communicator. */
final class Probes {
    private Probes() {
    }

    /** The probe of a host communicator (read reflectively; the API does not expose it). */
    static CommProbe of(Communicator comm) {
        try {
            Field f = comm.getClass().getDeclaredField("probe");
            f.setAccessible(true);
            return (CommProbe) f.get(comm);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    /** A probe over a planner without shared memory (every allReduce is a ring), rank 0 of 2, 2 channels. */
    static CommProbe standalone() {
        Arena arena = Arena.ofAuto();
        Planner planner = new Planner(0, 2, 2, 64 << 10, 64 << 10, arena.allocate(8, 8), null, null,
                new io.jccl.internal.algorithm.Scratch(arena), null);
        return new CommProbe("feedc0de", "test", 0, 2, 1, 2, new AlgoResolver(planner, null, 2), () -> null);
    }
}
