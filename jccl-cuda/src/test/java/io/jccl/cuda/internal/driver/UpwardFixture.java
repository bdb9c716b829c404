package io.jccl.cuda.internal.driver;

import io.jccl.cuda.internal.comm.GpuStops;

/** A deliberate upward import (a driver binding reaching the communicator's wiring), for the layer test. */
final class UpwardFixture {
    private UpwardFixture() {
    }

    static String name(GpuStops s) {
        return s.toString();
    }
}
