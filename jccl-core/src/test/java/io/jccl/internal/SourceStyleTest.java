package io.jccl.internal;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** The main sources of every module keep to 120 columns (the build's -Xlint:all -Werror covers the rest). */
class SourceStyleTest {
    private static final int MAX_COLUMNS = 120;

    @Test
    void mainSourcesKeepTo120Columns() throws IOException {
        Path root = Path.of("..").toAbsolutePath().normalize();
        List<String> tooLong = new ArrayList<>();
        int files = 0;
        try (Stream<Path> modules = Files.list(root)) {
            for (Path m : modules.filter(p -> Files.isDirectory(p.resolve("src/main/java"))).toList()) {
                try (Stream<Path> sources = Files.walk(m.resolve("src/main/java"))) {
                    for (Path f : sources.filter(p -> p.toString().endsWith(".java")).toList()) {
                        files++;
                        List<String> lines = Files.readAllLines(f);
                        for (int i = 0; i < lines.size(); i++) {
                            if (lines.get(i).length() > MAX_COLUMNS) {
                                tooLong.add(root.relativize(f) + ":" + (i + 1));
                            }
                        }
                    }
                }
            }
        }
        assertThat(files).as("main sources found under %s", root).isGreaterThan(100);
        assertThat(tooLong).as("lines over %d columns", MAX_COLUMNS).isEmpty();
    }
}
