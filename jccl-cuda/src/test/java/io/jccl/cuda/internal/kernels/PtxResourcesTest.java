package io.jccl.cuda.internal.kernels;

import io.jccl.DataType;
import io.jccl.cuda.internal.enqueue.KernelArgs;
import io.jccl.cuda.internal.enqueue.KernelFamily;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** The committed PTX modules are present, target sm_90, export every kernel Java launches with the argument size Java writes. */
class PtxResourcesTest {
    private static final Pattern ENTRY = Pattern.compile(
            "\\.visible\\s+\\.entry\\s+(\\w+)\\(\\s*\\.param\\s+\\.align\\s+(\\d+)\\s+\\.b8\\s+\\w+\\[(\\d+)\\]\\s*\\)");

    static Map<String, Integer> entries(String ptx) {
        Map<String, Integer> out = new LinkedHashMap<>();
        Matcher m = ENTRY.matcher(ptx);
        while (m.find()) {
            out.put(m.group(1), Integer.parseInt(m.group(3)));
        }
        return out;
    }

    @Test
    void everyModuleDeclaresTheKernelsJavaLaunchesWithTheJavaArgumentSize() {
        int checked = 0;
        for (DataType t : DataType.values()) {
            for (boolean sumOnly : new boolean[] {true, false}) {
                for (KernelFamily f : KernelFamily.values()) {
                    String module = f.module(t, sumOnly);
                    String ptx = KernelModules.ptx(module);
                    assertThat(ptx).contains(".target sm_90").contains(".address_size 64");
                    Map<String, Integer> entries = entries(ptx);
                    String name = f.kernelName(t, sumOnly);
                    assertThat(entries).as(module).containsKey(name);
                    assertThat(entries.get(name)).as("param bytes of " + name)
                            .isEqualTo((int) KernelArgs.LAYOUT.byteSize());
                    checked++;
                }
            }
        }
        assertThat(checked).isEqualTo(DataType.values().length * 2 * KernelFamily.values().length);
        assertThat(KernelArgs.LAYOUT.byteSize()).isEqualTo(1032);   // well under the 4 KiB kernel parameter limit
    }

    @Test
    void kernelsNeverUseNvlinkMulticast() {
        for (DataType t : DataType.values()) {
            assertThat(KernelModules.ptx(KernelFamily.RING.module(t, true))).doesNotContain("multimem");
            assertThat(KernelModules.ptx(KernelFamily.RING.module(t, false))).doesNotContain("multimem");
        }
        assertThat(KernelModules.ptx("copy")).doesNotContain("multimem");
    }

    @Test
    void entryParserFindsAKernel() {
        String ptx = ".visible .entry foo(\n\t.param .align 8 .b8 foo_param_0[352]\n)\n{ ret; }";
        assertThat(entries(ptx)).containsEntry("foo", 352);
    }
}
