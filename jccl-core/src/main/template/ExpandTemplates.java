import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Expands the module's source templates: every {@code *.template} file under the template directory becomes one
 * Java source per column of its table, in the same package directory under the output directory, which the build
 * compiles as a source root. jccl-core's pom runs this during {@code generate-sources}, as a single-file program:
 * {@code java src/main/template/ExpandTemplates.java src/main/template target/generated-sources/templates}.
 *
 * <p>Template syntax. A line starting with {@code #} is a directive and never reaches the output:
 * <pre>
 *   ## text              a comment of the template
 *   #file NAME           the generated files' name; it uses a variable, so that each file gets its own
 *   #NAME V1 V2 ... Vn   a row of the table: variable NAME's value in each of the n generated files. A value with
 *                        spaces, or an empty one, is written in double quotes; - leaves NAME undefined in that file
 *   #if[NAME] ... #else[NAME] ... #end[NAME]
 *                        keeps the lines between #if and #else (or #end) in the files where NAME is true, those
 *                        between #else and #end in the files where it is false; #if[!NAME] is the reverse; these
 *                        nest, and the #else and #end name the condition their #if named
 * </pre>
 * Elsewhere {@code $NAME$} is replaced by the file's value of NAME; using a name the table does not define for that
 * file is an error. Each output starts with two comment lines naming its template. A file is rewritten only when
 * its text changes, so the compiler's stale-source check sees no change on a rebuild; generated files under the
 * output directory that the templates no longer produce are deleted.
 */
public final class ExpandTemplates {
    private static final String HEADER =
            "// Generated from %s\n// by %s/ExpandTemplates.java: edit the template, not this file.\n";
    private static final Pattern VARIABLE = Pattern.compile("\\$(\\w+)\\$");
    private static final Pattern CONDITION = Pattern.compile("#(if|else|end)\\[(!?)(\\w+)]");
    private static final Pattern VALUE = Pattern.compile("\"([^\"]*)\"|(\\S+)");

    private ExpandTemplates() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: java ExpandTemplates.java <template dir> <output dir>");
        }
        Path templates = Path.of(args[0]);
        Path out = Path.of(args[1]);
        Set<Path> written = new HashSet<>();
        try (Stream<Path> files = Files.walk(templates)) {
            for (Path t : files.filter(p -> p.toString().endsWith(".template")).sorted().toList()) {
                Path dir = out.resolve(templates.relativize(t.getParent()).toString());
                for (Map.Entry<String, String> file : expand(templates, t).entrySet()) {
                    written.add(writeIfChanged(dir.resolve(file.getKey()), file.getValue()));
                }
            }
        }
        deleteStale(out, written);
    }

    /** The files a template produces: name to text. */
    private static Map<String, String> expand(Path templates, Path template) throws IOException {
        List<String> lines = Files.readAllLines(template);
        String fileName = null;
        Map<String, List<String>> table = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (!line.startsWith("#") || line.startsWith("##") || CONDITION.matcher(line).lookingAt()) {
                continue;
            }
            String[] nameAndRest = line.substring(1).split("\\s+", 2);
            String rest = nameAndRest.length > 1 ? nameAndRest[1].strip() : "";
            if (!nameAndRest[0].matches("\\w+")) {
                throw error(template, i, "not a directive (##, #file, #if, #else, #end) nor a row (#NAME values)");
            }
            if (nameAndRest[0].equals("file")) {
                fileName = rest;
                continue;
            }
            List<String> values = new ArrayList<>();
            Matcher v = VALUE.matcher(rest);
            while (v.find()) {
                values.add(v.group(1) != null ? v.group(1) : v.group(2).equals("-") ? null : v.group(2));
            }
            if (!table.isEmpty() && values.size() != table.values().iterator().next().size()) {
                throw error(template, i, "row " + nameAndRest[0] + " has " + values.size() + " values, the rows"
                        + " above have " + table.values().iterator().next().size());
            }
            table.put(nameAndRest[0], values);
        }
        if (fileName == null || table.isEmpty()) {
            throw error(template, 0, "a template needs a #file line and at least one row of values");
        }
        String header = HEADER.formatted(slashes(template), slashes(templates));
        Map<String, String> files = new LinkedHashMap<>();
        int columns = table.values().iterator().next().size();
        for (int c = 0; c < columns; c++) {
            Map<String, String> vars = new LinkedHashMap<>();
            for (Map.Entry<String, List<String>> row : table.entrySet()) {
                vars.put(row.getKey(), row.getValue().get(c));
            }
            String name = substitute(template, 0, fileName, vars, "the #file line");
            StringBuilder text = new StringBuilder(header);
            expandColumn(template, lines, vars, name, text);
            if (files.put(name, text.toString()) != null) {
                throw error(template, 0, "two columns generate " + name);
            }
        }
        return files;
    }

    /**
     * An open #if: its condition as written, whether the lines around it are kept, the condition's value, and
     * whether its #else has been passed.
     */
    private record Open(String cond, boolean outer, boolean value, boolean inElse) {
        boolean keeps() {
            return outer && value != inElse;
        }
    }

    private static void expandColumn(Path template, List<String> lines, Map<String, String> vars, String name,
                                     StringBuilder text) {
        Deque<Open> open = new ArrayDeque<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            boolean keep = open.isEmpty() || open.peek().keeps();
            Matcher c = CONDITION.matcher(line);
            if (c.lookingAt()) {
                String cond = c.group(2) + c.group(3);
                if (c.group(1).equals("if")) {
                    open.push(new Open(cond, keep, flag(template, i, vars, c.group(3)) == c.group(2).isEmpty(), false));
                    continue;
                }
                Open o = open.peek();
                if (o == null || !o.cond().equals(cond)) {
                    throw error(template, i, line.strip() + " does not close an open #if[" + cond + "]"
                            + (o == null ? "" : " (the open one is #if[" + o.cond() + "])"));
                }
                if (o.inElse() && c.group(1).equals("else")) {
                    throw error(template, i, "a second #else[" + cond + "]");
                }
                open.pop();
                if (c.group(1).equals("else")) {
                    open.push(new Open(o.cond(), o.outer(), o.value(), true));
                }
            } else if (!line.startsWith("#") && keep) {
                text.append(substitute(template, i, line, vars, name)).append('\n');
            }
        }
        if (!open.isEmpty()) {
            throw error(template, lines.size() - 1, "#if[" + open.peek().cond() + "] has no #end");
        }
    }

    private static boolean flag(Path template, int line, Map<String, String> vars, String name) {
        String value = vars.get(name);
        if (!"true".equals(value) && !"false".equals(value)) {
            throw error(template, line, "condition " + name + " is " + value + " here, not true or false");
        }
        return value.equals("true");
    }

    private static String substitute(Path template, int line, String text, Map<String, String> vars, String where) {
        Matcher m = VARIABLE.matcher(text);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            String value = vars.get(m.group(1));
            if (value == null) {
                throw error(template, line, "$" + m.group(1) + "$ has no value in " + where);
            }
            m.appendReplacement(sb, Matcher.quoteReplacement(value));
        }
        return m.appendTail(sb).toString();
    }

    private static Path writeIfChanged(Path file, String text) throws IOException {
        if (!Files.exists(file) || !Files.readString(file).equals(text)) {
            Files.createDirectories(file.getParent());
            Files.writeString(file, text);
        }
        return file.toAbsolutePath().normalize();
    }

    /** Deletes generated files (those starting with the header) that no template produced this time. */
    private static void deleteStale(Path out, Set<Path> written) throws IOException {
        if (!Files.isDirectory(out)) {
            return;
        }
        String prefix = HEADER.substring(0, HEADER.indexOf('%'));
        List<Path> files;
        try (Stream<Path> all = Files.walk(out)) {
            files = all.filter(Files::isRegularFile).toList();
        }
        for (Path f : files) {
            if (!written.contains(f.toAbsolutePath().normalize()) && firstLine(f).startsWith(prefix)) {
                Files.delete(f);
            }
        }
    }

    private static String slashes(Path p) {
        return p.toString().replace('\\', '/');
    }

    private static String firstLine(Path file) throws IOException {
        try (BufferedReader r = Files.newBufferedReader(file)) {
            String line = r.readLine();
            return line == null ? "" : line;
        }
    }

    private static IllegalArgumentException error(Path template, int line, String message) {
        return new IllegalArgumentException(template + ":" + (line + 1) + ": " + message);
    }
}
