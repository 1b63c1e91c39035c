package dev.hwtool.sim.workload;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Branches read from a trace file ({@link TraceParser} has the format), or from standard input
 * when the file is "-". The file is read as a stream, never held in memory.
 *
 * <p>All or nothing where that is possible: a regular file is read twice, first to check every
 * line, then to retire, so a bad line retires nothing. Standard input, pipes and devices can
 * be read once only, so they are checked as they are retired and a bad line stops the run
 * after the branches before it (the message says how many). UTF-8; a malformed byte becomes
 * U+FFFD and so a bad token, unless it sits in a comment. Standard input is not closed.
 *
 * @param file the trace, or "-" for standard input
 */
public record TraceWorkload(Path file) implements Workload {

    static final String KIND = "trace";
    static final String STDIN = "-";
    private static final String STDIN_NAME = "<stdin>";

    public TraceWorkload {
        if (file == null) {
            throw new HwException(Cause.BAD_INPUT, KIND + ": no file given");
        }
    }

    /** The trace on standard input. */
    public static TraceWorkload stdin() {
        return new TraceWorkload(Path.of(STDIN));
    }

    public boolean isStdin() {
        return file.toString().equals(STDIN);
    }

    @Override
    public void run(Retirement cpu) {
        if (isStdin()) {
            new TraceParser(STDIN_NAME).run(reader(System.in), cpu);
            return;
        }
        TraceParser parser = new TraceParser(file.toString());
        if (Files.isRegularFile(file)) {
            try (Reader in = open()) {
                parser.check(in);
            } catch (IOException e) {
                throw unreadable(e);
            }
        }
        try (Reader in = open()) {
            parser.run(in, cpu);
        } catch (IOException e) {
            throw unreadable(e);
        }
    }

    @Override
    public String describe() {
        return KIND + " " + file;
    }

    private Reader open() throws IOException {
        return reader(Files.newInputStream(file));
    }

    private static Reader reader(InputStream in) {
        return new InputStreamReader(in, StandardCharsets.UTF_8);
    }

    private HwException unreadable(IOException e) {
        String name = Lexical.escape(file.toString());
        String why = e instanceof NoSuchFileException ? "no such file"
                : e instanceof AccessDeniedException ? "permission denied"
                : "cannot read: " + Lexical.show(String.valueOf(e.getMessage()));
        return new HwException(Cause.BAD_INPUT, name + ": " + why, null, e);
    }
}
