package dev.hwtool.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every numeric option of every command has a documented range, and a value outside it is the
 * usage error, exit 2, in one line (issue 26). The options are found by walking picocli's model
 * of the whole command tree (the one Main runs), not listed by hand: a numeric option added
 * without an entry here, without its range in the README's table "Ranges of numeric options" or
 * in its --help fails this test.
 */
class NumericOptionsTest {

    /** Too large for an int, for a long, and negative beyond a long. */
    private static final String INT_OVERFLOW = "2147483648";
    private static final String HUGE = "99999999999999999999";
    private static final String HUGE_NEGATIVE = "-99999999999999999999";

    /**
     * One numeric option: its command, its longest name (a positional's label), the range as the
     * README's table and the help give it, the values outside that range, and the command line
     * that tries one of them (everything else in it valid, on the simulator).
     */
    record Numeric(String command, String option, String range, String helpRange, List<String> outside,
                   Function<String, List<String>> argv) {
    }

    private static final String CPU_RANGE = "0 to 65535";
    private static final List<String> CPU_OUTSIDE = List.of("-1", "65536", INT_OVERFLOW, HUGE, HUGE_NEGATIVE, "1x", "");
    private static final List<String> SIM = List.of("--backend", "sim", "--profile", "skylake");

    private static List<String> sim(String... args) {
        List<String> a = new ArrayList<>();
        int dashes = List.of(args).indexOf("--");
        List<String> head = dashes < 0 ? List.of(args) : List.of(args).subList(0, dashes);
        a.addAll(head);
        a.addAll(SIM);
        if (dashes >= 0) {
            a.addAll(List.of(args).subList(dashes, args.length));
        }
        return a;
    }

