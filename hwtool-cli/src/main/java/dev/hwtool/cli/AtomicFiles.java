package dev.hwtool.cli;

import dev.hwtool.io.OutputFile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The undo journal's whole-file replacement, now through the one output policy
 * ({@link OutputFile}: temporary file, fsync, rename, directory fsync; no debris on a signal).
 * Kept only for {@link MsrJournal}, which creates its state directory first and keeps the journal
 * private (0600, as before); every other writer
 * uses {@link OutputFile} directly.
 */
final class AtomicFiles {

    private AtomicFiles() {
    }

    static void write(Path target, byte[] content) throws IOException {
        Files.createDirectories(target.toAbsolutePath().getParent());
        OutputFile.write(target, content, OutputFile.Option.PRIVATE);
    }
}
