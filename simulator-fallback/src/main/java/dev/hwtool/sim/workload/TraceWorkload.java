package dev.hwtool.sim.workload;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.io.BoundedText;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Branches read from a trace file ({@link TraceParser} has the format), or from standard input
 * when the file is "-". The file is read as a stream, never held in memory.
 *
 * <p>All or nothing where that is possible: a regular file is read twice, first to check every
 * line, then to retire, so a bad line retires nothing. Standard input, pipes and devices can
 * be read once only, so they are checked as they are retired and a bad line stops the run
 * after the branches before it (the message says how many). UTF-8 text only: the first byte
 * that is not text ends the run ({@link BoundedText}). Standard input is not closed.
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
            new TraceParser(STDIN_NAME).run(System.in, cpu);
            return;
        }
        TraceParser parser = new TraceParser(file.toString());
        if (Files.isRegularFile(file)) {
            try (InputStream in = Files.newInputStream(file)) {
                parser.check(in);
            } catch (IOException e) {
                throw BoundedText.unreadable(file.toString(), e);
            }
        }
        try (InputStream in = Files.newInputStream(file)) {
            parser.run(in, cpu);
        } catch (IOException e) {
            throw BoundedText.unreadable(file.toString(), e);
        }
    }

    @Override
    public String describe() {
        return KIND + " " + file;
    }
}
