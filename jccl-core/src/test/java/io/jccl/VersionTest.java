package io.jccl;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** The version JCCL reports is the one the build gave, not a literal in the code. */
class VersionTest {
    @Test
    void theVersionComesFromTheBuild() throws Exception {
        String pom = Files.readString(Path.of("pom.xml"));
        Matcher m = Pattern.compile("<parent>.*?<version>([^<]+)</version>", Pattern.DOTALL).matcher(pom);
        assertThat(m.find()).as("jccl-core's pom names its parent's version").isTrue();
        assertThat(Jccl.version()).isEqualTo(m.group(1).replace("-SNAPSHOT", "")).doesNotContain("$");
    }
}
