package io.jccl.cuda.internal.driver;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.cuda.internal.ffm.NativeLibrary;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;

import static io.jccl.cuda.internal.driver.DriverCall.Arg.INT;
import static io.jccl.cuda.internal.driver.DriverCall.Arg.LONG;
import static io.jccl.cuda.internal.driver.DriverCall.Arg.PTR;
import static io.jccl.cuda.internal.driver.DriverCall.Arg.fixed;
import static io.jccl.cuda.internal.driver.DriverCall.Arg.label;
import static io.jccl.cuda.internal.driver.DriverCall.Arg.out;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * DriverCall against C library functions that return an int the way driver functions return a CUresult: arguments
 * reach the function in C order, out parameters come back, fixed ones are passed, failures name the call with its
 * arguments, accepted and unchecked statuses are returned, and a call without an out parameter allocates nothing.
 */
class DriverCallTest {
    private static final NativeLibrary LIBC = NativeLibrary.open("libc.so.6", "no C library");

    @Test
    void aNonZeroStatusThrowsNamingTheCallAndItsArguments() {
        DriverCall abs = DriverCall.of(LIBC, "abs", INT);
        assertThat(abs.call(0)).isZero();
        assertThatThrownBy(() -> abs.call(-7)).isInstanceOf(JcclException.class)
                .hasMessageStartingWith("abs(-7) failed: ")
                .matches(e -> ((JcclException) e).result() == Result.UNHANDLED_CUDA_ERROR);
        assertThat(abs.accepting(7).call(-7)).isEqualTo(7);
        assertThatThrownBy(() -> abs.accepting(7).call(8)).isInstanceOf(JcclException.class);
        assertThat(abs.unchecked().call(-9)).isEqualTo(9);
    }

    @Test
    void valuesKeepTheirWidthAndOrder() {
        assertThat(DriverCall.of(LIBC, "ffsl", LONG).unchecked().call(1L << 40)).isEqualTo(41);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(64);
            DriverCall gethostname = DriverCall.of(LIBC, "gethostname", label("&name"), LONG);
            assertThat(gethostname.call(buf, 64)).isZero();
            assertThat(buf.getString(0)).isNotEmpty();
        }
    }

    @Test
    void fixedArgumentsArePassedAndShown() {
        DriverCall memcmp = DriverCall.of(LIBC, "memcmp", PTR, PTR, fixed(4L));
        try (Arena a = Arena.ofConfined()) {
            MemorySegment x = a.allocateFrom("abcd");
            MemorySegment y = a.allocateFrom("abcx");
            assertThat(memcmp.call(x, a.allocateFrom("abcdef"))).isZero();
            assertThatThrownBy(() -> memcmp.call(x, y)).isInstanceOf(JcclException.class)
                    .hasMessageStartingWith("memcmp(" + CuCheck.hex(x) + ", " + CuCheck.hex(y) + ", 4) failed: ");
        }
    }

    @Test
    void anOutParameterIsReturnedAndShownByItsLabel() throws Throwable {
        DriverCall memalign = DriverCall.of(LIBC, "posix_memalign", out("&p", ADDRESS), LONG, LONG);
        long p = memalign.call(256, 1024);
        assertThat(p).isNotZero();
        assertThat(p % 256).isZero();
        LIBC.bind("free", FunctionDescriptor.ofVoid(JAVA_LONG)).invokeExact(p);
        assertThatThrownBy(() -> memalign.call(3, 16)).isInstanceOf(JcclException.class)
                .hasMessageStartingWith("posix_memalign(&p, 3, 16) failed: ");
    }

    @Test
    void callsMustPassTheArgumentsTheFunctionTakes() {
        DriverCall abs = DriverCall.of(LIBC, "abs", INT);
        assertThatThrownBy(() -> abs.call(MemorySegment.NULL)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("abs takes 0 references and 1 values");
        assertThatThrownBy(() -> DriverCall.of(LIBC, "abs", out("&x", JAVA_LONG)).unchecked())
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aMissingSymbolFailsEachCallWithTheReason() {
        DriverCall missing = DriverCall.of(LIBC, "cuNoSuchFunction_v9", PTR);
        assertThatThrownBy(() -> missing.call(MemorySegment.NULL)).isInstanceOf(JcclException.class)
                .hasMessageContaining("has no symbol cuNoSuchFunction_v9")
                .matches(e -> ((JcclException) e).result() == Result.SYSTEM_ERROR);
    }

    @Test
    void aCallWithoutAnOutParameterAllocatesNothing() throws ReflectiveOperationException {
        DriverCall memcmp = DriverCall.of(LIBC, "memcmp", PTR, PTR, fixed(8L));
        try (Arena a = Arena.ofConfined()) {
            MemorySegment x = a.allocate(8);
            MemorySegment y = a.allocate(8);
            long least = Long.MAX_VALUE;
            for (int round = 0; round < 8; round++) {
                long before = allocatedBytes();
                for (int i = 0; i < 20_000; i++) {
                    memcmp.call(x, y);
                }
                least = Math.min(least, allocatedBytes() - before);
            }
            // reading the counter costs about a kilobyte; one allocation per call would be 320,000 bytes or more
            assertThat(least).as("bytes allocated over 20,000 calls").isLessThan(16 * 1024);
        }
    }

    /** This thread's allocated bytes (com.sun.management, reflectively: the module reads no jdk.management). */
    private static long allocatedBytes() throws ReflectiveOperationException {
        return (long) Class.forName("com.sun.management.ThreadMXBean").getMethod("getCurrentThreadAllocatedBytes")
                .invoke(ManagementFactory.getThreadMXBean());
    }
}
