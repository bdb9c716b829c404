package io.jccl.cuda.internal;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.Architectures;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * jccl-cuda's internal packages are layered bottom to top: the FFM binding helpers and the driver bindings, the
 * kernel modules, the GPU enqueue (plans, launches, groups), the GPU communicator's wiring; no import runs upward
 * and no internal packages form a cycle. The public package {@code io.jccl.cuda} is the contract every layer may
 * use. (jccl-core's layers, below all of these, are checked by jccl-core's own test.)
 */
class CudaLayersTest {
    private static JavaClasses main;

    @BeforeAll
    static void importMain() {
        main = new ClassFileImporter().importPath(Path.of("target", "classes"));
        assertThat(main.containPackage("io.jccl.cuda.internal.comm")).as("main classes imported").isTrue();
    }

    static ArchRule rules() {
        return Architectures.layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("driver").definedBy("io.jccl.cuda.internal.ffm", "io.jccl.cuda.internal.driver")
                .layer("kernels").definedBy("io.jccl.cuda.internal.kernels")
                .layer("enqueue").definedBy("io.jccl.cuda.internal.enqueue")
                .layer("comm").definedBy("io.jccl.cuda.internal.comm")
                .whereLayer("driver").mayOnlyBeAccessedByLayers("kernels", "enqueue", "comm")
                .whereLayer("kernels").mayOnlyBeAccessedByLayers("enqueue", "comm")
                .whereLayer("enqueue").mayOnlyBeAccessedByLayers("comm")
                .whereLayer("comm").mayNotBeAccessedByAnyLayer();
    }

    @Test
    void noImportRunsUpward() {
        rules().check(main);
    }

    @Test
    void noInternalPackageCycles() {
        slices().matching("io.jccl.cuda.internal.(**)").should().beFreeOfCycles().check(main);
    }

    @Test
    void everyInternalPackageHasALayer() {
        assertThat(main.stream().map(c -> c.getPackageName()).filter(p -> p.startsWith("io.jccl.cuda.internal."))
                .distinct())
                .allMatch(p -> p.matches("io\\.jccl\\.cuda\\.internal\\.(ffm|driver|kernels|enqueue|comm)"));
    }

    /** The rule can fail: a driver class that reaches the communicator's wiring is an upward import. */
    @Test
    void anUpwardImportIsFound() {
        JavaClasses withFixture = new ClassFileImporter().importPaths(Path.of("target", "classes"),
                Path.of("target", "test-classes", "io", "jccl", "cuda", "internal", "driver", "UpwardFixture.class"));
        assertThat(rules().evaluate(withFixture).hasViolation()).isTrue();
    }
}
