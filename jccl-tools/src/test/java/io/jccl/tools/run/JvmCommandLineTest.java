package io.jccl.tools.run;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class JvmCommandLineTest {

    @Test
    void commandIsJavaFlagsClasspathMainArgs() {
        JvmCommandLine j = new JvmCommandLine("/jdk/bin/java", List.of("--add-modules=jdk.incubator.vector"), "a.jar");
        assertThat(j.command("x.Main", List.of("-b", "8"))).containsExactly("/jdk/bin/java",
                "--add-modules=jdk.incubator.vector", "-cp", "a.jar", "x.Main", "-b", "8");
        assertThat(j.withExtraClasspath(List.of("b.jar", "c")).classpath())
                .isEqualTo("a.jar" + File.pathSeparator + "b.jar" + File.pathSeparator + "c");
        assertThat(j.withExtraClasspath(List.of())).isSameAs(j);
    }

    @Test
    void debuggerAgentsAreNotCopied() {
        assertThat(JvmCommandLine.shareable("-agentlib:jdwp=transport=dt_socket,address=5005")).isFalse();
        assertThat(JvmCommandLine.shareable("-Xrunjdwp:x")).isFalse();
        assertThat(JvmCommandLine.shareable("--enable-native-access=ALL-UNNAMED")).isTrue();
        assertThat(JvmCommandLine.shareable("-Xmx2g")).isTrue();
    }

    @Test
    void currentCopiesThisJvm() {
        JvmCommandLine j = JvmCommandLine.current();
        assertThat(j.javaBinary()).endsWith("java");
        assertThat(j.classpath()).contains("test-classes");
        assertThat(String.join(" ", j.jvmFlags())).contains("jdk.incubator.vector");
    }

    @Test
    void jcclSettingsSetInThisJvmReachTheChildren() {
        System.setProperty("jccl.test.forwarded", "yes");
        System.setProperty("JCCL_TEST_FORWARDED", "3");
        try {
            assertThat(JvmCommandLine.current().jvmFlags()).contains("-Djccl.test.forwarded=yes",
                    "-DJCCL_TEST_FORWARDED=3").noneMatch(f -> f.startsWith("-Duser.home"));
        } finally {
            System.clearProperty("jccl.test.forwarded");
            System.clearProperty("JCCL_TEST_FORWARDED");
        }
    }
}
