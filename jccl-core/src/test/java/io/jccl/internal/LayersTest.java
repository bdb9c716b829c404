package io.jccl.internal;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.Architectures;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The internal packages of jccl-core are layered along the journey of a call, bottom to top; no class imports a
 * layer above its own, and no two internal packages depend on each other in a cycle. The public packages
 * ({@code io.jccl}, {@code io.jccl.net}) are the contract every layer may use, as every NCCL file includes nccl.h;
 * the plugin SPI depends on nothing internal.
 */
class LayersTest {
    /** Bottom to top. Each entry is a layer name and the packages (relative to io.jccl.internal) it holds. */
    static final List<String[]> LAYERS = List.of(
            new String[] {"base", "base", "param", "debug"},
            new String[] {"reduce", "reduce"},
            new String[] {"proxy", "proxy"},
            new String[] {"transport", "transport.."},
            new String[] {"bootstrap", "bootstrap"},
            new String[] {"ras", "ras"},
            new String[] {"topology", "topology.."},
            new String[] {"tuning", "tuning"},
            new String[] {"primitives", "primitives"},
            new String[] {"algorithm", "algorithm"},
            new String[] {"executor", "executor"},
            new String[] {"enqueue", "enqueue"},
            new String[] {"profile", "profile"},
            new String[] {"launch", "launch"},
            new String[] {"comm", "comm"});

    private static JavaClasses main;

    @BeforeAll
    static void importMain() {
        main = new ClassFileImporter().importPath(Path.of("target", "classes"));
        assertThat(main.containPackage("io.jccl.internal.comm")).as("main classes imported").isTrue();
    }

    static ArchRule layers(String prefix, List<String[]> layers) {
        Architectures.LayeredArchitecture arch = Architectures.layeredArchitecture()
                .consideringOnlyDependenciesInLayers();
        for (String[] l : layers) {
            String[] pkgs = Arrays.stream(l, 1, l.length).map(p -> prefix + p).toArray(String[]::new);
            arch = arch.layer(l[0]).definedBy(pkgs);
        }
        for (int i = 0; i < layers.size() - 1; i++) {
            String[] above = layers.subList(i + 1, layers.size()).stream().map(l -> l[0]).toArray(String[]::new);
            arch = arch.whereLayer(layers.get(i)[0]).mayOnlyBeAccessedByLayers(above);
        }
        return arch.whereLayer(layers.getLast()[0]).mayNotBeAccessedByAnyLayer();
    }

    static ArchRule noCycles(String internalRoot) {
        return slices().matching(internalRoot + ".(**)").should().beFreeOfCycles();
    }

    @Test
    void noImportRunsUpward() {
        layers("io.jccl.internal.", LAYERS).check(main);
    }

    @Test
    void noInternalPackageCycles() {
        noCycles("io.jccl.internal").check(main);
    }

    @Test
    void everyInternalPackageHasALayer() {
        List<String> unplaced = main.stream().map(c -> c.getPackageName())
                .filter(p -> p.startsWith("io.jccl.internal."))
                .distinct()
                .filter(p -> LAYERS.stream().noneMatch(l -> Arrays.stream(l, 1, l.length)
                        .anyMatch(q -> q.endsWith("..") ? p.startsWith("io.jccl.internal." + q.replace("..", ""))
                                : p.equals("io.jccl.internal." + q))))
                .toList();
        assertThat(unplaced).as("packages outside every layer").isEmpty();
    }

    @Test
    void thePluginSpiDependsOnNothingInternal() {
        noClasses().that().resideInAPackage("io.jccl.net").should().dependOnClassesThat()
                .resideInAPackage("io.jccl.internal..").check(main);
    }

    /** The rules can fail: a base class that reaches the comm facade is an upward import. */
    @Test
    void anUpwardImportIsFound() {
        JavaClasses withFixture = new ClassFileImporter().importPaths(Path.of("target", "classes"),
                Path.of("target", "test-classes", "io", "jccl", "internal", "base", "UpwardFixture.class"));
        assertThat(layers("io.jccl.internal.", LAYERS).evaluate(withFixture).hasViolation()).isTrue();
        assertThat(noCycles("io.jccl.internal").evaluate(withFixture).hasViolation()).isTrue();
    }
}
