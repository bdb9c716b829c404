package io.jccl.tools.perf.gpu;

import io.jccl.JcclException;
import io.jccl.tools.perf.Registration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * perf's NCCL registration binding ({@code -R 1/2}) against a fake libnccl that records its calls: every
 * registration is paired with its deregistration before the memory is freed, windows are registered with
 * NCCL_WIN_COLL_SYMMETRIC, a failed registration frees the memory, and a library without the symbols still loads
 * (for {@code -R 0}) while {@code -R 1/2} fail naming the missing symbol and the NCCL version that has it.
 * Skipped when no C compiler is installed.
 */
class NcclRegistrationTest {
    private static final MemorySegment COMM = MemorySegment.ofAddress(0x1234);
    private static FakeNccl full;
    private static FakeNccl noWindows;
    private static FakeNccl noRegister;

    @BeforeAll
    static void build() throws Exception {
        var cc = FakeNccl.compiler();
        assumeTrue(cc.isPresent(), "no C compiler (cc, gcc or clang) to build the fake libnccl");
        full = FakeNccl.build(cc.get(), "libfakenccl-2.28");
        noWindows = FakeNccl.build(cc.get(), "libfakenccl-2.26", "-DFAKE_VERSION=22600", "-DFAKE_NO_WINDOWS");
        noRegister = FakeNccl.build(cc.get(), "libfakenccl-2.18", "-DFAKE_VERSION=21800", "-DFAKE_NO_REGISTER");
    }

    @Test
    void windowsAreRegisteredSymmetricAndDeregisteredBeforeTheMemoryIsFreed() {
        full.reset(false);
        NcclRegistration reg = full.nccl().registration();
        List<NcclRegisteredMemory> mems = new ArrayList<>();
        mems.add(NcclRegisteredMemory.open(reg, COMM, 4096, Registration.WINDOWS));
        mems.add(NcclRegisteredMemory.open(reg, COMM, 4096, Registration.WINDOWS));
        mems.forEach(NcclRegisteredMemory::close);
        mems.forEach(NcclRegisteredMemory::close);   // a second close does nothing
        List<String> calls = full.calls();
        assertThat(calls).hasSize(8);
        assertThat(calls).filteredOn(l -> l.startsWith("winregister")).hasSize(2)
                .allMatch(l -> l.endsWith(" 4096 " + l.split(" ")[4] + " 1"), "NCCL_WIN_COLL_SYMMETRIC")
                .allMatch(l -> l.split(" ")[1].equals("0x1234"));
        assertPaired(calls, "winregister", "windereg");
    }

    @Test
    void userBuffersAreRegisteredWithCommRegisterAndPaired() {
        full.reset(false);
        NcclRegistration reg = full.nccl().registration();
        NcclRegisteredMemory send = NcclRegisteredMemory.open(reg, COMM, 1 << 20, Registration.BUFFERS);
        NcclRegisteredMemory recv = NcclRegisteredMemory.open(reg, COMM, 1 << 20, Registration.BUFFERS);
        assertThat(send.address()).isNotZero().isNotEqualTo(recv.address());
        recv.close();
        send.close();
        List<String> calls = full.calls();
        assertThat(calls).noneMatch(l -> l.startsWith("win"));
        assertThat(calls).filteredOn(l -> l.startsWith("register")).hasSize(2);
        assertPaired(calls, "register", "deregister");
    }

    @Test
    void aFailedRegistrationFreesTheMemory() {
        full.reset(true);
        try {
            NcclRegistration reg = full.nccl().registration();
            assertThatThrownBy(() -> NcclRegisteredMemory.open(reg, COMM, 256, Registration.WINDOWS))
                    .isInstanceOf(JcclException.class).hasMessageContaining("ncclCommWindowRegister failed")
                    .hasMessageContaining("invalid usage (fake)");
            List<String> calls = full.calls();
            assertThat(calls).hasSize(2);
            assertThat(calls.get(0)).startsWith("alloc ");
            assertThat(calls.get(1)).isEqualTo("free " + calls.get(0).split(" ")[1]);
        } finally {
            full.reset(false);
        }
    }

    @Test
    void anOlderNcclRunsWithoutRegistrationAndNamesWhatIsMissing() {
        assertThat(noWindows.nccl().versionString()).isEqualTo("2.26.0");
        NcclRegistration reg = noWindows.nccl().registration();
        reg.require(Registration.NONE);
        reg.require(Registration.BUFFERS);
        assertThatThrownBy(() -> reg.require(Registration.WINDOWS)).isInstanceOf(JcclException.class)
                .hasMessageContaining("ncclCommWindowRegister").hasMessageContaining("NCCL 2.27 or newer")
                .hasMessageContaining("NCCL 2.26.0").hasMessageContaining("-R 2");
        noWindows.reset(false);
        assertThatThrownBy(() -> NcclRegisteredMemory.open(reg, COMM, 64, Registration.WINDOWS))
                .hasMessageContaining("ncclCommWindowRegister");
        assertThat(noWindows.calls()).as("nothing allocated when the library cannot register").isEmpty();

        NcclRegistration old = noRegister.nccl().registration();
        old.require(Registration.NONE);
        assertThatThrownBy(() -> old.require(Registration.BUFFERS)).hasMessageContaining("ncclMemAlloc")
                .hasMessageContaining("NCCL 2.19 or newer").hasMessageContaining("-R 1");
        assertThatThrownBy(() -> old.commRegister(COMM, 0x1000, 64)).hasMessageContaining("ncclCommRegister")
                .hasMessageContaining("2.19");
    }

    /** Each handle registered once, deregistered once, and its buffer freed only after the deregistration. */
    private static void assertPaired(List<String> calls, String register, String deregister) {
        Map<String, Integer> registeredAt = new HashMap<>();
        Map<String, String> bufferOf = new HashMap<>();
        Map<String, Integer> freedAt = new HashMap<>();
        for (int i = 0; i < calls.size(); i++) {
            String[] f = calls.get(i).split(" ");
            if (f[0].equals(register)) {
                assertThat(registeredAt.put(f[4], i)).as("handle %s registered twice", f[4]).isNull();
                bufferOf.put(f[4], f[2]);
            } else if (f[0].equals("free")) {
                assertThat(freedAt.put(f[1], i)).as("%s freed twice", f[1]).isNull();
            }
        }
        assertThat(registeredAt).isNotEmpty();
        for (int i = 0; i < calls.size(); i++) {
            String[] f = calls.get(i).split(" ");
            if (f[0].equals(deregister)) {
                String h = f[2];
                assertThat(registeredAt.remove(h)).as("deregistered %s which is not registered", h).isNotNull();
                assertThat(freedAt.get(bufferOf.get(h))).as("buffer of %s freed after its deregistration", h)
                        .isGreaterThan(i);
            }
        }
        assertThat(registeredAt).as("registrations never deregistered").isEmpty();
        assertThat(freedAt.keySet()).containsExactlyInAnyOrderElementsOf(bufferOf.values());
    }
}
