package dev.hwtool.cli;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/**
 * Checks before anything is started that a command can run, as execvp(3) looks it up: a name
 * with a slash is a path; any other is searched in PATH (an empty entry is the current
 * directory). A failure carries the shell's status: 127 not found, 126 found but not executable
 * (POSIX, "Command Search and Execution"), which is also what the held shell would exit with.
 */
final class CommandPath {

    static final int NOT_FOUND = 127;
    static final int NOT_EXECUTABLE = 126;

    /** The command cannot run: a one-line message and the shell's status for it. */
    static final class NotRunnable extends RuntimeException {
        final int status;

        NotRunnable(String message, int status) {
            super(message);
            this.status = status;
        }
    }

    private CommandPath() {
    }

    /** The file {@code name} runs, or NotRunnable. */
    static Path resolve(String name, String pathVariable) {
        if (name.isEmpty()) {
            throw new NotRunnable("'': command not found", NOT_FOUND);
        }
        try {
            if (name.contains("/")) {
                return check(Path.of(name), name);
            }
            Path foundNotExecutable = null;
            for (String dir : (pathVariable == null ? "" : pathVariable).split(File.pathSeparator, -1)) {
                Path p = Path.of(dir.isEmpty() ? "." : dir, name);
                if (Files.isRegularFile(p)) {
                    if (Files.isExecutable(p)) {
                        return p;
                    }
                    foundNotExecutable = p;
                }
            }
            if (foundNotExecutable != null) {
                throw new NotRunnable(name + ": permission denied (" + foundNotExecutable + " is not executable)",
                        NOT_EXECUTABLE);
            }
            throw new NotRunnable(name + ": command not found (not in PATH)", NOT_FOUND);
        } catch (InvalidPathException e) {
            throw new NotRunnable(name + ": command not found (not a valid path)", NOT_FOUND);
        }
    }

    private static Path check(Path p, String name) {
        if (!Files.exists(p)) {
            throw new NotRunnable(name + ": no such file", NOT_FOUND);
        }
        if (Files.isDirectory(p)) {
            throw new NotRunnable(name + ": is a directory", NOT_EXECUTABLE);
        }
        if (!Files.isExecutable(p)) {
            throw new NotRunnable(name + ": permission denied (not executable)", NOT_EXECUTABLE);
        }
        return p;
    }
}
