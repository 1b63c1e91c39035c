package dev.hwtool.cli;

import dev.hwtool.api.Cause;
import dev.hwtool.linux.sys.ShutdownSignals;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;

/**
 * Entry point. The launcher passes the name it was invoked by as {@code -Dhwtool.argv0}, so a
 * link named after a subcommand (e.g. {@code cpuid}, {@code rdmsr}, {@code wrmsr})
 * acts as that command.
 */
public final class Main {

    private Main() {
    }

    public static void main(String[] args) {
        // First: take the signals the launcher kept blocked since before the JVM started
        // (ShutdownSignals): one sent at any moment so far is pending and acted on now.
        ShutdownSignals.start();
        Thread.setDefaultUncaughtExceptionHandler(Main::uncaught);
        // Standard output and error through StdStream, which keeps the errno of a failed write
        // (System.out's PrintStream keeps only a flag); System.out and System.err too, so that
        // nothing reaches the descriptors another way.
        StdStream stdout = StdStream.stdout();
        StdStream stderr = StdStream.stderr();
        PrintWriter out = new ByteOut(stdout);
        PrintWriter err = new PrintWriter(new java.io.OutputStreamWriter(stderr, StandardCharsets.UTF_8), true);
        System.setOut(new java.io.PrintStream(stdout, true, StandardCharsets.UTF_8));
        System.setErr(new java.io.PrintStream(stderr, true, StandardCharsets.UTF_8));
        int code = run(System.getProperty("hwtool.argv0", "hwtool"), args, out, err);
        code = finish(code, out, err, stdout, stderr);
        // A signal sent before the signal thread began taking (it waits a moment first): the
        // command ended, and the signal's outcome, 128 + N, replaces its exit code.
        ShutdownSignals.settlePending();
        if (code == ExitCodes.OK && aloneButForDaemons()) {
            // Returning ends the JVM with status 0 as System.exit(0) would, shutdown hooks included
            // (DestroyJavaVM runs java.lang.Shutdown.shutdown), but without Runtime.exit's logging
            // (JDK-8301627): it looks up the System.Logger "java.lang.Runtime", whose backend
            // detection runs a ServiceLoader over the class path and the runtime image, classes and
            // a jar open that a one-shot command otherwise never needs: 5-8 ms of every start.
            return;
        }
        System.exit(code);
    }

    /**
     * The exit code once standard output and error are flushed and checked. A failed standard
     * output is the result, whatever the command returned, since what it printed did not arrive:
     * a closed pipe (EPIPE: {@code hwtool msr list --all | head -1}) quietly gives 141, as a program
     * that SIGPIPE ended (the JVM's handler ignores SIGPIPE, hotspot's signals_posix.cpp, so the
     * write fails with EPIPE instead); any
     * other errno is 13 and one line naming it, like an output file ({@code hwtool: cannot write
     * standard output: No space left on device}). A failed standard error turns success into 13:
     * the messages are lost, and there is nowhere to say so (gnulib's close_stdout, lib/closeout.c, does the same).
     */
    static int finish(int code, PrintWriter out, PrintWriter err, StdStream stdout, StdStream stderr) {
        try {
            out.flush();
        } catch (StdStream.Failed e) {
            // Recorded in stdout: reported below.
        }
        if (stdout.failure() != null) {
            if (!stdout.brokenPipe()) {
                err.println(stdout.message());
            }
            code = stdout.exitCode();
        }
        err.flush();
        if (stderr.failure() != null && code == ExitCodes.OK) {
            code = Cause.OS_ERROR.exitCode();
        }
        return code;
    }

    /**
     * An exception no code of another thread caught: an OutOfMemoryError there (an exporter's
     * worker, a FUSE loop) ends the command as on the main thread, one line and exit 13, through
     * the shutdown hooks; anything else is printed as the JDK's ThreadGroup.uncaughtException does.
     */
    private static void uncaught(Thread t, Throwable e) {
        if (e instanceof OutOfMemoryError oom) {
            outOfMemory(oom, System.err);
            System.exit(Cause.OS_ERROR.exitCode());
        }
        System.err.print("Exception in thread \"" + t.getName() + "\" ");
        e.printStackTrace(System.err);
    }

    /**
     * The lines of an OutOfMemoryError, made before any is thrown: saying it must need as little
     * of the heap as possible.
     */
    private static final String OUT_OF_MEMORY_TEXT = "hwtool: out of memory (the Java heap, at most "
            + Runtime.getRuntime().maxMemory() / 1024 + " KiB)\n"
            + "hwtool: fix: give Java more memory: a larger -Xmx, or none (JAVA_TOOL_OPTIONS, JDK_JAVA_OPTIONS)\n";
    private static final byte[] OUT_OF_MEMORY = OUT_OF_MEMORY_TEXT.getBytes(StandardCharsets.UTF_8);

    /** Writes the out-of-memory lines to {@code err} as bytes; quietly nothing if even that fails. */
    static void outOfMemory(OutOfMemoryError e, java.io.OutputStream err) {
        try {
            err.write(OUT_OF_MEMORY);
            err.flush();
        } catch (java.io.IOException | RuntimeException | Error ignored) {
            // Nowhere to say it: the exit code does.
        }
    }

