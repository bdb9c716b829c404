package io.jccl.internal.profile;

import jdk.jfr.FlightRecorder;
import jdk.jfr.FlightRecorderListener;
import jdk.jfr.Recording;
import jdk.jfr.RecordingState;

/**
 * Whether any flight recording is running, kept up to date by a {@link FlightRecorderListener}, so the per-call path
 * tests one volatile boolean and creates no event object while nothing records (a JFR event allocated only to ask
 * {@code isEnabled()} is not reliably optimised away). Registering the listener does not start JFR.
 *
 * <p>Owned by: any thread; updated by JFR's notification thread. Mirrors: nothing in NCCL (its profiler plugin is
 * asked per event).
 */
public final class JfrGate {
    private static volatile boolean on;
    private static final boolean AVAILABLE = install();

    private JfrGate() {
    }

    /** True while some recording runs (JCCL's events may then be enabled; each event still checks its settings). */
    public static boolean on() {
        return on;
    }

    /** True when the JVM supports JFR and the listener is installed. */
    public static boolean available() {
        return AVAILABLE;
    }

    private static boolean install() {
        try {
            FlightRecorder.addListener(new FlightRecorderListener() {
                @Override
                public void recorderInitialized(FlightRecorder recorder) {
                    update();
                }

                @Override
                public void recordingStateChanged(Recording recording) {
                    update();
                }
            });
            if (FlightRecorder.isInitialized()) {
                update();
            }
            return true;
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    private static void update() {
        boolean running = false;
        for (Recording r : FlightRecorder.getFlightRecorder().getRecordings()) {
            running |= r.getState() == RecordingState.RUNNING;
        }
        on = running;
    }
}
