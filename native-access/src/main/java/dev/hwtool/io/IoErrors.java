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

    /** EPIPE (asm-generic/errno-base.h). */
    private static final int EPIPE = 32;

    /**
     * Whether {@code reason} (from {@link #reason}) is EPIPE's: a pipe whose reader went away.
     * The JDK's write errors carry strerror's text in the process's locale (libjava calls
     * setlocale(LC_ALL, "") when it reads the host's locale, java_props_md.c), so besides glibc's
     * C-locale "Broken pipe" the text is compared with libc's own strerror(EPIPE), asked only
     * here, on a failure.
     */
    public static boolean brokenPipe(String reason) {
        if (reason == null) {
            return false;
        }
        if (reason.equals(dev.hwtool.bind.Errno.strerror(EPIPE))) {
            return true;
        }
        String local = LocalEpipe.TEXT;
        return local != null && reason.equals(local);
    }

    /** strerror(EPIPE) of the running libc, in this process's locale; null if it cannot be asked. */
    private static final class LocalEpipe {
        static final String TEXT = text();

        private static String text() {
            try {
                java.lang.foreign.Linker linker = java.lang.foreign.Linker.nativeLinker();
                java.lang.invoke.MethodHandle strerror = linker.downcallHandle(
                        linker.defaultLookup().find("strerror").orElseThrow(),
                        java.lang.foreign.FunctionDescriptor.of(java.lang.foreign.ValueLayout.ADDRESS,
                                java.lang.foreign.ValueLayout.JAVA_INT));
                java.lang.foreign.MemorySegment s = (java.lang.foreign.MemorySegment) strerror.invokeExact(EPIPE);
                return s.reinterpret(4096).getString(0);
            } catch (Throwable t) {
                return null; // no native access: the C-locale text alone
            }
        }
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
