package io.jccl.internal.profile;

import io.jccl.Communicator;
import io.jccl.Collective;
import io.jccl.internal.tuning.HostSelector;

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

    /** A probe of rank 0 of 2 on 2 channels, without a communicator. */
    static CommProbe standalone() {
        return new CommProbe("feedc0de", "test", 0, 2, 1, 2, () -> null);
    }

    /** What a communicator without shared memory or a tuner selects (every allReduce is a ring). */
    static final HostSelector SELECTOR = new HostSelector(null, 2, 2, 0, 0, false, 64 << 10, 64 << 10);

    /** {@link #SELECTOR}'s decision for {@code count} elements of 4 bytes. */
    static long choice(Collective c, long count) {
        return SELECTOR.choose(c, count, count * 4, false);
    }
}