    private static List<Numeric> table(Path dir) {
        String data = dir.resolve("none.data").toString();
        String out = dir.resolve("out").toString();
        return List.of(
                new Numeric("caps", "--cpu", CPU_RANGE, CPU_RANGE, CPU_OUTSIDE, v -> sim("caps", "--cpu=" + v)),
                new Numeric("cpuid", "--cpu", CPU_RANGE, CPU_RANGE, CPU_OUTSIDE, v -> sim("cpuid", "--cpu=" + v)),
                new Numeric("cpuid", "--leaf", "0 to 0xffffffff", "0 to 0xffffffff",
                        List.of("-1", "0x100000000", "4294967296", HUGE, "0x", "1e3"), v -> sim("cpuid", "--leaf=" + v)),
                new Numeric("cpuid", "--subleaf", "0 to 0xffffffff", "0 to 0xffffffff",
                        List.of("-1", "0x100000000", "4294967296", HUGE), v -> sim("cpuid", "-l", "0", "--subleaf=" + v)),
                new Numeric("msr list", "--cpu", CPU_RANGE, CPU_RANGE, CPU_OUTSIDE, v -> sim("msr", "list", "--cpu=" + v)),
                new Numeric("msr decode", "--cpu", CPU_RANGE, CPU_RANGE, CPU_OUTSIDE,
                        v -> sim("msr", "decode", "--cpu=" + v, "IA32_DEBUGCTL", "0")),
                new Numeric("msr decode", "VALUE", "0 to 0xffffffffffffffff", "0 to 0xffffffffffffffff",
                        List.of("-1", "0x10000000000000000", "18446744073709551616", HUGE),
                        v -> sim("msr", "decode", "IA32_DEBUGCTL", "--", v)),
                new Numeric("msr save", "--cpu", CPU_RANGE, CPU_RANGE, CPU_OUTSIDE,
                        v -> sim("msr", "save", "--cpu=" + v, "-o", out, "IA32_DEBUGCTL")),
                new Numeric("msr watch", "--cpu", "CPU numbers 0 to 65535, as a list", "CPU numbers 0 to 65535",
                        List.of("-1", "65536", "0-65536", "3-1", INT_OVERFLOW, HUGE, "0,,1"),
                        v -> sim("msr", "watch", "-n", "1", "--cpu=" + v, "IA32_TIME_STAMP_COUNTER")),
                new Numeric("msr watch", "--interval", "1ms to 24h", "1ms to 24h",
                        List.of("-1", "0", "0.0001", "25h", INT_OVERFLOW, HUGE, "1e3"),
                        v -> sim("msr", "watch", "-n", "1", "--interval=" + v, "IA32_TIME_STAMP_COUNTER")),
                new Numeric("msr watch", "--count", "N >= 1", "N >= 1",
                        List.of("-1", "0", "9223372036854775808", HUGE, HUGE_NEGATIVE),
                        v -> sim("msr", "watch", "--count=" + v, "IA32_TIME_STAMP_COUNTER")),
                new Numeric("lbr record", "--count", "PERIOD >= 1", "PERIOD >= 1",
                        List.of("-1", "0", "9223372036854775808", HUGE),
                        v -> sim("lbr", "record", "-o", out, "--count=" + v, "--", "loop", "iterations=10")),
                new Numeric("lbr report", "--limit", "N >= 0", "N >= 0", List.of("-1", INT_OVERFLOW, HUGE),
                        v -> List.of("lbr", "report", "--limit=" + v, data)),
                new Numeric("bts report", "--limit", "N >= 0", "N >= 0", List.of("-1", INT_OVERFLOW, HUGE),
                        v -> List.of("bts", "report", "--limit=" + v, data)),
                new Numeric("bts report", "--paths", "1 to 4096", "1 to 4096",
                        List.of("-1", "0", "4097", "2147483647", INT_OVERFLOW, HUGE),
                        v -> List.of("bts", "report", "--paths=" + v, data)),
                new Numeric("record", "--count", "PERIOD >= 1", "PERIOD >= 1", List.of("-1", "0", "9223372036854775808", HUGE),
                        v -> sim("record", "-o", out, "--count=" + v, "--", "loop", "iterations=10")),
                new Numeric("report", "--limit", "N >= 0", "N >= 0", List.of("-1", INT_OVERFLOW, HUGE),
                        v -> List.of("report", "--limit=" + v, data)),
                new Numeric("sim mount", "--cpus", "N >= 1 (at most the profile's CPUs)", "N >= 1",
                        List.of("-1", "0", "9", INT_OVERFLOW, HUGE), v -> List.of("sim", "mount", "--profile", "skylake",
                                "--cpus=" + v, dir.resolve("no-such-dir").toString())),
                new Numeric("sim exec", "--cpus", "N >= 1 (at most the profile's CPUs)", "N >= 1",
                        List.of("-1", "0", "9", INT_OVERFLOW, HUGE),
                        v -> List.of("sim", "exec", "--profile", "skylake", "--cpus=" + v, "--", "/no/such/program")),
                new Numeric("exporter", "--listen", "port 0 to 65535", "port 0 to 65535",
                        List.of("127.0.0.1:-1", "127.0.0.1:65536", "127.0.0.1:" + INT_OVERFLOW, "127.0.0.1:" + HUGE),
                        v -> sim("exporter", "--listen=" + v)),
                new Numeric("exporter", "--cache-interval", "0, or 1ms to 24h", "0, or 1ms to 24h",
                        List.of("-1", "0.0001", "25h", INT_OVERFLOW, HUGE),
                        v -> sim("exporter", "--listen", "127.0.0.1:0", "--cache-interval=" + v)),
                new Numeric("exporter", "--web.max-requests", "1 to 256", "1 to 256", List.of("-1", "0", "257", INT_OVERFLOW, HUGE),
                        v -> sim("exporter", "--listen", "127.0.0.1:0", "--web.max-requests=" + v)),
                new Numeric("exporter", "--web.max-connections", "1 to 65536", "1 to 65536",
                        List.of("-1", "0", "65537", INT_OVERFLOW, HUGE),
                        v -> sim("exporter", "--listen", "127.0.0.1:0", "--web.max-connections=" + v)),
                new Numeric("exporter", "--web.max-connections-per-client", "1 to --web.max-connections",
                        "1 to --web.max-connections", List.of("-1", "0", "65", INT_OVERFLOW, HUGE),
                        v -> sim("exporter", "--listen", "127.0.0.1:0", "--web.max-connections-per-client=" + v)),
                new Numeric("exporter", "--web.header-timeout", "1s to 5m", "1s to 5m", List.of("-1", "0", "999ms", "301s", HUGE),
                        v -> sim("exporter", "--listen", "127.0.0.1:0", "--web.header-timeout=" + v)),
                new Numeric("exporter", "--web.request-timeout", "--web.header-timeout to 10m", "--web.header-timeout to 10m",
                        List.of("-1", "0", "9s", "601s", HUGE),
                        v -> sim("exporter", "--listen", "127.0.0.1:0", "--web.request-timeout=" + v)),
                new Numeric("exporter", "--web.idle-timeout", "1s to 1h", "1s to 1h", List.of("-1", "0", "999ms", "61m", HUGE),
                        v -> sim("exporter", "--listen", "127.0.0.1:0", "--web.idle-timeout=" + v)));
    }