    /** Whether every live platform thread but this one is a daemon, so that returning from main ends the JVM. */
    private static boolean aloneButForDaemons() {
        ThreadGroup root = Thread.currentThread().getThreadGroup();
        while (root.getParent() != null) {
            root = root.getParent();
        }
        Thread[] threads = new Thread[root.activeCount() + 16];
        int n = root.enumerate(threads, true);
        if (n == threads.length) {
            return false; // more threads than the array holds: do not guess
        }
        for (int i = 0; i < n; i++) {
            Thread t = threads[i];
            if (t != Thread.currentThread() && t.isAlive() && !t.isDaemon()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Runs one invocation as if called by {@code argv0}; returns the exit code. Never throws:
     * picocli hands only Exceptions to Cli's handler, so an Error (a LinkageError from a native
     * library, a StackOverflowError) is reported here, in the same one-line form, exit 1.
     */
    public static int run(String argv0, String[] args, PrintWriter out, PrintWriter err) {
        return run(argv0, args, out, err, null, null);
    }

    /**
     * As {@link #run(String, String[], PrintWriter, PrintWriter)}; {@code refusal}, when not null,
     * sees the parsed command before it runs (its picocli user object) and returns why it must not
     * run, or null. A refused command prints that reason in one line and exits with the usage code.
     * {@code trees}, when not null, holds the command trees of earlier runs to parse again
     * (a batch's lines: {@link Cli.Trees}).
     */
    static int run(String argv0, String[] args, PrintWriter out, PrintWriter err,
                   java.util.function.Function<Object, String> refusal, Cli.Trees trees) {
        try {
            return dispatch(argv0, args, out, err, refusal, trees);
        } catch (OutOfMemoryError e) {
            // Without building a message or a color scheme: the heap is what ran out.
            try {
                err.print(OUT_OF_MEMORY_TEXT);
                err.flush();
            } catch (RuntimeException | Error ignored) {
                // Nowhere to say it: the exit code does.
            }
            return Cause.OS_ERROR.exitCode();
        } catch (Throwable t) {
            return Cli.report(t, err, CommandLine.Help.defaultColorScheme(CommandLine.Help.Ansi.AUTO));
        }
    }

    private static int dispatch(String argv0, String[] args, PrintWriter out, PrintWriter err,
                                java.util.function.Function<Object, String> refusal, Cli.Trees trees) {
        if (argv0.equals("hwtool") && args.length == 1 && (args[0].equals("--version") || args[0].equals("-V"))) {
            // What picocli's mixinStandardHelpOptions prints (CommandLine.printVersionHelp: each
            // line of the version provider), without building its model: reading the @Command
            // annotation alone makes the JDK generate annotation proxy classes, most of the start-up.
            for (String line : new Version().getVersion()) {
                out.println(line);
            }
            out.flush();
            return ExitCodes.OK;
        }
        if (argv0.equals("hwtool") && args.length == 2 && args[0].equals("aot-train")
                && AotTrainCommand.FAMILIES.contains(args[1])) {
            return AotTrainCommand.train(args[1]);
        }
        if (argv0.equals("hwtool")) {
            args = BackendOptions.hoisted(args, words -> commandPathLength(words, trees));
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
        if (!argv0.equals("hwtool") && HwtoolCommand.SUBCOMMANDS.containsKey(argv0)) {
            effective = new String[args.length + 1];
            effective[0] = argv0;
            System.arraycopy(args, 0, effective, 1, args.length);
        }
        CommandLine cl = trees == null ? Cli.commandLine(out, err, effective) : Cli.commandLine(out, err, effective, trees);
        if (refusal != null) {
            cl.setExecutionStrategy(parsed -> {
                String why = helpAsked(parsed) ? null : refusal.apply(leaf(parsed).commandSpec().userObject());
                if (why == null) {
                    return new CommandLine.RunLast().execute(parsed);
                }
                err.println("hwtool: " + why);
                err.flush();
                return ExitCodes.USAGE;
            });
        }
        return cl.execute(effective);
    }

    /**
     * How many of {@code words} name a command and its subcommands ({@code msr restore}: 2);
     * rdmsr and wrmsr count as one. Only the words' own path of the tree is built.
     */
    private static int commandPathLength(java.util.List<String> words, Cli.Trees trees) {
        if (words.isEmpty()) {
            return 0;
        }
        if (CompatCommands.handles(words.getFirst())) {
            return 1;
        }
        PrintWriter none = new PrintWriter(java.io.Writer.nullWriter());
        String[] w = words.toArray(String[]::new);
        CommandLine c = trees == null ? Cli.commandLine(none, none, w) : Cli.commandLine(none, none, w, trees);
        int n = 0;
        while (n < words.size() && c.getSubcommands().containsKey(words.get(n))) {
            c = c.getSubcommands().get(words.get(n));
            n++;
        }
        return n;
    }

    private static CommandLine.ParseResult leaf(CommandLine.ParseResult p) {
        return p.hasSubcommand() ? leaf(p.subcommand()) : p;
    }

    /** --help or --version anywhere on the line: picocli prints it and runs nothing. */
    private static boolean helpAsked(CommandLine.ParseResult p) {
        return p.isUsageHelpRequested() || p.isVersionHelpRequested() || (p.hasSubcommand() && helpAsked(p.subcommand()));
    }
}
