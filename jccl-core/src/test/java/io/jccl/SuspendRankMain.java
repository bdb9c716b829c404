package io.jccl;

import io.jccl.internal.debug.ProcessResources;

/**
 * A process of {@link SuspendTest}'s job: a checked workload, then three rounds of suspend (the shared and peer-mapped
 * bytes must drop to zero and the host bytes to a few control words, calls are refused), resume, and the workload
 * again, after which the statistics and the process's open files must be what they were. Prints its numbers.
 */
public final class SuspendRankMain {
    private SuspendRankMain() {
    }

    public static void main(String[] args) {
        try (Communicator comm = Communicator.fromEnvironment(SuspendTest.CFG)) {
            SuspendTest.workload(comm, 0);
            MemoryStats before = comm.memoryStats();
            int fds = ProcessResources.openFiles();
            System.out.println("memory before: " + before.describe() + "; " + fds + " open files");
            for (int cycle = 1; cycle <= 3; cycle++) {
                comm.suspend();
                MemoryStats during = comm.memoryStats();
                System.out.println("memory suspended: " + during.describe() + "; " + ProcessResources.openFiles()
                        + " open files");
                check(during.suspended() && during.sharedBytes() == 0 && during.peerMappedBytes() == 0
                        && during.hostBytes() <= SuspendTest.PERSISTENT_MAX_BYTES
                        && during.suspendedBytes() == before.totalBytes() - during.totalBytes(), "suspended: " + during);
                if ("1".equals(System.getenv("NCCL_SHM_DISABLE"))) {
                    check(ProcessResources.openFiles() < fds, "no socket closed by suspend");
                }
                SuspendTest.refusedWhileSuspended(comm);
                comm.resume();
                SuspendTest.workload(comm, cycle);
                MemoryStats after = comm.memoryStats();
                check(after.equals(before), "cycle " + cycle + ": " + after + " after, " + before + " before");
                check(ProcessResources.openFiles() == fds, "cycle " + cycle + ": " + ProcessResources.openFiles()
                        + " open files after, " + fds + " before");
            }
            System.out.println("OK rank " + comm.rank() + " of " + comm.size());
        }
        System.exit(0);
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }
}
