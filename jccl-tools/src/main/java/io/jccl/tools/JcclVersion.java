package io.jccl.tools;

import io.jccl.Jccl;
import picocli.CommandLine;

/** What {@code --version} prints for every tool: the version the build gave. Owned by: picocli's parsing thread. */
public final class JcclVersion implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
        return new String[] {"JCCL " + Jccl.version()};
    }
}
