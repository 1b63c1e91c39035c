package dev.hwtool.cli;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * Many commands in one JVM: each line holds the words that would follow {@code hwtool} on a
 * command line. Every line runs as if started alone (Main.run: options reset to their initial
 * values, the parsed tree of the same commands reused only when its objects keep nothing else,
 * Cli.Trees; a new Platform, so a simulated machine starts from its boot values), writes to the
 * same standard output and error, flushed after the line, and has its own exit code.
 */
@Command(name = "batch", sortOptions = false,
        description = {"Run many commands in one process: one command per line, the words after 'hwtool'"
                + " quoted as in a POSIX shell (single quotes, double quotes, backslash; nothing is expanded),"
                + " '#' comments and blank lines allowed. Output is what the commands print when run one by one.",
                "Each line starts afresh (options, backend, simulated machine). Lines run until the input ends;"
                + " by default a failing line does not stop the others (as a shell script without set -e).",
                "Refused in a batch (exit 2): 'batch'; 'msr watch' without -n; and, when the batch is on standard"
                + " input: 'sim run -', a 'trace -' workload, and stat/lbr record/bts record running a program"
                + " on this machine (it would read the batch's lines)."},
        footer = {"", "Exit code: the first non-zero exit code of a line (2 for a line that does not parse, is refused,"
                + " or is longer than " + BatchLines.MAX_LINE + " bytes, which ends the batch), else 0. Standard output that"
                + " cannot be written ends the batch: 13, or 141 for a pipe closed early."})
