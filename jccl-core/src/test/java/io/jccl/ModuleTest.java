package io.jccl;

import org.junit.jupiter.api.Test;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** The module exports the public packages (the API, the net plugin SPI, the rendezvous SPI) and nothing internal. */
class ModuleTest {
    @Test
    void onlyTheApiPackagesAreExported() throws URISyntaxException {
        Path classes = Path.of(Jccl.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        ModuleDescriptor d = ModuleFinder.of(classes).findAll().iterator().next().descriptor();
        assertThat(d.name()).isEqualTo("io.jccl");
        assertThat(d.exports().stream().filter(e -> !e.isQualified()).map(ModuleDescriptor.Exports::source)
                .collect(Collectors.toSet())).containsExactlyInAnyOrder("io.jccl", "io.jccl.net", "io.jccl.launch");
        assertThat(d.packages()).anyMatch(p -> p.startsWith("io.jccl.internal"));
    }
}
