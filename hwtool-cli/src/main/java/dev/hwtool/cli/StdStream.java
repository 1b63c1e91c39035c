package dev.hwtool.cli;

import dev.hwtool.api.Cause;
import dev.hwtool.io.Descriptors;
import dev.hwtool.io.IoErrors;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * Standard output or standard error as hwtool writes them: every byte goes straight to the
 * descriptor (the buffering is the writer's above it), and the first failure is kept with its
 * errno in words. {@link System#out} cannot be used for this: a PrintStream swallows the
 * IOException and keeps only a flag (PrintStream.checkError), losing ENOSPC from EIO from EBADF.
 * FileOutputStream.write throws an IOException whose message is strerror's text
 * (io_util.c writeBytes, JNU_ThrowIOExceptionWithLastError: "No space left on device").
 *
 * <p>Standard output <b>stops the command</b> at its first failed write: the write throws
 * {@link Failed}, an unchecked exception that PrintWriter and OutputStreamWriter let through
 * (they catch IOException only), so a long listing to a full disk or a closed pipe ends at
 * once instead of computing the rest for nobody; every later write throws again. Standard error
 * only records its failure and drops the rest: it carries the messages, and a command must still
 * end with its own exit code when they cannot be shown. {@link Main} turns a failure into the
 * exit code and the one line (see {@link #exitCode()} and {@link #message()}).
 */
final class StdStream extends OutputStream {

    /** 128 + SIGPIPE (13, signal(7)): the status a shell reports for a program SIGPIPE ended. */
    static final int BROKEN_PIPE_EXIT = 141;

    private final OutputStream out;
    private final int fd;
    private final String name;
    private final boolean stops;
    private boolean checked;
    private String failure;

    private StdStream(OutputStream out, int fd, String name, boolean stops) {
        this.out = out;
        this.fd = fd;
        this.name = name;
        this.stops = stops;
    }

    /** Descriptor 1; a failed write throws {@link Failed}. */
    static StdStream stdout() {
        return new StdStream(new FileOutputStream(FileDescriptor.out), 1, "standard output", true);
    }

    /**
     * For the build's AOT training (AotTrainCommand): standard output's checks, writing nowhere, so
     * that what a real run's first write loads (the descriptor policy) is in the cache.
     */
    static StdStream discardingStdout() {
        return new StdStream(OutputStream.nullOutputStream(), 1, "standard output", true);
    }

    /** Descriptor 2; a failed write is recorded and the rest dropped. */
    static StdStream stderr() {
        return new StdStream(new FileOutputStream(FileDescriptor.err), 2, "standard error", false);
    }

    @Override
    public void write(int b) {
        write(new byte[]{(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) {
        if (failure == null && !checked) {
            checked = true;
            // Launched without the launchers, with this descriptor closed at start, it may be a
            // file the runtime opened (Descriptors): never write there.
            String why = Descriptors.notPassed(fd);
            if (why != null) {
                failure = why;
            }
        }
        if (failure == null) {
            try {
                out.write(b, off, len);
                return;
            } catch (IOException e) {
                failure = IoErrors.reason(e);
            }
        }
        if (stops) {
            throw new Failed(this);
        }
    }

    @Override
    public void flush() {
        // Nothing buffered here: FileOutputStream writes at once.
    }

    /** The reason of the first failed write, in words, or null. */
    String failure() {
        return failure;
    }

    /** Whether the failure is a pipe whose reader went away (EPIPE). */
    boolean brokenPipe() {
        return dev.hwtool.bind.Errno.isBrokenPipe(failure);
    }

    /** 141 for a closed pipe (quiet, as a program SIGPIPE ends), else 13 (an output that cannot be written). */
    int exitCode() {
        return brokenPipe() ? BROKEN_PIPE_EXIT : Cause.OS_ERROR.exitCode();
    }

    /** The one line for a failure that is not a closed pipe. */
    String message() {
        return "hwtool: cannot write " + name + ": " + failure;
    }

    /** Thrown by a failed write to standard output, and by every write after it. */
    static final class Failed extends RuntimeException {
        private final transient StdStream stream;

        Failed(StdStream stream) {
            super("cannot write " + stream.name + ": " + stream.failure, null, false, false);
            this.stream = stream;
        }

        StdStream stream() {
            return stream;
        }
    }
}
