package dev.hwtool.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A batch parses its lines with the tree of the same commands built for an earlier line
 * (Cli.Trees): no value of one line may reach the next, neither an option's nor a positional's,
 * a list's, a boolean's, nor a default replaced by a given value.
 */
class BatchReuseTest {

    @Test
    void aLineGetsTheTreeOfAnEarlierLineOfTheSameCommands() {
        Cli.Trees trees = new Cli.Trees();
        CommandLine a = tree(trees, "cpuid", "-l", "7");
        assertSame(a, tree(trees, "cpuid"));
        assertNotSame(a, tree(trees, "caps"));
        CommandLine decode = tree(trees, "msr", "decode", "IA32_DEBUGCTL", "0x1");
        assertSame(decode, tree(trees, "msr", "decode", "IA32_MISC_ENABLE", "0"));
        assertNotSame(decode, tree(trees, "msr", "list"));
    }

    @Test
    void noValueOfALineReachesTheNext() {
        Cli.Trees trees = new Cli.Trees();
        // Options with a value, a default replaced, booleans, a mixin's options.
        assertLeavesNothing(trees, List.of("cpuid", "-1", "-l", "7", "-s", "2", "--source", "device", "--json",
                "--backend", "sim", "--profile", "skylake", "--binding", "jna"), List.of("cpuid"));
        // Positionals, a list positional and a required option.
        assertLeavesNothing(trees, List.of("msr", "save", "-a", "-o", "/nonexistent/x", "IA32_DEBUGCTL", "IA32_MISC_ENABLE"),
                List.of("msr", "save", "-o", "/nonexistent/y", "IA32_PAT"));
        // A default given on one line and left out on the next; an optional positional.
        assertLeavesNothing(trees, List.of("report", "-n", "3", "--sort", "ip", "--json", "some.data"), List.of("report"));
        // Usage help asked for on one line, not on the next.
        assertLeavesNothing(trees, List.of("msr", "decode", "--help"), List.of("msr", "decode", "IA32_DEBUGCTL", "0x1"));
        CommandLine decode = tree(trees, "msr", "decode", "IA32_DEBUGCTL", "0x1").getSubcommands().get("msr").getSubcommands().get("decode");
        assertFalse(decode.isUsageHelpRequested());
    }

    @Test
    void everyBooleanOptionIsFalseAgainOnTheNextLine() {
        // Each command a line can start with, each of its boolean options given, then none.
        Cli.Trees trees = new Cli.Trees();
        int checked = 0;
        for (String name : HwtoolCommand.SUBCOMMANDS.keySet()) {
            List<List<String>> paths = new ArrayList<>();
            if (HwtoolCommand.GROUPS.containsKey(name)) {
                HwtoolCommand.GROUPS.get(name).keySet().forEach(sub -> paths.add(List.of(name, sub)));
            } else {
                paths.add(List.of(name));
            }
            for (List<String> path : paths) {
                CommandLine root = tree(trees, path.toArray(String[]::new));
                CommandLine leaf = leaf(root, path);
                parseQuietly(root, path);
                Map<String, String> fresh = values(root); // the defaults applied, as after the bare command
                for (OptionSpec o : leaf.getCommandSpec().options()) {
                    if (o.typeInfo().isBoolean() && !o.usageHelp() && !o.versionHelp() && o.arity().max() == 0) {
                        List<String> line = new ArrayList<>(path);
                        line.add(o.longestName());
                        parseQuietly(root, line);
                        parseQuietly(root, path);
                        assertEquals(fresh, values(root), String.join(" ", line) + ", then " + String.join(" ", path));
                        checked++;
                    }
                }
            }
        }
        assertTrue(checked > 20, "boolean options checked: " + checked);
    }

