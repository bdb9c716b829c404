package io.jccl.tools.params;

import io.jccl.Jccl;
import io.jccl.internal.param.ParamCheck;
import io.jccl.internal.param.ParamSources;
import io.jccl.internal.param.ParamTable;
import io.jccl.tools.Cli;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code jccl params}: every parameter JCCL reads with its effective value in this environment, where that value
 * came from (system property, environment, config file, default), the default and what it does; then the
 * parameter check's findings (unknown NCCL_* / JCCL_* names with suggestions, unusable values, NCCL settings JCCL
 * ignores). Runs on the main thread; the table comes from the core's registry.
 */
@Command(name = "jccl params", mixinStandardHelpOptions = true, sortOptions = false,
        versionProvider = io.jccl.tools.JcclVersion.class,
        description = {"Lists JCCL's parameters (NCCL_* and JCCL_* variables) with their effective values, sources, "
                + "defaults and meaning, then warns about unknown names and unusable values."})
public final class ParamsMain implements Callable<Integer> {
    @Parameters(paramLabel = "FILTER", description = "show only parameters whose name contains one of these (any case)")
    List<String> filters = new ArrayList<>();

    @Option(names = "--set", description = "only parameters that are set")
    boolean onlySet;

    @Option(names = "--all", description = "also JCCL's internal -Djccl.* tuning properties")
    boolean all;

    @Option(names = "--markdown", description = "Markdown tables of every parameter (what docs/params.md holds)")
    boolean markdown;

    @Option(names = "--check", description = "exit 1 when an unknown name, an unusable value or a config-file problem "
            + "is found")
    boolean check;

    private ParamSources sources = ParamSources.system();
    private PrintStream out = System.out;

    public static void main(String[] args) {
        System.exit(Cli.commandLine(new ParamsMain()).execute(args));
    }

    @Override
    public Integer call() {
        List<ParamTable.Row> rows = new ArrayList<>();
        for (ParamTable.Row r : ParamTable.rows(sources, all || markdown)) {
            if ((!onlySet || r.set()) && matches(r.name())) {
                rows.add(r);
            }
        }
        if (markdown) {
            ParamTable.markdown(rows).forEach(out::println);
            return 0;
        }
        ParamTable.text(rows).forEach(out::println);
        List<ParamCheck.Finding> findings = ParamCheck.inspect(sources);
        boolean bad = false;
        if (!findings.isEmpty()) {
            out.println();
        }
        for (ParamCheck.Finding f : findings) {
            boolean problem = f.kind() != ParamCheck.Kind.NO_EFFECT;
            bad |= problem;
            out.println((problem ? "warning: " : "note: ") + f.message());
        }
        return check && bad ? 1 : 0;
    }

    private boolean matches(String name) {
        if (filters.isEmpty()) {
            return true;
        }
        String n = name.toUpperCase(Locale.ROOT);
        return filters.stream().anyMatch(f -> n.contains(f.toUpperCase(Locale.ROOT)));
    }

    /** For tests: other sources and output. */
    ParamsMain with(ParamSources s, PrintStream stream) {
        this.sources = s;
        this.out = stream;
        return this;
    }
}
