package dev.hwtool.cli;

import dev.hwtool.api.HwException;
import dev.hwtool.io.TerminalText;
import picocli.CommandLine;

import java.io.PrintWriter;

/**
 * The one place that wires picocli: the command tree, the exit-code mapper and the one-line
 * error handler (after JBang's {@code getCommandLine}). Users never see a stack trace; a bug
 * is reported in one line with exit code 1 and the trace only with HWTOOL_DEBUG=1.
 */
public final class Cli {

    private Cli() {
    }

    /** The whole command tree. */
    public static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        return commandLine(out, err, new String[0], HwtoolCommand.SUBCOMMANDS);
    }

    /** The tree a command line needs to run as it would with the whole tree (HwtoolCommand.needed). */
    static CommandLine commandLine(PrintWriter out, PrintWriter err, String[] args) {
        return commandLine(out, err, args, HwtoolCommand.needed(args));
    }

    /**
     * As {@link #commandLine(PrintWriter, PrintWriter, String[])}, the tree taken from {@code trees}
     * when it holds one for the same commands (a batch's earlier line), else built and kept there.
     */
    static CommandLine commandLine(PrintWriter out, PrintWriter err, String[] args, Trees trees) {
        java.util.Map<String, Class<?>> subcommands = HwtoolCommand.needed(args);
        String key = Trees.key(subcommands, args);
        CommandLine cl = trees.reusable(key);
        if (cl == null) {
            cl = commandLine(out, err, args, subcommands);
            trees.keep(key, cl);
        }
        cl.setOut(out);
        cl.setErr(err);
        return cl;
    }

    /**
     * The command trees of one batch, by the commands they hold, each built once and parsed again
     * for each line that needs the same commands. picocli resets every option and positional of
     * the tree to its initial value before it parses (Interpreter.clear, at each parseArgs), so
     * no value of a line reaches the next (BatchReuseTest); the command objects keep nothing
     * else: a tree is kept only when none of its command or mixin objects has an instance field
     * picocli does not bind (CommandModel.stateless), else each line builds its own, as a process
     * would. What this saves per line: the model build, and picocli's per-CommandLine set-up (its
     * ~60 built-in converters, 20 found by reflection; a color scheme; four compiled patterns per
     * spec for negatable options).
     */
    static final class Trees {
        private final java.util.Map<String, CommandLine> kept = new java.util.HashMap<>();

        /** The key of the tree of {@code subcommands} (and, for a group, the group's subcommands {@code args} needs). */
        static String key(java.util.Map<String, Class<?>> subcommands, String[] args) {
            StringBuilder sb = new StringBuilder();
            subcommands.keySet().forEach(n -> {
                sb.append(n).append(' ');
                if (HwtoolCommand.GROUPS.containsKey(n)) {
                    sb.append(HwtoolCommand.neededIn(n, args).keySet()).append(' ');
                }
            });
            return sb.toString();
        }

        CommandLine reusable(String key) {
            return kept.get(key);
        }

        void keep(String key, CommandLine cl) {
            if (CommandModel.current().stateless(cl)) {
                kept.put(key, cl);
            }
        }
    }

    private static CommandLine commandLine(PrintWriter out, PrintWriter err, String[] args,
                                           java.util.Map<String, Class<?>> subcommands) {
        // Built from the build-time model (CommandModel), not from the annotations at run time.
        CommandModel model = CommandModel.current();
        CommandLine cl = model.commandLine(HwtoolCommand.class);
        subcommands.forEach((name, c) -> {
            CommandLine sub = model.commandLine(c);
            if (HwtoolCommand.GROUPS.containsKey(name)) {
                // Nested before the group joins the tree, as picocli nests an annotation's list.
                HwtoolCommand.neededIn(name, args).forEach((n, g) -> sub.addSubcommand(n, model.commandLine(g)));
            }
            cl.addSubcommand(name, sub);
        });
        model.standardHelp(cl);
        cl.setOut(out);
        cl.setErr(err);
        cl.setExitCodeExceptionMapper(ExitCodes::of);
        exitCodeLists(cl, ExitCodeList.CODES);
        cl.setExecutionExceptionHandler((ex, commandLine, parseResult) ->
                report(ex, commandLine.getErr(), commandLine.getColorScheme()));
        cl.setParameterExceptionHandler((ex, unused) -> {
            CommandLine c = ex.getCommandLine();
            PrintWriter e = c.getErr();
            e.println(c.getColorScheme().errorText("hwtool: " + TerminalText.quote(ex.getMessage())));
            e.println("hwtool: see '" + c.getCommandSpec().qualifiedName() + " --help'");
            e.flush();
            return ExitCodes.USAGE;
        });
        return cl;
    }

    /**
     * The exit-code list of the help, made once per JVM (String.format per code is not free at a
     * batch line's scale); immutable, and each UsageMessageSpec copies it.
     */
    private static final class ExitCodeList {
        static final java.util.Map<String, String> CODES = codes();

        private static java.util.Map<String, String> codes() {
            java.util.Map<String, String> codes = new java.util.LinkedHashMap<>();
            for (String entry : ExitCodes.helpList()) {
                int colon = entry.indexOf(':');
                codes.put(String.format("%3s", entry.substring(0, colon)), entry.substring(colon + 1));
            }
            return java.util.Collections.unmodifiableMap(codes);
        }
    }

    /** The exit-code list in the help of every command, nested ones (hwtool msr watch) included. */
    private static void exitCodeLists(CommandLine c, java.util.Map<String, String> codes) {
        c.getCommandSpec().usageMessage().exitCodeListHeading("%nExit codes:%n").exitCodeList(codes);
        for (CommandLine sub : c.getSubcommands().values()) {
            exitCodeLists(sub, codes);
        }
    }

    /**
     * Prints a failure as one line (and a "fix:" line when there is a remedy), whatever text from
     * files or arguments it quotes made safe for the terminal ({@link TerminalText}); the stack trace
     * only with HWTOOL_DEBUG set. Returns the exit code. Used for every Exception a command throws
     * (picocli's handler) and, from {@link Main#run}, for Errors, which picocli does not catch.
     */
    static int report(Throwable ex, PrintWriter e, CommandLine.Help.ColorScheme colors) {
        if (ex instanceof StdStream.Failed f) {
            // Standard output failed: Main.finish says so once, at the end (nothing for a closed pipe).
            return f.stream().exitCode();
        }
        e.println(colors.errorText("hwtool: " + TerminalText.quote(oneLine(ex))));
        if (ex instanceof HwException hw && hw.remedy().isPresent()) {
            e.println("hwtool: fix: " + TerminalText.quote(hw.remedy().get()));
        }
        if (System.getenv("HWTOOL_DEBUG") != null) {
            ex.printStackTrace(e);
        }
        e.flush();
        return ExitCodes.of(ex);
    }

    static String oneLine(Throwable ex) {
        String m = ex.getMessage();
        if (ex instanceof HwException || ex instanceof UsageException) {
            return m;
        }
        // Not one of ours: a bug. Say what it was, in one line.
        return "internal error: " + ex.getClass().getSimpleName() + (m == null ? "" : ": " + m.lines().findFirst().orElse(""))
                + " (set HWTOOL_DEBUG=1 for the stack trace)";
    }
}
