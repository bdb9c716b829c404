package io.jccl.internal;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The main sources of every module keep to 120 columns (the build's -Xlint:all -Werror covers the rest): the
 * hand-written ones, the template expander in src/main/template, and the sources generated from templates. A
 * template's own lines hold {@code $variables$} in place of names and may be longer than the code they become, so
 * it is checked through its output.
 */
class SourceStyleTest {
    private static final int MAX_COLUMNS = 120;
    private static final List<String> SOURCE_DIRS = List.of("src/main/java", "src/main/template",
            "target/generated-sources");

    @Test
    void mainSourcesKeepTo120Columns() throws IOException {
        Path root = Path.of("..").toAbsolutePath().normalize();
        List<String> tooLong = new ArrayList<>();
        int files = 0;
        int generated = 0;
        try (Stream<Path> modules = Files.list(root)) {
            for (Path m : modules.filter(p -> Files.isDirectory(p.resolve("src/main/java"))).toList()) {
                for (String dir : SOURCE_DIRS) {
                    int n = check(root, m.resolve(dir), tooLong);
                    files += n;
                    generated += dir.startsWith("target/") ? n : 0;
                }
            }
        }
        assertThat(files).as("main sources found under %s", root).isGreaterThan(100);
        assertThat(generated).as("sources generated from templates (run generate-sources first)").isPositive();
        assertThat(tooLong).as("lines over %d columns", MAX_COLUMNS).isEmpty();
    }

    /** Adds file:line of each over-long line of the Java sources under {@code dir}; returns how many files it read. */
    private static int check(Path root, Path dir, List<String> tooLong) throws IOException {
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        int files = 0;
        try (Stream<Path> sources = Files.walk(dir)) {
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
        return files;
    }
}
