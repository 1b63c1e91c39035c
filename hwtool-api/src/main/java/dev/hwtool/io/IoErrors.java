package dev.hwtool.io;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;

/**
 * The reason of an I/O failure in the words of strerror(3) ("No space left on device"), without
 * the path Java repeats in its messages, and the one error every file writer of hwtool reports.
 *
 * <p>Java's file system layer turns errno into exceptions in {@code sun.nio.fs.UnixException
 * .translateToIOException}: EACCES, ENOENT and EEXIST become {@link AccessDeniedException},
 * {@link NoSuchFileException} and {@link FileAlreadyExistsException} with no reason text (their
 * message is the bare path: "cannot write x: x"); every other errno becomes a
 * {@link FileSystemException} whose reason is strerror's text. FileChannel's read, write and
 * force throw a plain IOException whose message is strerror's text (JNU_ThrowIOExceptionWithLastError).
 */
public final class IoErrors {

    private IoErrors() {
    }

    /** "Permission denied", "No space left on device", ...: the reason alone, one line. */
    public static String reason(IOException e) {
        String why = switch (e) {
            case AccessDeniedException a when a.getReason() == null -> "Permission denied";
            case NoSuchFileException n when n.getReason() == null -> "No such file or directory";
            case FileAlreadyExistsException f when f.getReason() == null -> "File exists";
            case NotDirectoryException n when n.getReason() == null -> "Not a directory";
            case DirectoryNotEmptyException d when d.getReason() == null -> "Directory not empty";
            case FileSystemException f when f.getReason() != null -> f.getReason();
            default -> e.getMessage();
        };
        if (why == null || why.isBlank()) {
            return e.getClass().getSimpleName();
        }
        return why.lines().findFirst().orElse(why).strip();
    }

    /**
     * The failure to write an output file: {@link Cause#OS_ERROR} (exit 13) whatever the errno,
     * so that a script tells "the output could not be written" by one code; the message says which
     * errno: {@code cannot write FILE: No space left on device}.
     *
     * @param detail what was being done, e.g. "cannot create a file in /ro", or null
     */
    public static HwException cannotWrite(Path file, String detail, IOException e) {
        return cannotWrite(file, (detail == null ? "" : detail + ": ") + reason(e), remedy(e), e);
    }

    /** As {@link #cannotWrite(Path, String, IOException)}, with the reason already in words. */
    public static HwException cannotWrite(Path file, String reason, String remedy, Throwable underlying) {
        return new HwException(Cause.OS_ERROR, "cannot write " + file + ": " + reason, remedy, underlying);
    }

    private static String remedy(IOException e) {
        String why = reason(e);
        if (why.equals("Read-only file system") || why.equals("Permission denied")) {
            return "write to a place you may write to";
        }
        return null;
    }
}
