package io.jccl.cuda;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@link GpuWindow}s of one rank still open: where a collective's receive range lies (the copy-engine
 * collectives), and what the communicator releases when it closes.
 *
 * <p>Thread: the thread that issues the communicator's calls. Mirrors NCCL's per-communicator window list.
 */
final class OpenWindows {
    private final List<GpuWindow> open = new ArrayList<>();

    GpuWindow add(GpuWindow window) {
        open.add(window);
        return window;
    }

    void remove(GpuWindow window) {
        open.remove(window);
    }

    /** How many windows are open. */
    int count() {
        return open.size();
    }

    /** The window holding {@code bytes} at {@code address} of this rank's memory, or null. */
    GpuWindow holding(long address, long bytes) {
        for (int i = 0; i < open.size(); i++) {   // no iterator: a collective allocates nothing
            if (open.get(i).offsetOf(address, bytes) >= 0) {
                return open.get(i);
            }
        }
        return null;
    }

    /**
     * The lowest window NET channel ({@link io.jccl.cuda.internal.comm.WindowNet#MAX_WINDOWS} of them) no open window
     * holds, or -1 when all are taken. Windows open and close collectively, in the same order on every rank, so
     * every rank finds the same one.
     */
    int freeNetSlot() {
        for (int k = 0; k < io.jccl.cuda.internal.comm.WindowNet.MAX_WINDOWS; k++) {
            boolean taken = false;
            for (GpuWindow w : open) {
                taken |= w.netSlot() == k;
            }
            if (!taken) {
                return k;
            }
        }
        return -1;
    }

    /** Releases every window without asking the other ranks (the communicator is closing). */
    void releaseAll() {
        for (GpuWindow window : List.copyOf(open)) {
            window.release();
        }
    }
}
