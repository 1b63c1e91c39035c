package dev.hwtool.cli;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.logging.Level;
import java.util.logging.Logger;
import picocli.CommandLine;

/**
 * Entry point. The launcher passes the name it was invoked by as {@code -Dhwtool.argv0}, so a
 * link named after a subcommand (e.g. {@code cpuid}, {@code rdmsr}, {@code wrmsr})
 * acts as that command.
 */
public final class Main {

    private Main() {
    }

    /**
     * JNA reports a temporary directory it cannot use through java.util.logging, with a stack
     * trace, before failing; hwtool reports that failure itself, in one line (Bindings). Held
     * here because LogManager keeps loggers only weakly.
     */
    private static final Logger JNA_LOG = Logger.getLogger("com.sun.jna");

    public static void main(String[] args) {
        if (System.getenv("HWTOOL_DEBUG") == null) {
            JNA_LOG.setLevel(Level.SEVERE);
        }
        PrintWriter out = new ByteOut(System.out);
        PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
        int code = run(System.getProperty("hwtool.argv0", "hwtool"), args, out, err);
        out.flush();
        err.flush();
        System.exit(code);
    }

    /**
     * Runs one invocation as if called by {@code argv0}; returns the exit code. Never throws:
     * picocli hands only Exceptions to Cli's handler, so an Error (a LinkageError from a native
     * library, a StackOverflowError) is reported here, in the same one-line form, exit 1.
     */
    public static int run(String argv0, String[] args, PrintWriter out, PrintWriter err) {
        try {
            return dispatch(argv0, args, out, err);
        } catch (Throwable t) {
            return Cli.report(t, err, CommandLine.Help.defaultColorScheme(CommandLine.Help.Ansi.AUTO));
        }
    }

    private static int dispatch(String argv0, String[] args, PrintWriter out, PrintWriter err) {
        if (argv0.equals("hwtool")) {
            args = BackendOptions.hoisted(args, Main::commandPathLength);
        }
        // rdmsr/wrmsr parse their arguments as msr-tools does (getopt_long), not as picocli; they
        // go first, so that neither a drop-in nor an in-process caller pays for building
        // picocli's model of every command.
        if (CompatCommands.handles(argv0)) {
            return CompatCommands.run(argv0, java.util.Arrays.asList(args), out, err);
        }
        if (argv0.equals("hwtool") && args.length > 0 && CompatCommands.handles(args[0])) {
            return CompatCommands.run(args[0], java.util.Arrays.asList(args).subList(1, args.length), out, err);
        }
        String[] effective = args;
        CommandLine cl = Cli.commandLine(out, err);
        if (!argv0.equals("hwtool") && cl.getSubcommands().containsKey(argv0)) {
            effective = new String[args.length + 1];
            effective[0] = argv0;
            System.arraycopy(args, 0, effective, 1, args.length);
        }
        return cl.execute(effective);
    }

    /**
     * How many of {@code words} name a command and its subcommands ({@code msr restore}: 2);
     * rdmsr and wrmsr count as one.
     */
    private static int commandPathLength(java.util.List<String> words) {
        if (words.isEmpty()) {
            return 0;
        }
        if (CompatCommands.handles(words.getFirst())) {
            return 1;
        }
        CommandLine c = Cli.commandLine(new PrintWriter(java.io.Writer.nullWriter()), new PrintWriter(java.io.Writer.nullWriter()));
        int n = 0;
        while (n < words.size() && c.getSubcommands().containsKey(words.get(n))) {
            c = c.getSubcommands().get(words.get(n));
            n++;
        }
        return n;
    }
}
