package io.jccl.internal.base;

import io.jccl.internal.comm.HostCommunicator;

/** A deliberate upward import (base reaching the comm facade), for the test that shows the layer rules can fail. */
final class UpwardFixture {
    private UpwardFixture() {
    }

    static String name(HostCommunicator c) {
        return c.toString();
    }
}
