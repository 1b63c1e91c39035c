package dev.hwtool.elf;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.io.BoundedText;
import dev.hwtool.io.TerminalText;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Files read through a read-only mapping (perf.data recordings, ELF files; here, beside the ELF
 * reader, because a mapping is a java.lang.foreign segment, which the api module does not use): the mapping lives in
 * a shared arena that the reader built from it owns and closes; if the reader cannot be built,
 * the arena is closed here, so a bad file never leaks a mapping. Only regular files are mapped:
 * a FIFO or a device is refused before it is opened, so it can neither block nor stream
 * endlessly. A file of any size is mapped (address space, not memory); its readers walk it in
 * place.
 */
public final class MappedFiles {

    /** Builds a reader over a mapped file; it owns {@code arena} from then on. */
    @FunctionalInterface
    public interface Reader<T> {
        T read(Arena arena, MemorySegment contents);
    }

    private MappedFiles() {
    }

    /**
     * Maps {@code file} read-only and hands it to {@code reader}.
     *
     * @throws HwException BAD_INPUT (one line, naming the file) when the file cannot be read;
     *                     whatever {@code reader} throws, after the mapping is released
     */
    public static <T> T open(Path file, Reader<T> reader) {
        if (!Files.isRegularFile(file)) {
            // Before open(2): a FIFO's open blocks until a writer comes, a device has no size to map.
            String why = !Files.exists(file) ? "no such file" : Files.isDirectory(file) ? "is a directory"
                    : "not a regular file (a pipe, socket or device cannot be mapped)";
            throw new HwException(Cause.BAD_INPUT, TerminalText.quote(file.toString()) + ": cannot read: " + why);
        }
        Arena arena = Arena.ofShared();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            return reader.read(arena, ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size(), arena));
        } catch (IOException | SecurityException | UnsupportedOperationException e) {
            arena.close();
            String why = e instanceof IOException io ? BoundedText.reason(io)
                    : TerminalText.quote(String.valueOf(e.getMessage()), 200);
            throw new HwException(Cause.BAD_INPUT, TerminalText.quote(file.toString()) + ": cannot read: " + why, null, e);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }
}
