package io.jccl.cuda.internal.comm;

import io.jccl.JcclException;
import io.jccl.Result;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Why a GPU communicator was stopped by one of its ranks (a call the {@link CallLedger} refused, or an
 * {@code abort()}), kept in memory every rank can read, so that the other ranks, threads of one process or processes
 * of one host, report the same cause instead of running on with kernels that return at once. The first note wins;
 * it is written before the {@link AbortArea} is raised, so a rank that sees the area raised finds the note.
 *
 * <p>Layout ({@link #BYTES} bytes, zeroed at creation): int state (0 empty, 1 being written, 2 written), int result
 * ordinal, int message length, int pad, then the message in UTF-8 (cut at {@link #MAX_MESSAGE_BYTES}).
 *
 * <p>Thread: any thread of any rank posts and reads (a compare-and-set claims the note; release/acquire on the state
 * publishes it). Mirrors nothing in NCCL, whose ranks each learn of a failure on their own.
 */
final class StopNote {
    /** Size of the note in shared memory. */
    public static final int BYTES = 4096;
    private static final int HEADER = 16;
    static final int MAX_MESSAGE_BYTES = BYTES - HEADER;
    private static final long STATE = 0;
    private static final long RESULT = 4;
    private static final long LENGTH = 8;
    private static final int EMPTY = 0;
    private static final int WRITING = 1;
    private static final int WRITTEN = 2;
    /** How long a reader waits for a note another rank is writing (it takes microseconds). */
    private static final long WRITE_WAIT_NS = 100_000_000L;
    private static final VarHandle INT = JAVA_INT.varHandle();

    private final MemorySegment memory;

    /** The note in {@code memory} ({@link #BYTES} bytes, zeroed by its creator). */
    public StopNote(MemorySegment memory) {
        if (memory.byteSize() < BYTES) {
            throw new IllegalArgumentException("a stop note needs " + BYTES + " bytes, got " + memory.byteSize());
        }
        this.memory = memory.asSlice(0, BYTES);
    }

    /** Records {@code e} as the cause, unless a cause is already recorded; returns whether this call recorded it. */
    public boolean post(JcclException e) {
        if (!INT.compareAndSet(memory, STATE, EMPTY, WRITING)) {
            return false;
        }
        byte[] text = String.valueOf(e.getMessage()).getBytes(StandardCharsets.UTF_8);
        int n = Math.min(text.length, MAX_MESSAGE_BYTES);
        while (n < text.length && n > 0 && (text[n] & 0xC0) == 0x80) {
            n--;   // cut before a whole character
        }
        MemorySegment.copy(text, 0, memory, JAVA_BYTE, HEADER, n);
        INT.set(memory, RESULT, e.result().ordinal());
        INT.set(memory, LENGTH, n);
        INT.setRelease(memory, STATE, WRITTEN);
        return true;
    }

    /** The recorded cause as a new exception (same result and message), or {@code null} when there is none. */
    public JcclException read() {
        int state = (int) INT.getAcquire(memory, STATE);
        if (state == WRITING) {
            long deadline = System.nanoTime() + WRITE_WAIT_NS;
            while (state == WRITING && System.nanoTime() < deadline) {
                Thread.onSpinWait();
                state = (int) INT.getAcquire(memory, STATE);
            }
        }
        if (state != WRITTEN) {
            return null;
        }
        int ordinal = (int) INT.get(memory, RESULT);
        Result[] results = Result.values();
        Result result = ordinal >= 0 && ordinal < results.length ? results[ordinal] : Result.INTERNAL_ERROR;
        int n = Math.clamp((int) INT.get(memory, LENGTH), 0, MAX_MESSAGE_BYTES);
        byte[] text = new byte[n];
        MemorySegment.copy(memory, JAVA_BYTE, HEADER, text, 0, n);
        return new JcclException(result, new String(text, StandardCharsets.UTF_8));
    }
}