    /** What makes an option numeric: its Java type, or a label that names a number, a CPU or a duration. */
    private static final Set<Class<?>> NUMERIC_TYPES = Set.of(int.class, long.class, short.class, byte.class, double.class,
            float.class, Integer.class, Long.class, Short.class, Byte.class, Double.class, Float.class, BigInteger.class,
            Duration.class);
    private static final Set<String> NUMERIC_LABELS = Set.of("N", "D", "PERIOD", "CPU", "CPUS", "LEAF", "SUBLEAF", "VALUE",
            "HOST:PORT");

    private static boolean numeric(ArgSpec a) {
        return NUMERIC_TYPES.contains(a.type()) || a.auxiliaryTypes().length > 0 && NUMERIC_TYPES.contains(a.auxiliaryTypes()[0])
                || NUMERIC_LABELS.contains(a.paramLabel());
    }

    private static String name(ArgSpec a) {
        return a instanceof OptionSpec o ? o.longestName() : ((PositionalParamSpec) a).paramLabel();
    }

    /** Every numeric option or positional of the whole tree, as "command option" with its help text. */
    private static Map<String, String> walk() {
        Map<String, String> found = new LinkedHashMap<>();
        walk(Cli.commandLine(new PrintWriter(Writer.nullWriter()), new PrintWriter(Writer.nullWriter())), found);
        return found;
    }

    private static void walk(CommandLine c, Map<String, String> found) {
        String path = c.getCommandSpec().qualifiedName(" ").replaceFirst("^hwtool ?", "");
        for (ArgSpec a : c.getCommandSpec().args()) {
            if (numeric(a)) {
                found.put(path + " " + name(a), String.join(" ", a.description()));
            }
        }
        for (CommandLine sub : c.getSubcommands().values()) {
            walk(sub, found);
        }
    }

    @Test
    void everyNumericOptionHasItsRangeInTheReadmeAndInItsHelp(@org.junit.jupiter.api.io.TempDir Path dir) throws IOException {
        Map<String, String> found = walk();
        Set<String> listed = new LinkedHashSet<>();
        for (Numeric n : table(dir)) {
            listed.add(n.command() + " " + n.option());
        }
        assertEquals(listed, found.keySet(), "the numeric options of the command tree and this test's table");
        String readme = Files.readString(ReadmeFiguresTest.ROOT.resolve("README.md"));
        int section = readme.indexOf("### Ranges of numeric options");
        assertTrue(section > 0, "the README's section on ranges");
        String table = readme.substring(section, readme.indexOf("\n### ", section + 1));
        for (Numeric n : table(dir)) {
            String help = found.get(n.command() + " " + n.option());
            assertTrue(help.contains(n.helpRange()), n.command() + " " + n.option() + ": the help names no range: " + help);
            String row = table.lines().filter(l -> l.startsWith("| `" + n.command()) || l.contains("`" + n.command() + "`"))
                    .filter(l -> l.matches(".*`[^`]*" + java.util.regex.Pattern.quote(n.option()) + "\\b[^`]*`.*"))
                    .findFirst().orElse(null);
            assertTrue(row != null, "no README row for " + n.command() + " " + n.option());
            assertTrue(row.endsWith("| " + n.range() + " |"), "the README's range of " + n.command() + " " + n.option() + ": " + row);
        }
    }

    @Test
    void everyValueOutsideItsRangeIsTheUsageErrorInOneLine(@org.junit.jupiter.api.io.TempDir Path dir) {
        int tries = 0;
        for (Numeric n : table(dir)) {
            for (String v : n.outside()) {
                List<String> argv = n.argv().apply(v);
                // A value wrongly taken would run the command (a watch, a server): bounded, so the failure is named.
                Run r = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> Run.of(argv.toArray(String[]::new)),
                        () -> "hangs: " + String.join(" ", argv));
                String what = String.join(" ", argv) + "\n" + r;
                assertEquals(2, r.exit(), what);
                assertEquals("", r.out(), what);
                List<String> lines = r.err().lines().toList();
                assertTrue(lines.size() == 1 || lines.size() == 2 && lines.get(1).matches("hwtool: (see '|fix: ).*"), what);
                assertTrue(lines.getFirst().startsWith("hwtool: "), what);
                assertFalse(r.err().contains("Exception") || r.err().contains("internal error") || r.err().contains("\tat "), what);
                tries++;
            }
        }
        assertTrue(tries > 100, "tries " + tries);
        assertFalse(Files.exists(dir.resolve("out")), "a refused command wrote its output");
    }
}