    @Test
    void aTreeWhoseObjectsKeepStateIsBuiltAgainForEachLine() {
        // MsrRestoreCommand counts what it left unchanged in a field picocli does not bind.
        Cli.Trees trees = new Cli.Trees();
        CommandLine restore = tree(trees, "msr", "restore", "--last");
        assertNotSame(restore, tree(trees, "msr", "restore", "--last"));
        // The help command is set up for each run (picocli's IHelpCommandInitializable2).
        assertNotSame(tree(trees, "help"), tree(trees, "help"));
        assertFalse(CommandModel.current().stateless(Cli.commandLine(sink(), sink(), new String[]{"msr", "restore"})));
        assertTrue(CommandModel.current().stateless(Cli.commandLine(sink(), sink(), new String[]{"cpuid"})));
    }

    @Test
    void aBatchOfTheSameLinesPrintsWhatTheLinesPrintAlone(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        String[] lines = {"msr decode IA32_DEBUGCTL 0x1", "msr decode --json IA32_DEBUGCTL 0x3", "msr decode IA32_DEBUGCTL 0x1",
                "cpuid --backend sim --profile skylake -l 0", "cpuid --backend sim --profile skylake -l 1",
                "cpuid --backend sim --profile skylake -l 0", "msr decode --frob", "msr decode IA32_DEBUGCTL 0x1"};
        StringBuilder out = new StringBuilder();
        StringBuilder err = new StringBuilder();
        for (String l : lines) {
            Run r = Run.of(l.split(" "));
            out.append(r.out());
            err.append(r.err());
        }
        Path file = dir.resolve("lines");
        java.nio.file.Files.write(file, List.of(lines));
        Run batch = Run.of("batch", file.toString());
        assertEquals(out.toString(), batch.out());
        assertEquals(err.toString(), batch.err());
        assertEquals(ExitCodes.USAGE, batch.exit()); // the first failing line's: 'msr decode --frob'
    }

    /** Parses {@code first}, then {@code second}, on one reused tree: afterwards it holds what a fresh tree holds after {@code second}. */
    private static void assertLeavesNothing(Cli.Trees trees, List<String> first, List<String> second) {
        CommandLine reused = tree(trees, first.toArray(String[]::new));
        parseQuietly(reused, first);
        assertSame(reused, tree(trees, second.toArray(String[]::new)), "one tree for both lines");
        parseQuietly(reused, second);
        CommandLine fresh = Cli.commandLine(sink(), sink(), second.toArray(String[]::new));
        parseQuietly(fresh, second);
        assertEquals(values(fresh), values(reused), String.join(" ", first) + ", then " + String.join(" ", second));
    }

    private static CommandLine tree(Cli.Trees trees, String... args) {
        return Cli.commandLine(sink(), sink(), args, trees);
    }

    private static CommandLine leaf(CommandLine root, List<String> path) {
        CommandLine c = root;
        for (String p : path) {
            c = c.getSubcommands().get(p);
        }
        return c;
    }

    private static void parseQuietly(CommandLine c, List<String> args) {
        try {
            c.parseArgs(args.toArray(String[]::new));
        } catch (CommandLine.ParameterException e) {
            // values given before the error are set all the same: what the next line must not see
        }
    }

    /** Every option's and positional's value in the tree, by command path and name, as text. */
    private static Map<String, String> values(CommandLine root) {
        Map<String, String> m = new LinkedHashMap<>();
        values("hwtool", root, m);
        return m;
    }

    private static void values(String path, CommandLine c, Map<String, String> m) {
        for (ArgSpec a : c.getCommandSpec().args()) {
            String name = a instanceof OptionSpec o ? o.longestName() : "positional " + a.paramLabel();
            Object v = a.getValue();
            m.put(path + " " + name, v instanceof Object[] arr ? java.util.Arrays.toString(arr) : String.valueOf(v));
        }
        c.getSubcommands().forEach((n, sub) -> values(path + " " + n, sub, m));
    }

    private static PrintWriter sink() {
        return new PrintWriter(new StringWriter());
    }
}
