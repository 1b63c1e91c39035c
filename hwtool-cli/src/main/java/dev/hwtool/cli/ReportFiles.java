package dev.hwtool.cli;

import dev.hwtool.io.OutputFile;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A report's --folded file: opened (checked, and prepared under the output policy) before the
 * recording is read, so a file that cannot be written fails first; written whole or not at all.
 */
final class ReportFiles {

    private ReportFiles() {
    }

    /** The opened output, or null without --folded. */
    static OutputFile open(Path file) {
        return file == null ? null : OutputFile.open(file);
    }

    static void write(OutputFile out, String text) {
        out.write(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)));
        out.commit();
    }
}
