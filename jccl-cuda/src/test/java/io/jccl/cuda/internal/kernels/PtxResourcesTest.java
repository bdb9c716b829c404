package io.jccl.cuda.internal.kernels;

import io.jccl.DataType;
import io.jccl.RedOp;
import io.jccl.cuda.AllReduceAlgorithm;
import io.jccl.cuda.internal.clique.AllReduceArgs;
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
    void everyAlgorithmModuleDeclaresTheKernelsJavaLaunches() {
        for (AllReduceAlgorithm a : AllReduceAlgorithm.values()) {
            if (a == AllReduceAlgorithm.AUTO) {
                continue;
            }
            String ptx = KernelModules.ptx(a.module());
            assertThat(ptx).contains(".target sm_90").contains(".address_size 64");
            Map<String, Integer> entries = entries(ptx);
            assertThat(entries).as(a.module()).hasSize(12);
            for (DataType t : new DataType[] {DataType.FLOAT32, DataType.FLOAT16, DataType.BFLOAT16}) {
                for (RedOp op : new RedOp[] {RedOp.SUM, RedOp.PROD, RedOp.MIN, RedOp.MAX}) {
                    String name = KernelModules.allReduceKernel(a.shortName(), t, op);
                    assertThat(entries).as(name).containsKey(name);
                    assertThat(entries.get(name)).as("param bytes of " + name)
                            .isEqualTo((int) AllReduceArgs.LAYOUT.byteSize());
                }
            }
        }
    }

    @Test
    void kernelsNeverUseNvlinkMulticast() {
        for (AllReduceAlgorithm a : AllReduceAlgorithm.values()) {
            if (a != AllReduceAlgorithm.AUTO) {
                assertThat(KernelModules.ptx(a.module())).doesNotContain("multimem").doesNotContain("cuMulticast");
            }
        }
    }

    @Test
    void entryParserFindsAKernel() {
        String ptx = ".visible .entry foo(\n\t.param .align 8 .b8 foo_param_0[352]\n)\n{ ret; }";
        assertThat(entries(ptx)).containsEntry("foo", 352);
    }
}
