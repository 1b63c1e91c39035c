package dev.hwtool.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Main builds only the subcommand a command line names (HwtoolCommand.needed); every command
 * must read, print and fail exactly as it does in the whole tree.
 */
class CommandTreeTest {

    @Test
    void theRegistryNamesEachCommandAsItsAnnotationDoes() {
        HwtoolCommand.SUBCOMMANDS.forEach((name, c) ->
                assertEquals(name, c.getAnnotation(CommandLine.Command.class).name(), c.getName()));
        HwtoolCommand.GROUPS.forEach((group, subs) -> subs.forEach((name, c) ->
                assertEquals(name, c.getAnnotation(CommandLine.Command.class).name(), group + " " + c.getName())));
    }

    @Test
    void everyCommandPrintsAndFailsAsInTheWholeTree() {
        List<List<String>> paths = new ArrayList<>();
        walk(Cli.commandLine(sink(), sink()), new ArrayList<>(), paths);
        assertTrue(paths.size() > 20, "the tree has its nested commands: " + paths);
        int compared = 0;
        for (List<String> path : paths) {
            if (CompatCommands.handles(path.getFirst())) {
                continue; // rdmsr/wrmsr never reach picocli
            }
            for (String tail : List.of("--help", "--no-such-option", "-V")) {
                List<String> args = new ArrayList<>(path);
                args.add(tail);
                String[] a = args.toArray(String[]::new);
                assertEquals(whole(a), Run.of(a).toString(), String.join(" ", a));
                compared++;
            }
        }
        for (String[] a : List.of(new String[]{"--version"}, new String[]{"-V"}, new String[]{"--help"}, new String[]{}, new String[]{"frob"},
                new String[]{"help", "msr", "watch"}, new String[]{"--version", "caps"})) {
            assertEquals(whole(a), Run.of(a).toString(), String.join(" ", a));
            compared++;
        }
        assertTrue(compared > 60, "compared " + compared);
    }

    /** What the whole tree prints for {@code args}, in Run's form. */
    private static String whole(String[] args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        PrintWriter o = new PrintWriter(out);
        PrintWriter e = new PrintWriter(err);
        int code = Cli.commandLine(o, e).execute(args);
        o.flush();
        e.flush();
        return new Run(code, out.toString(), err.toString(), new byte[0]).toString();
    }

    private static void walk(CommandLine c, List<String> path, List<List<String>> paths) {
        c.getSubcommands().forEach((name, sub) -> {
            List<String> p = new ArrayList<>(path);
            p.add(name);
            paths.add(p);
            walk(sub, p, paths);
        });
    }

    private static PrintWriter sink() {
        return new PrintWriter(new StringWriter());
    }
}