final class BatchCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "FILE|-", description = "The commands (default -: standard input).")
    String file;

    @Option(names = "--keep-going", description = "Run every line, whatever the ones before returned (the default).")
    boolean keepGoing;

    @Option(names = "--stop-on-error", description = "Stop after the first line whose exit code is not 0.")
    boolean stopOnError;

    @Override
    public Integer call() {
        if (keepGoing && stopOnError) {
            throw new UsageException("--keep-going and --stop-on-error exclude each other; give one");
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        boolean onStdin = file == null || file.equals("-");
        InputStream stdin = System.in;
        if (!onStdin) {
            try (InputStream in = open(file)) {
                return run(new BatchLines(in), false, out, err);
            } catch (IOException e) {
                throw new HwException(Cause.BAD_INPUT, "batch: cannot read " + file + ": " + e.getMessage());
            }
        }
        // In-process readers of System.in (a trace workload in a scenario) fail in one line
        // instead of eating the batch's lines; the refusals below catch the known ones earlier.
        // Standard input itself is left open: it is the process's, not the batch's.
        System.setIn(new TakenStdin());
        try {
            return run(new BatchLines(stdin), true, out, err);
        } catch (IOException e) {
            throw new HwException(Cause.BAD_INPUT, "batch: cannot read standard input: " + e.getMessage());
        } finally {
            System.setIn(stdin);
        }
    }

    private int run(BatchLines lines, boolean onStdin, PrintWriter out, PrintWriter err) throws IOException {
        Cli.Trees trees = new Cli.Trees();
        int first = ExitCodes.OK;
        int number = 0;
        for (BatchLines.Line line = lines.next(); line != null; line = lines.next()) {
            number++;
            int code = switch (line) {
                case BatchLines.TooLong t -> lineError(err, number, "longer than " + BatchLines.MAX_LINE
                        + " bytes; the batch stops here");
                case BatchLines.NotText n -> lineError(err, number, n.what() + ": binary input is not command lines;"
                        + " the batch stops here");
                case BatchLines.Text t -> runLine(t.text(), number, onStdin, out, err, trees);
            };
            try {
                out.flush();
            } catch (StdStream.Failed e) {
                // Recorded: ends the batch just below.
            }
            err.flush();
            StdStream failed = ByteOut.failed(out);
            if (failed != null) {
                // Standard output is gone (a full disk, a closed pipe): the lines after this one
                // would print for nobody. Main reports it (a closed pipe quietly).
                return failed.exitCode();
            }
            if (first == ExitCodes.OK) {
                first = code;
            }
            if (line instanceof BatchLines.TooLong || line instanceof BatchLines.NotText
                    || (code != ExitCodes.OK && stopOnError)) {
                break;
            }
        }
        return first;
    }

    private static int runLine(String text, int number, boolean onStdin, PrintWriter out, PrintWriter err, Cli.Trees trees) {
        List<String> words;
        try {
            words = BatchWords.split(text);
        } catch (BatchWords.SyntaxError e) {
            return lineError(err, number, e.getMessage());
        }
        if (words.isEmpty()) {
            return ExitCodes.OK;
        }
        return Main.run("hwtool", words.toArray(String[]::new), out, err, command -> {
            String why = refusal(command, onStdin);
            return why == null ? null : "batch line " + number + ": " + why;
        }, trees);
    }

    private static int lineError(PrintWriter err, int number, String message) {
        err.println("hwtool: batch line " + number + ": " + message);
        return ExitCodes.USAGE;
    }

    /** Why a parsed command cannot be a batch line, or null. */
    static String refusal(Object command, boolean onStdin) {
        return switch (command) {
            case BatchCommand b -> "a batch cannot run 'batch'";
            case MsrWatchCommand w when w.count == null ->
                    "'msr watch' without -n runs until interrupted, and the lines after it would never run; give -n N";
            case SimMountCommand m -> "'sim mount' serves until interrupted, and the lines after it would never run;"
                    + " run it on its own";
            case ExporterCommand x -> "'exporter' serves until interrupted, and the lines after it would never run;"
                    + " run it on its own";
            case SimExecCommand x when onStdin -> "'sim exec' runs a program, which would read the batch's own lines"
                    + " from standard input; give the batch as a file";
            case SimRunCommand s when onStdin && "-".equals(s.script) ->
                    "'sim run -' would read the batch's own lines; give the script as a file";
            case StatCommand s when onStdin -> program(s.command, s.backend, "stat");
            case LbrRecordCommand r when onStdin -> program(r.record.words, r.backend, "lbr record");
            case BtsRecordCommand r when onStdin -> program(r.record.words, r.backend, "bts record");
            case SampleRecordCommand r when onStdin -> program(r.words, r.backend, "record");
            default -> null;
        };
    }

    /** A program run on this machine inherits standard input (HeldChild), and so does a trace read from '-'. */
    private static String program(List<String> words, BackendOptions backend, String name) {
        boolean simulated;
        try {
            simulated = backend.simulated();
        } catch (UsageException e) {
            return null; // the command itself reports its bad options, as when run alone
        }
        if (!simulated) {
            return "'" + name + "' runs a program, which would read the batch's own lines from standard input;"
                    + " give the batch as a file";
        }
        if (words != null && words.size() == 2 && words.get(0).equals("trace") && words.get(1).equals("-")) {
            return "a 'trace -' workload would read the batch's own lines; give the trace as a file";
        }
        return null;
    }

    private static InputStream open(String file) {
        try {
            return Files.newInputStream(Path.of(file));
        } catch (java.nio.file.NoSuchFileException e) {
            throw new HwException(Cause.BAD_INPUT, "batch: cannot read " + file + ": no such file");
        } catch (java.nio.file.AccessDeniedException e) {
            throw new HwException(Cause.BAD_INPUT, "batch: cannot read " + file + ": permission denied");
        } catch (IOException | java.nio.file.InvalidPathException e) {
            throw new HwException(Cause.BAD_INPUT, "batch: cannot read " + file + ": " + e.getMessage());
        }
    }

    /** Standard input while the batch reads it: every read fails, in one line. */
    private static final class TakenStdin extends InputStream {
        @Override
        public int read() throws IOException {
            throw new IOException("standard input carries the batch's command lines");
        }
    }
}
