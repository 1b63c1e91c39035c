package dev.hwtool.qemu;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;

/**
 * What one boot left behind: the serial console, the guest command's exit status and the
 * directory the guest wrote its results into (a writable 9p export).
 *
 * @param guestExit the exit status of the guest command, empty if it never finished
 * @param qemuExit  qemu's own exit status, or -1 if it was killed at the time limit
 */
record GuestRun(String name, String console, String qemuOutput, OptionalInt guestExit, int qemuExit, boolean timedOut,
                Duration elapsed, Path outDir) {

    /** Marks a line of the init script's own progress and failures on the console. */
    static final String INIT_MARK = "HWTOOL-INIT";

    /** The last {@code n} lines of the console. */
    String consoleTail(int n) {
        List<String> lines = console.lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - n), lines.size()));
    }

    /**
     * Throws, with the reason and the tail of the console, unless the guest booted, ran its
     * command to the end and powered off in time.
     */
    GuestRun requireCompleted() {
        String problem = timedOut ? "did not power off within " + elapsed.toSeconds() + " s"
                : guestExit.isEmpty() ? "ended (qemu exit " + qemuExit + ") before its command finished"
                : null;
        if (problem != null) {
            throw new IllegalStateException("QEMU guest '" + name + "' " + problem + "; qemu said: "
                    + (qemuOutput.isBlank() ? "nothing" : qemuOutput.strip()) + "\n--- last console lines\n"
                    + consoleTail(40));
        }
        return this;
    }

    /** A file the guest wrote into its results directory, empty text if it wrote none. */
    String outFile(String fileName) {
        Path file = outDir.resolve(fileName);
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }
}
