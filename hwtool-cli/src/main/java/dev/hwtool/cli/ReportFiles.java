package dev.hwtool.cli;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** Files a report writes beside its output (--folded): whole or not at all. */
final class ReportFiles {

    private ReportFiles() {
    }

    static void write(Path file, String text, String what) {
        try {
            AtomicFiles.write(file, text.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new HwException(Cause.BAD_INPUT, what + ": cannot write " + file + ": " + e.getMessage());
        }
    }
}
