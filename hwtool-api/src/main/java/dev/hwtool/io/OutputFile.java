package dev.hwtool.io;

import dev.hwtool.api.HwException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * hwtool's one way to write an output file ({@code -o} of every command, {@code --folded},
 * {@code msr save}): the target is checked and prepared when the file is opened, before any
 * work; the content is written; {@link #commit()} makes it appear, and {@link #close()} without
 * a commit leaves the target as it was.
 *
 * <ul>
 * <li><b>A regular file</b> (or a path that does not exist yet) is replaced atomically: the
 *     content goes to a temporary file {@code .NAME.XXXXXXXXXXXXXXXX.tmp} in the same directory,
 *     which is fsync'd and renamed over the target (rename(2) replaces atomically within a file
 *     system, POSIX rename), and the directory is fsync'd so that the rename persists. On any
 *     failure (ENOSPC, EDQUOT, EIO, EROFS, EACCES, a signal: see {@link ExitCleanup}) the previous
 *     file is untouched and the temporary file is gone. A replaced file keeps its mode (and its
 *     owner and group where this process may set them, i.e. as root); a new file gets mode
 *     0666 minus the umask, as the shell's {@code >} and creat(2) give (0644 under the usual
 *     umask 022).</li>
 * <li><b>A symbolic link to a regular file</b> is followed: the file it points to is replaced,
 *     the link stays a link.</li>
 * <li><b>A special file</b> (character or block device, FIFO, socket) and <b>a descriptor link</b>
 *     ({@code /dev/stdout}, {@code /dev/fd/N}, {@code /proc/self/fd/N}: whatever the descriptor
 *     is) are opened and written through, never renamed over; a descriptor of this process only
 *     when its caller passed it ({@link Descriptors}), never one the Java runtime opened itself. A descriptor that is a regular file
 *     is appended to (what the shell's {@code >} or {@code >>} opened it for). A FIFO is opened
 *     when the content is ready, since opening a FIFO for writing blocks until a reader comes
 *     (fifo(7)). Whoever needs to seek ({@link #channel()}) on a target that cannot (a pipe, a
 *     terminal) writes to an unlinked spool file in java.io.tmpdir, copied through at commit.
 *     What was written to a device cannot be taken back.</li>
 * <li><b>A directory</b>, a path in <b>a missing directory</b> (never created silently) and a
 *     place where no file can be created fail in {@link #open}, before any work.</li>
 * <li>{@link Option#KEEP_OLD}: perf record's convention for perf.data, for regular files only: the
 *     previous file becomes {@code NAME.old} when the new one is committed (as a hard link, so
 *     that NAME never disappears; a rename where the file system has no hard links).</li>
 * <li>{@link Option#LIVE}: a log that is read while it grows; a regular file is truncated and
 *     written in place instead of replaced.</li>
 * </ul>
 * Every failure is one {@link HwException} from {@link IoErrors#cannotWrite}: exit code 13, the
 * path and the errno in words ({@code cannot write /dev/full: No space left on device}).
 *
 * <p>Not thread-safe: one writer at a time.
 */
public final class OutputFile implements AutoCloseable {

    /** How a target is written. */
    public enum Option {
        /** perf record's NAME.old: an existing regular file is kept beside the new one (special files: ignored). */
        KEEP_OLD,
        /** A new file is 0600 (state only its owner should read, such as the undo journal); a replaced one keeps its mode. */
        PRIVATE,
        /**
         * A log read while it is written (sim mount's {@code --trace}): a regular file is truncated
         * and written in place, as the shell's {@code >} does, so that a reader ({@code tail -f})
         * sees each line as it is written; what was written stays when a later write fails. Every
         * other rule (directories, missing directories, special files, descriptors) is the same.
         */
        LIVE
    }

    /** How a target is written: replaced through a temporary file, or written through, seekable or not. */
    public enum Kind {
        /** A regular file (or none yet): a temporary file renamed over it at commit. */
        REPLACE,
        /** A special file that can seek (a block device, /dev/null): written in place. */
        THROUGH,
        /** A special file that cannot seek (a FIFO, a pipe, a terminal): written as a stream. */
        STREAM
    }

    /** A new file's mode before the umask: rw-rw-rw-, as creat(2) callers such as the shell use. */
    public static final Set<PosixFilePermission> NEW_FILE_MODE = PosixFilePermissions.fromString("rw-rw-rw-");
    /** A new file's mode with {@link Option#PRIVATE}. */
    public static final Set<PosixFilePermission> PRIVATE_FILE_MODE = PosixFilePermissions.fromString("rw-------");

    /** Linux's limit on symbolic links followed in one lookup (MAXSYMLINKS, include/linux/namei.h). */
    private static final int MAX_LINKS = 40;
    /** S_IFMT and the file types of stat(2) (include/uapi/linux/stat.h). */
    private static final int S_IFMT = 0170000;
    private static final int S_IFIFO = 0010000;
    private static final int S_IFCHR = 0020000;
    private static final int S_IFBLK = 0060000;
    private static final int S_IFREG = 0100000;
    private static final int S_IFDIR = 0040000;

    private final Path target;
    private final Path file;
    private final Kind kind;
    private final int type;
    private final boolean append;
    private final boolean keepOld;
    private final Path temp;
    private final ExitCleanup.Registration tempRegistration;
    private FileChannel channel;
    private FileChannel spool;
    private boolean streamed;
    private boolean committed;
    private boolean closed;

    private OutputFile(Path target, Path file, Kind kind, int type, boolean append, boolean keepOld, Path temp,
                       ExitCleanup.Registration tempRegistration, FileChannel channel) {
        this.target = target;
        this.file = file;
        this.kind = kind;
        this.type = type;
        this.append = append;
        this.keepOld = keepOld;
        this.temp = temp;
        this.tempRegistration = tempRegistration;
        this.channel = channel;
    }

    /**
     * Checks {@code target} and prepares it: for a regular file, creates the temporary file; for
     * a special file, opens it (a FIFO: checks it may be written).
     *
     * @throws HwException OS_ERROR (exit 13) when nothing can be written there, naming the reason
     */
    public static OutputFile open(Path target, Option... options) {
        boolean keepOld = List.of(options).contains(Option.KEEP_OLD);
        boolean live = List.of(options).contains(Option.LIVE);
        Set<PosixFilePermission> newMode = List.of(options).contains(Option.PRIVATE) ? PRIVATE_FILE_MODE : NEW_FILE_MODE;
        Path abs = target.toAbsolutePath();
        Resolved r;
        try {
            r = resolve(abs);
        } catch (IOException e) {
            throw IoErrors.cannotWrite(target, null, e);
        }
        if (r.fd() >= 0) {
            // Only a descriptor the caller passed is written through: one the Java runtime opened
            // (its lib/modules, a jar) is a file nobody named (Descriptors).
            String why = Descriptors.notPassed(r.fd());
            if (why != null) {
                throw IoErrors.cannotWrite(target, why, "name a file, or give hwtool the descriptor from the shell"
                        + " (e.g. '> FILE' for /dev/stdout, '3> FILE' for /dev/fd/3)", null);
            }
        }
        Map<String, Object> attrs;
        try {
            attrs = Files.readAttributes(r.file(), "unix:mode,uid,gid");
        } catch (NoSuchFileException e) {
            if (r.descriptor()) {
                throw IoErrors.cannotWrite(target, null, e);
            }
            attrs = null;
        } catch (IOException e) {
            throw IoErrors.cannotWrite(target, null, e);
        }
        if (attrs == null) {
            checkDirectory(target, r.file().getParent());
            return live ? live(target, r.file(), newMode) : replace(target, r.file(), null, keepOld, newMode);
        }
        int mode = (Integer) attrs.get("mode");
        int type = mode & S_IFMT;
        if (type == S_IFDIR) {
            throw IoErrors.cannotWrite(target, "Is a directory", "give a file name, e.g. " + target.resolve("NAME"), null);
        }
        if (type == S_IFREG && !r.descriptor()) {
            if (keepOld && Files.isDirectory(old(r.file()), LinkOption.NOFOLLOW_LINKS)) {
                throw IoErrors.cannotWrite(target, old(r.file()) + ", where the previous file would be kept, is a directory",
                        "remove it, or write elsewhere", null);
            }
            return live ? live(target, r.file(), newMode) : replace(target, r.file(), attrs, keepOld, newMode);
        }
        return through(target, r, type);
    }

    /** Writes {@code content} to {@code target} under this policy: whole, or not at all. */
    public static void write(Path target, byte[] content, Option... options) {
        write(target, ByteBuffer.wrap(content), options);
    }

    /**
     * Writes {@code content}'s remaining bytes to {@code target} under this policy: whole, or not
     * at all (a buffer over memory held elsewhere, e.g. a recording's perf.data image, uncopied).
     */
    public static void write(Path target, ByteBuffer content, Option... options) {
        try (OutputFile out = open(target, options)) {
            out.write(content);
            out.commit();
        }
    }

    /** The path as given. */
    public Path target() {
        return target;
    }

    /** How the target is written. */
    public Kind kind() {
        return kind;
    }

    /**
     * Appends {@code bytes} (at the position of {@link #channel()} once that was asked for).
     *
     * @throws HwException OS_ERROR when the write fails; the output is then abandoned as by {@link #close()}
     */
    public void write(ByteBuffer bytes) {
        requireOpen();
        try {
            FileChannel c = kind == Kind.STREAM && spool == null ? stream() : channel();
            while (bytes.hasRemaining()) {
                c.write(bytes);
            }
            streamed = true;
        } catch (IOException e) {
            close();
            throw IoErrors.cannotWrite(target, null, e);
        }
    }

    /**
     * A channel that may be written anywhere (positional writes); its bytes from 0 to its size
     * become the content. The temporary file, the seekable special file itself, or a spool for one
     * that cannot seek. Do not close it: {@link #commit()} and {@link #close()} do.
     *
     * @throws HwException OS_ERROR when no spool can be made
     */
    public FileChannel channel() {
        requireOpen();
        if (channel != null && kind != Kind.STREAM) {
            return channel;
        }
        if (spool == null) {
            if (streamed) {
                throw new IllegalStateException("channel() after a streamed write to " + target);
            }
            spool = spool(target);
        }
        return spool;
    }

    /**
     * Makes the content appear: fsync and rename over the target (with {@link Option#KEEP_OLD},
     * the previous file becomes NAME.old), or for a special file, the spool copied through.
     *
     * @throws HwException OS_ERROR when it cannot; the target is then as it was (a regular file)
     */
    public void commit() {
        requireOpen();
        try {
            switch (kind) {
                case REPLACE -> {
                    channel.force(true);
                    channel.close();
                    ExitCleanup.guarded(() -> {
                        if (keepOld && Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
                            keepOld(file);
                        }
                        return Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
                    });
                    tempRegistration.close();
                    syncDirectory(file.getParent());
                }
                case THROUGH -> {
                    if (type == S_IFBLK) {
                        channel.force(true);
                    }
                    channel.close();
                }
                case STREAM -> {
                    FileChannel out = stream();
                    if (spool != null) {
                        long size = spool.size();
                        for (long at = 0; at < size; ) {
                            at += spool.transferTo(at, size - at, out);
                        }
                        spool.close();
                    }
                    if (type == S_IFREG) {
                        out.force(true);
                    }
                    out.close();
                }
            }
        } catch (IOException e) {
            close();
            throw IoErrors.cannotWrite(target, null, e);
        } catch (ExitCleanup.ExitingException e) {
            close();
            throw IoErrors.cannotWrite(target, "the process is ending", null, e);
        }
        committed = true;
        closed = true;
    }

    /** Abandons the output unless committed: the temporary file is deleted. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        closeQuietly(channel);
        closeQuietly(spool);
        if (temp != null) {
            deleteQuietly(temp);
            tempRegistration.close();
        }
    }

    // ---- opening ----------------------------------------------------------------------------------

    /**
     * The file to write after following symbolic links; {@code descriptor} when one was a
     * descriptor link; {@code fd} the number when it is a descriptor of this process, else -1.
     */
    private record Resolved(Path file, boolean descriptor, int fd) {
    }

    /**
     * Follows {@code abs} through symbolic links, one at a time (the directories on the way are
     * left as they are: a rename works through them). A link under /proc or /dev/fd names an open
     * descriptor (a "magic link", proc(5)): it is written through, whatever it points to. One of
     * this process's descriptors is recognised whatever the way there (/dev/stdout, /dev/fd/N,
     * /proc/self/fd/N, /proc/PID/fd/N, a link of the user's to any of them or to their
     * directory): readlink(2) of such a link gives the file behind it, so following it as text
     * would lead to that file (the runtime's lib/modules, when stdout was closed at start) as if
     * the user had named it.
     */
    private static Resolved resolve(Path abs) throws IOException {
        Path p = abs;
        for (int i = 0; i <= MAX_LINKS; i++) {
            int fd = Descriptors.ownDescriptor(p);
            if (fd >= 0) {
                return new Resolved(p, true, fd);
            }
            if (p.startsWith("/proc") || p.startsWith("/dev/fd")) {
                return new Resolved(p, true, -1);
            }
            if (!Files.isSymbolicLink(p)) {
                return new Resolved(p, false, -1);
            }
            p = p.resolveSibling(Files.readSymbolicLink(p));
        }
        throw new FileSystemException(abs.toString(), null, "Too many levels of symbolic links");
    }

    private static void checkDirectory(Path target, Path dir) {
        if (dir == null) {
            throw IoErrors.cannotWrite(target, "Is a directory", null, null);
        }
        Map<String, Object> attrs;
        try {
            attrs = Files.readAttributes(dir, "unix:mode");
        } catch (NoSuchFileException e) {
            throw IoErrors.cannotWrite(target, "directory " + dir + " does not exist (No such file or directory)",
                    "create it first (mkdir -p " + dir + "), or write elsewhere", e);
        } catch (IOException e) {
            throw IoErrors.cannotWrite(target, dir.toString(), e);
        }
        if (((Integer) attrs.get("mode") & S_IFMT) != S_IFDIR) {
            throw IoErrors.cannotWrite(target, dir + " is not a directory (Not a directory)", null, null);
        }
    }

    private static OutputFile replace(Path target, Path file, Map<String, Object> existing, boolean keepOld,
                                      Set<PosixFilePermission> newMode) {
        Path dir = file.getParent();
        String name = file.getFileName().toString();
        // NAME_MAX is 255 bytes: a long name is shortened in the temporary name only.
        String base = name.length() > 100 ? name.substring(0, 100) : name;
        for (int attempt = 0; ; attempt++) {
            Path temp = dir.resolve("." + base + "." + random() + ".tmp");
            ExitCleanup.Registration reg;
            try {
                reg = createRegistered(temp, existing == null ? newMode : PRIVATE_FILE_MODE);
            } catch (FileAlreadyExistsException e) {
                if (attempt < 100) {
                    continue;
                }
                throw IoErrors.cannotWrite(target, "cannot create a file in " + dir, e);
            } catch (IOException e) {
                throw IoErrors.cannotWrite(target, "cannot create a file in " + dir, e);
            } catch (ExitCleanup.ExitingException e) {
                throw IoErrors.cannotWrite(target, "the process is ending", null, e);
            }
            try {
                if (existing != null) {
                    keepAttributes(temp, existing);
                }
                return new OutputFile(target, file, Kind.REPLACE, S_IFREG, false, keepOld, temp, reg,
                        FileChannel.open(temp, StandardOpenOption.WRITE));
            } catch (IOException e) {
                deleteQuietly(temp);
                reg.close();
                throw IoErrors.cannotWrite(target, null, e);
            }
        }
    }

    /**
     * Creates {@code p} (O_CREAT|O_EXCL, {@code mode} before the umask) registered for deletion
     * if the process ends: the creation happens wholly before the exit sweep or not at all.
     */
    private static ExitCleanup.Registration createRegistered(Path p, Set<PosixFilePermission> mode) throws IOException {
        ExitCleanup.Registration reg = ExitCleanup.register(() -> deleteQuietly(p));
        try {
            ExitCleanup.guarded(() -> Files.createFile(p, PosixFilePermissions.asFileAttribute(mode)));
            return reg;
        } catch (IOException | RuntimeException e) {
            reg.close();
            throw e;
        }
    }

    private static String random() {
        return String.format("%016x", ThreadLocalRandom.current().nextLong());
    }

    /** The previous file's owner and group (where this process may set them) and its mode. */
    private static void keepAttributes(Path temp, Map<String, Object> existing) throws IOException {
        Map<String, Object> now = Files.readAttributes(temp, "unix:uid,gid");
        for (String id : new String[]{"uid", "gid"}) {
            if (!now.get(id).equals(existing.get(id))) {
                try {
                    Files.setAttribute(temp, "unix:" + id, existing.get(id));
                } catch (IOException e) {
                    // EPERM: only root (CAP_CHOWN) may give a file away; the new file is then the writer's own.
                }
            }
        }
        // After chown, which clears set-user-ID and set-group-ID (chown(2)).
        Files.setAttribute(temp, "unix:mode", (Integer) existing.get("mode") & 07777);
    }

    private static OutputFile through(Path target, Resolved r, int type) {
        boolean regular = type == S_IFREG; // only behind a descriptor link
        if (type == S_IFIFO && !r.descriptor()) {
            if (!Files.isWritable(r.file())) {
                throw IoErrors.cannotWrite(target, "Permission denied", null, null);
            }
            return new OutputFile(target, r.file(), Kind.STREAM, type, false, false, null, null, null);
        }
        FileChannel ch;
        try {
            ch = regular ? FileChannel.open(r.file(), StandardOpenOption.WRITE, StandardOpenOption.APPEND)
                    : FileChannel.open(r.file(), StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw IoErrors.cannotWrite(target, null, e);
        }
        boolean seekable = false;
        if (type == S_IFCHR || type == S_IFBLK) {
            try {
                ch.position(0); // lseek(2): ESPIPE on a terminal and other stream devices
                seekable = true;
            } catch (IOException e) {
                seekable = false;
            }
        }
        return new OutputFile(target, r.file(), seekable ? Kind.THROUGH : Kind.STREAM, type, regular, false, null, null, ch);
    }

    /** {@link Option#LIVE}: the regular file (or a new one, {@code newMode} before the umask) truncated and written as a stream. */
    private static OutputFile live(Path target, Path file, Set<PosixFilePermission> newMode) {
        try {
            FileChannel ch = FileChannel.open(file, Set.of(StandardOpenOption.WRITE, StandardOpenOption.CREATE,
                    StandardOpenOption.TRUNCATE_EXISTING), PosixFilePermissions.asFileAttribute(newMode));
            return new OutputFile(target, file, Kind.STREAM, S_IFREG, false, false, null, null, ch);
        } catch (IOException e) {
            throw IoErrors.cannotWrite(target, null, e);
        }
    }

    /** The special file as a stream, opened on first use (a FIFO blocks here until it has a reader). */
    private FileChannel stream() throws IOException {
        if (channel == null) {
            channel = append ? FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND)
                    : FileChannel.open(file, StandardOpenOption.WRITE);
        }
        return channel;
    }

    /**
     * An unlinked file in java.io.tmpdir for content that needs seeking on its way to a target
     * that cannot seek: it disappears with its descriptor, whatever ends the process.
     */
    private static FileChannel spool(Path target) {
        Path dir = Path.of(System.getProperty("java.io.tmpdir"));
        Path p = dir.resolve(".hwtool-spool." + random() + ".tmp");
        try (ExitCleanup.Registration reg = createRegistered(p, PosixFilePermissions.fromString("rw-------"))) {
            FileChannel ch = null;
            try {
                ch = FileChannel.open(p, StandardOpenOption.READ, StandardOpenOption.WRITE);
                Files.delete(p);
                return ch;
            } catch (IOException e) {
                closeQuietly(ch);
                deleteQuietly(p);
                throw e;
            }
        } catch (IOException e) {
            throw IoErrors.cannotWrite(target, "cannot make a spool file in " + dir, e);
        } catch (ExitCleanup.ExitingException e) {
            throw IoErrors.cannotWrite(target, "the process is ending", null, e);
        }
    }

    // ---- committing -------------------------------------------------------------------------------

    private static Path old(Path file) {
        return file.resolveSibling(file.getFileName() + ".old");
    }

    /** NAME.old becomes the previous NAME: a hard link, so NAME is never missing; else a rename. */
    private static void keepOld(Path file) throws IOException {
        Path old = old(file);
        Files.deleteIfExists(old);
        try {
            Files.createLink(old, file);
        } catch (IOException | UnsupportedOperationException e) {
            Files.move(file, old, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** fsync(2) of the directory, so that a rename in it survives a crash. */
    private static void syncDirectory(Path dir) {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException e) {
            // Some file systems cannot open or fsync a directory; the rename itself is done and atomic.
        }
    }

    // ---- helpers ----------------------------------------------------------------------------------

    private void requireOpen() {
        if (committed) {
            throw new IllegalStateException(target + " was already committed");
        }
        if (closed) {
            throw new IllegalStateException(target + " was abandoned (closed without commit)");
        }
    }

    private static void closeQuietly(FileChannel c) {
        if (c != null) {
            try {
                c.close();
            } catch (IOException e) {
                // Abandoning: nothing of it is kept.
            }
        }
    }

    static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            // Best effort: the failure being reported is the one that made us abandon the file.
        }
    }
}
