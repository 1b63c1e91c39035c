package dev.hwtool.msr;

import com.fasterxml.jackson.jr.ob.JSON;
import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.LinkOption;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The undo journal of MSR writes: one JSON object per line in {@code msr-journal.jsonl} under
 * hwtool's XDG state directory. Writes of one command share a batch number, so
 * {@code hwtool msr restore --last} can put a whole batch back.
 *
 * <p>Rules, all under one exclusive lock ({@link #lock}) held from before the first register
 * is read until the batch is done, so concurrent hwtools serialize whole batches:
 * <ul>
 * <li>Write-ahead: each entry is written and fsync'd (and the directory too when the file is
 *     created) before its register is written; a journal that cannot be written stops the batch
 *     before that write.</li>
 * <li>Batch ids are the largest in the file plus one, taken under the lock: unique across
 *     processes.</li>
 * <li>Appends go at the end of the file's last whole line (positional writes under the lock,
 *     never a rewrite), so no other process's line is lost; a write that fails is cut off again,
 *     so no half line is left.</li>
 * <li>All or nothing under a full file system: before the first write of a batch,
 *     {@link Locked#reserve} writes blank padding big enough for every entry the batch can need
 *     (each write, its failure and its rollback); entries then overwrite the padding, which needs
 *     no new blocks on tmpfs or ext4, and the unused rest is cut off when the lock is released.
 *     If the padding cannot be written, no register is.</li>
 * <li>Damage: a last line without its newline that does not parse is a write cut short by a
 *     crash; its register write never happened (registers are written only after the fsync), so
 *     it is ignored with a warning and overwritten by the next append. Any other line that does
 *     not parse is reported with file and line; appends go on (with a warning), but
 *     {@code restore --last} refuses, as it cannot tell which batches are in effect.</li>
 * <li>Bounds: a journal over {@value #MAX_BYTES} bytes is refused; a line over
 *     {@value #MAX_LINE} bytes counts as damaged.</li>
 * </ul>
 */
public final class MsrJournal {

    public static final String FILE = "msr-journal.jsonl";
    /** The subdirectory of the state directory that holds the CLI's simulated backend's journal. */
    public static final String SIMULATOR_DIR = "sim";
    public static final long MAX_BYTES = 64L << 20;
    public static final int MAX_LINE = 64 << 10;

    /** What a batch did: a wrmsr, a restore from a save file, an undo of an earlier batch. */
    public enum Kind { WRMSR, RESTORE, UNDO }

    /**
     * One write. {@code rollback} marks the writes that put a CPU back when a later CPU of the
     * same batch failed (all or nothing).
     */
    public record Entry(String time, long batch, Kind kind, boolean rollback, Long undoes, String backend, int cpu,
                 long msr, String name, long oldValue, long newValue) {
    }

    /** A batch's writes, in order. */
    public record Batch(long id, Kind kind, String backend, List<Entry> entries) {

        /** The (cpu, msr) pairs it wrote, first write first, with the value before the batch and after it. */
        public List<Net> net() {
            Map<String, Net> m = new LinkedHashMap<>();
            for (Entry e : entries) {
                String k = e.cpu() + ":" + e.msr();
                Net prev = m.get(k);
                m.put(k, new Net(e.cpu(), e.msr(), e.name(), prev == null ? e.oldValue() : prev.before(), e.newValue()));
            }
            return List.copyOf(m.values());
        }

        public boolean changedSomething() {
            return net().stream().anyMatch(n -> n.before() != n.after());
        }
    }

    /** A register's value before and after a batch. */
    public record Net(int cpu, long msr, String name, long before, long after) {
    }

    /** A line that is not a journal entry: its 1-based number, what is wrong, and whether it is a torn last line. */
    public record Damage(int line, String what, boolean torn) {
    }

    /**
     * What the file holds: the entries, the damaged lines, the largest batch id seen (also in
     * damaged lines, as far as it can be read there), and where the next line goes ({@code end}:
     * after the last line that is not blank; {@code needsNewline} when the last entry lacks its
     * newline).
     */
    public record Contents(List<Entry> entries, List<Damage> damage, long maxBatch, long end, boolean needsNewline) {

        public static final Contents EMPTY = new Contents(List.of(), List.of(), 0, 0, false);

        public Optional<Damage> torn() {
            return damage.stream().filter(Damage::torn).findFirst();
        }

        public Optional<Damage> firstDamaged() {
            return damage.stream().filter(d -> !d.torn()).findFirst();
        }

        /** Batches in journal order. */
        public List<Batch> batches() {
            Map<Long, List<Entry>> by = new LinkedHashMap<>();
            for (Entry e : entries) {
                by.computeIfAbsent(e.batch(), k -> new ArrayList<>()).add(e);
            }
            List<Batch> out = new ArrayList<>();
            by.forEach((id, es) -> out.add(new Batch(id, es.getFirst().kind(), es.getFirst().backend(), List.copyOf(es))));
            return out;
        }
    }

    private final Path dir;

    public MsrJournal(Path dir) {
        this.dir = dir;
    }

    /**
     * $XDG_STATE_HOME/hwtool, else $HOME/.local/state/hwtool, else the password file's home's
     * (XDG Base Directory spec: a relative XDG_STATE_HOME is invalid and ignored); the system
     * property hwtool.state.dir overrides them.
     */
    public static MsrJournal atDefaultLocation() {
        String prop = System.getProperty("hwtool.state.dir");
        if (prop != null && !prop.isEmpty()) {
            return new MsrJournal(Path.of(prop));
        }
        String xdg = System.getenv("XDG_STATE_HOME");
        if (xdg != null && Path.of(xdg).isAbsolute()) {
            return new MsrJournal(Path.of(xdg, "hwtool"));
        }
        // $HOME before the password file's home (user.home comes from getpwuid): what the XDG
        // spec's "$HOME/.local/state" means, and what sudo -H, su - and containers set
        String home = System.getenv("HOME");
        Path base = home != null && !home.isEmpty() && Path.of(home).isAbsolute() ? Path.of(home)
                : Path.of(System.getProperty("user.home"));
        return new MsrJournal(base.resolve(".local").resolve("state").resolve("hwtool"));
    }

    /**
     * The journal of the CLI's simulated backend: {@value #SIMULATOR_DIR}/ under this one's
     * directory, with the same file, lock and rules. Simulated batches go there, so the journal
     * that {@code hwtool msr restore --last} reads for this machine's registers never holds one.
     */
    public MsrJournal forSimulator() {
        return new MsrJournal(dir.resolve(SIMULATOR_DIR));
    }

    public Path file() {
        return dir.resolve(FILE);
    }

    /** The directory the journal and its lock are in. */
    public Path directory() {
        return dir;
    }

    /**
     * The journal's files are opened only as what they claim to be: a regular file with one link,
     * never through a symbolic link (O_NOFOLLOW) and never a second name of another file. As root,
     * a journal that were a link to /etc/passwd, or a hard link to it, would get a JSON line
     * appended to a file the user never named. Returns the file's identity (device and inode), or
     * null when it does not exist yet.
     *
     * @throws IOException when the file cannot be examined (the caller says what it was doing)
     */
    static Object identity(Path f) throws IOException {
        java.util.Map<String, Object> a;
        try {
            a = Files.readAttributes(f, "unix:mode,nlink,ino,dev", LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return null;
        }
        int type = (Integer) a.get("mode") & 0170000;   // S_IFMT, inode(7)
        if (type != 0100000) {                            // S_IFREG
            String what = type == 0120000 ? "a symbolic link" : "not a regular file";
            throw new HwException(Cause.BAD_INPUT, "the MSR journal file " + f + " is " + what
                    + ": refused, nothing read or written", "move it aside; hwtool starts a new journal");
        }
        int links = (Integer) a.get("nlink");
        if (links != 1) {
            throw new HwException(Cause.BAD_INPUT, "the MSR journal file " + f + " has " + links
                    + " hard links, so it is also another file: refused, nothing read or written",
                    "move it aside; hwtool starts a new journal");
        }
        return List.of(a.get("dev"), a.get("ino"));
    }

    /**
     * Opens {@code f} as {@link #identity} allows: O_NOFOLLOW, and the name still the file checked
     * before the open once it is open (a swap in between is refused, not followed).
     */
    static FileChannel openChecked(Path f, StandardOpenOption... options) throws IOException {
        Object before = identity(f);
        java.util.Set<java.nio.file.OpenOption> opts = new java.util.HashSet<>(List.of(options));
        opts.add(LinkOption.NOFOLLOW_LINKS);
        FileChannel ch = FileChannel.open(f, opts);
        try {
            Object after = identity(f);
            if (before != null && !before.equals(after)) {
                throw new HwException(Cause.BAD_INPUT, "the MSR journal file " + f + " was replaced while it was"
                        + " being opened: refused, nothing written", "run the command again");
            }
            return ch;
        } catch (RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    public Path lockFile() {
        return dir.resolve(FILE + ".lock");
    }

    public static Entry entry(long batch, Kind kind, boolean rollback, Long undoes, String backend, int cpu, long msr,
                       String name, long oldValue, long newValue) {
        return new Entry(Instant.now().toString(), batch, kind, rollback, undoes, backend, cpu, msr, name, oldValue, newValue);
    }

    /**
     * The journal as it is now, for --dry-run: under a shared lock when the lock file can be
     * read (so no batch is half written while it is read), without one when there is none yet;
     * nothing needs to be writable.
     */
    public Contents read() {
        if (!Files.isReadable(lockFile()) || IN_PROCESS.isHeldByCurrentThread()) {
            // no writer yet, or this thread holds the lock already
            return parse(file(), load(file()));
        }
        IN_PROCESS.lock();
        try (FileChannel lc = openChecked(lockFile(), StandardOpenOption.READ);
             FileLock ignored = lc.lock(0, Long.MAX_VALUE, true)) {
            return parse(file(), load(file()));
        } catch (IOException ex) {
            throw new HwException(Cause.OS_ERROR, "cannot lock the MSR journal " + lockFile() + " for reading: "
                    + reason(ex), "make it readable, or move the directory aside");
        } finally {
            IN_PROCESS.unlock();
        }
    }

    /** Every entry, oldest first, refusing a damaged journal (as restore --last does). */
    public List<Entry> entries() {
        Contents c = read();
        refuseDamage(c, "it");
        return c.entries();
    }

    /**
     * The batch {@code restore --last} undoes: the newest batch that changed a register, is not
     * itself an undo, and has not been undone. Undoing repeatedly walks back through history. A
     * journal with a damaged line (other than a torn last line) is refused: which batches are in
     * effect cannot be known.
     */
    public static Optional<Batch> lastUndoable(Path file, Contents c) {
        return lastUndoable(file, c, b -> true);
    }

    /**
     * As {@link #lastUndoable(Path, Contents)}, among the batches {@code eligible} accepts only
     * (the others are passed over, neither undone nor refused).
     */
    public static Optional<Batch> lastUndoable(Path file, Contents c, java.util.function.Predicate<Batch> eligible) {
        refuseDamage(c, file.toString());
        List<Batch> all = c.batches();
        Set<Long> undone = new HashSet<>();
        for (Batch b : all) {
            for (Entry e : b.entries()) {
                if (e.undoes() != null) {
                    undone.add(e.undoes());
                }
            }
        }
        for (int i = all.size() - 1; i >= 0; i--) {
            Batch b = all.get(i);
            if (b.kind() != Kind.UNDO && !undone.contains(b.id()) && b.changedSomething() && eligible.test(b)) {
                return Optional.of(b);
            }
        }
        return Optional.empty();
    }

    public Optional<Batch> lastUndoable() {
        return lastUndoable(file(), read());
    }

    private static void refuseDamage(Contents c, String file) {
        c.firstDamaged().ifPresent(d -> {
            throw new HwException(Cause.BAD_INPUT, "MSR journal " + file + " line " + d.line() + " is damaged ("
                    + d.what() + "): cannot tell which batches are in effect; nothing written",
                    "look at that line and delete it, or move the file aside (hwtool then starts a new journal)");
        });
    }

    // ---- the lock and the writes ----------------------------------------------------------------

    /** Threads of this JVM queue here: the file lock below is per process. */
    private static final ReentrantLock IN_PROCESS = new ReentrantLock();

    /**
     * Takes the journal's exclusive lock, waiting for another hwtool that holds it, and reads the
     * journal. Warnings about a torn or damaged line go to {@code notes}.
     *
     * <p>The lock is {@link FileChannel#lock()} on {@code msr-journal.jsonl.lock}: on Linux an
     * fcntl(2) F_SETLKW write lock on the whole file. Such a lock belongs to the process, so it
     * excludes every other process (what the journal needs), is released by the kernel when the
     * process dies, and works on NFS, where flock(2) is emulated with the same locks anyway (since
     * Linux 2.6.12, flock(2) NOTES). Its catch is that closing any descriptor of the file drops
     * it; only this class opens the lock file, and the JDK keeps one lock per file per JVM
     * ("File locks are held on behalf of the entire Java virtual machine", FileLock), so threads of
     * one JVM are serialized by {@link #IN_PROCESS} first. flock(2) would give nothing more here.
     */
    public Locked lock(PrintWriter notes) {
        IN_PROCESS.lock();
        FileChannel lc = null;
        try {
            try {
                Files.createDirectories(dir);
            } catch (IOException ex) {
                HwException f = failure("cannot create the state directory " + dir, ex);
                throw new HwException(f.cause(), f.getMessage() + "; nothing written", f.remedy().orElse(null), ex);
            }
            lc = openChecked(lockFile(), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock fl = lc.lock();
            Contents c = parse(file(), load(file()));
            Locked l = new Locked(lc, fl, c, notes);
            c.torn().ifPresent(d -> l.note("warning: MSR journal " + file() + " line " + d.line() + " is incomplete ("
                    + d.what() + "), a write cut short by a crash before its register was written; ignored"));
            c.firstDamaged().ifPresent(d -> l.note("warning: MSR journal " + file() + " line " + d.line()
                    + " is damaged (" + d.what() + "); 'msr restore --last' refuses until it is deleted"));
            return l;
        } catch (IOException ex) {
            closeQuietly(lc);
            IN_PROCESS.unlock();
            HwException f = failure("cannot lock the MSR journal " + lockFile(), ex);
            throw new HwException(f.cause(), f.getMessage() + "; nothing written", f.remedy().orElse(null), ex);
        } catch (RuntimeException ex) {
            closeQuietly(lc);
            IN_PROCESS.unlock();
            throw ex;
        }
    }

    /** The journal held under its lock: reads, batch ids and appends. Close releases the lock. */
    public final class Locked implements AutoCloseable {
        private final FileChannel lockChannel;
        private final FileLock lock;
        private final PrintWriter notes;
        private final Contents contents;
        private final List<Entry> appended = new ArrayList<>();
        private FileChannel ch;
        /** Where the next line goes. */
        private long end;
        /** End of the blank padding reserve() wrote (== end when none is left). */
        private long reservedEnd;
        private boolean needsNewline;
        private long maxBatch;
        /** This holder created the file: if nothing could be written to it, it goes again. */
        private boolean created;

        private Locked(FileChannel lockChannel, FileLock lock, Contents contents, PrintWriter notes) {
            this.lockChannel = lockChannel;
            this.lock = lock;
            this.contents = contents;
            this.notes = notes;
            this.end = contents.end();
            this.reservedEnd = contents.end();
            this.needsNewline = contents.needsNewline();
            this.maxBatch = contents.maxBatch();
        }

        public Path file() {
            return MsrJournal.this.file();
        }

        /** The journal as read when the lock was taken, plus what this holder appended. */
        public Contents contents() {
            if (appended.isEmpty()) {
                return contents;
            }
            List<Entry> all = new ArrayList<>(contents.entries());
            all.addAll(appended);
            return new Contents(List.copyOf(all), contents.damage(), maxBatch, end, false);
        }

        public Optional<Batch> lastUndoable() {
            return MsrJournal.lastUndoable(file(), contents());
        }

        public Optional<Batch> lastUndoable(java.util.function.Predicate<Batch> eligible) {
            return MsrJournal.lastUndoable(file(), contents(), eligible);
        }

        /** A batch number not used before in this journal (nor by any process, while the lock is held). */
        public long newBatch() {
            return ++maxBatch;
        }

        /**
         * Makes room for {@code bytes} of entries before any register is written: blank padding
         * (spaces and a newline, which readers skip), written and fsync'd.
         */
        public void reserve(long bytes) {
            long have = reservedEnd - end;
            if (bytes <= have) {
                return;
            }
            long size = Math.max(bytes, 2);
            byte[] pad = new byte[(int) Math.min(size + (needsNewline ? 1 : 0), Integer.MAX_VALUE)];
            Arrays.fill(pad, (byte) ' ');
            if (needsNewline) {
                pad[0] = '\n';
            }
            pad[pad.length - 1] = '\n';
            long at = end;
            writeAt(at, pad, "cannot make room in the MSR journal " + file());
            if (needsNewline) {
                needsNewline = false;
                end++;
            }
            reservedEnd = at + pad.length;
        }

        /** Writes {@code e} and fsyncs it; on failure nothing of it stays in the file. */
        public void append(Entry e) {
            byte[] line = (JSON_LINE.apply(e) + "\n").getBytes(StandardCharsets.UTF_8);
            if (needsNewline) {
                byte[] l2 = new byte[line.length + 1];
                l2[0] = '\n';
                System.arraycopy(line, 0, l2, 1, line.length);
                line = l2;
            }
            writeAt(end, line, "cannot write the MSR journal " + file());
            needsNewline = false;
            end += line.length;
            // what is left of the padding is still spaces ending in a newline: a blank line
            reservedEnd = Math.max(reservedEnd, end);
            appended.add(e);
            maxBatch = Math.max(maxBatch, e.batch());
        }

        private void writeAt(long at, byte[] bytes, String what) {
            long before = -1;
            try {
                FileChannel c = channel();
                before = c.size();
                ByteBuffer b = ByteBuffer.wrap(bytes);
                long pos = at;
                while (b.hasRemaining()) {
                    pos += c.write(b, pos);
                }
                c.force(true);
            } catch (IOException ex) {
                undo(at, before);
                throw failure(what, ex);
            }
        }

        /** After a failed write at {@code at}: the file back to its size, and no partial line in it. */
        private void undo(long at, long sizeBefore) {
            if (ch == null || sizeBefore < 0) {
                return;
            }
            try {
                ch.truncate(Math.max(sizeBefore, at));
                if (sizeBefore > at) {
                    restorePadding(at, sizeBefore);
                }
                ch.force(true);
            } catch (IOException again) {
                note("warning: could not clean up the MSR journal " + file() + " after a failed write: " + reason(again));
            }
        }

        /** Blanks [from, to) as one line of spaces: an overwrite, which needs no new blocks. */
        private void restorePadding(long from, long to) {
            byte[] pad = new byte[(int) (to - from)];
            Arrays.fill(pad, (byte) ' ');
            pad[pad.length - 1] = '\n';
            try {
                ByteBuffer b = ByteBuffer.wrap(pad);
                long pos = from;
                while (b.hasRemaining()) {
                    pos += ch.write(b, pos);
                }
            } catch (IOException ex) {
                note("warning: could not blank the rest of the MSR journal's reserved space: " + reason(ex));
            }
        }

        private FileChannel channel() throws IOException {
            if (ch == null) {
                Path f = file();
                boolean existed = identity(f) != null;
                ch = openChecked(f, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                created = !existed;
                if (!existed) {
                    // the new name must be durable too before a register depends on it (fsync(2)
                    // NOTES). A file system that cannot sync a directory (EINVAL) still gets the
                    // file's own fsync, as dev.hwtool.io.OutputFile does.
                    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
                        d.force(true);
                    } catch (IOException ex) {
                        if (!"Invalid argument".equals(reason(ex))) {
                            throw ex;
                        }
                    }
                }
            }
            return ch;
        }

        public void note(String line) {
            if (notes != null) {
                notes.println("hwtool: " + line);
                notes.flush();
            }
        }

        /** Cuts off unused padding and a torn last line, then releases the lock. */
        @Override
        public void close() {
            try {
                if (ch != null) {
                    try {
                        if (ch.size() > end) {
                            ch.truncate(end);
                            ch.force(true);
                        }
                    } catch (IOException ex) {
                        note("warning: could not trim the MSR journal " + file() + ": " + reason(ex)
                                + " (a blank line is left; readers skip it)");
                    } finally {
                        closeQuietly(ch);
                    }
                    if (created && end == 0) {
                        try {
                            Files.deleteIfExists(file());
                        } catch (IOException ex) {
                            note("warning: could not remove the empty MSR journal " + file() + ": " + reason(ex));
                        }
                    }
                }
                try {
                    lock.release();
                } catch (IOException ignored) {
                    // closing the channel below releases it as well
                }
                closeQuietly(lockChannel);
            } finally {
                IN_PROCESS.unlock();
            }
        }
    }

    /**
     * Bytes to {@link Locked#reserve} for one planned write: room for its entry, the entry saying
     * it failed, its rollback and that rollback's failure, each at its longest (largest ids, the
     * longest time text, rollback set).
     */
    public static long reservation(String backend, int cpu, long msr, String name) {
        Entry worst = new Entry("2000-01-01T00:00:00.000000000Z", Long.MAX_VALUE, Kind.RESTORE, true, Long.MAX_VALUE,
                backend, cpu, msr, name, -1L, -1L);
        return 4L * (JSON_LINE.apply(worst).getBytes(StandardCharsets.UTF_8).length + 1);
    }

    private HwException failure(String what, IOException ex) {
        String why = reason(ex);
        boolean full = why.equals("No space left on device") || why.equals("Disk quota exceeded");
        return new HwException(Cause.OS_ERROR, what + ": " + why,
                (full ? "free space on the file system of " : "make writable: ") + dir
                        + ", or point XDG_STATE_HOME at another directory");
    }

    /** The OS's reason in words: java.nio names some errnos by the exception's class only. */
    public static String reason(IOException ex) {
        if (ex instanceof AccessDeniedException) {
            return "Permission denied";
        }
        if (ex instanceof NoSuchFileException) {
            return "No such file or directory";
        }
        if (ex instanceof NotDirectoryException) {
            return "Not a directory";
        }
        if (ex instanceof FileAlreadyExistsException) {
            return "File exists";
        }
        if (ex instanceof FileSystemException fs && fs.getReason() != null) {
            return fs.getReason();
        }
        String m = ex.getMessage();
        return m == null ? ex.getClass().getSimpleName() : m.lines().findFirst().orElse("");
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c != null) {
            try {
                c.close();
            } catch (Exception ignored) {
                // already failing or done; nothing more to say
            }
        }
    }

    // ---- reading ----------------------------------------------------------------------------------

    /** The file's bytes, at most {@link #MAX_BYTES}; none when there is no journal yet. */
    private static byte[] load(Path f) {
        try {
            if (identity(f) == null) {
                return new byte[0];
            }
        } catch (IOException ex) {
            throw new HwException(Cause.OS_ERROR, "cannot read the MSR journal " + f + ": " + reason(ex),
                    "make it readable, or move it aside");
        }
        try (InputStream in = Files.newInputStream(f, LinkOption.NOFOLLOW_LINKS)) {
            byte[] b = in.readNBytes((int) MAX_BYTES + 1);
            if (b.length > MAX_BYTES) {
                throw new HwException(Cause.BAD_INPUT, "the MSR journal " + f + " is over " + (MAX_BYTES >> 20)
                        + " MiB", "move it aside (keep it if you may still undo from it); hwtool starts a new journal");
            }
            return b;
        } catch (IOException ex) {
            throw new HwException(Cause.OS_ERROR, "cannot read the MSR journal " + f + ": " + reason(ex),
                    "make it readable, or move it aside");
        }
    }

    private static final Pattern BATCH = Pattern.compile("\"batch\"\\s*:\\s*(\\d{1,18})");

    public static Contents parse(Path f, byte[] b) {
        List<Entry> entries = new ArrayList<>();
        List<Damage> damage = new ArrayList<>();
        long maxBatch = 0;
        long end = 0;
        boolean needsNewline = false;
        int start = 0;
        int lineNo = 0;
        while (start < b.length) {
            lineNo++;
            int nl = start;
            while (nl < b.length && b[nl] != '\n') {
                nl++;
            }
            boolean whole = nl < b.length;
            int len = nl - start;
            String what = null;
            Entry e = null;
            String text = len > MAX_LINE ? null : new String(b, start, len, StandardCharsets.UTF_8);
            if (text == null) {
                what = "longer than " + (MAX_LINE >> 10) + " KiB";
            } else if (!text.isBlank()) {
                try {
                    e = fromJson(text);
                } catch (IllegalArgumentException ex) {
                    what = ex.getMessage();
                }
            }
            if (e != null) {
                entries.add(e);
                maxBatch = Math.max(maxBatch, e.batch());
            } else if (what != null) {
                if (text != null) {
                    Matcher m = BATCH.matcher(text);
                    if (m.find()) {
                        maxBatch = Math.max(maxBatch, Long.parseLong(m.group(1)));
                    }
                }
                damage.add(new Damage(lineNo, what + (whole ? "" : ", no newline at the end"), !whole));
            }
            if (whole && (e != null || what != null)) {
                end = nl + 1;
            } else if (e != null) {
                // a whole entry without its newline: kept, the newline added on the next append
                end = b.length;
                needsNewline = true;
            }
            // blank lines at the end (padding a crashed holder left) are overwritten and cut off
            start = nl + 1;
        }
        return new Contents(List.copyOf(entries), List.copyOf(damage), maxBatch, end, needsNewline);
    }

    /** One journal line as JSON, keys in a fixed order. */
    private static final java.util.function.Function<Entry, String> JSON_LINE = e -> {
        try {
            return JSON.std.asString(toMap(e));
        } catch (IOException ex) {
            throw new IllegalStateException("cannot serialize a journal entry", ex);
        }
    };

    private static Map<String, Object> toMap(Entry e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("time", e.time());
        m.put("batch", e.batch());
        m.put("kind", e.kind().name().toLowerCase(Locale.ROOT));
        m.put("rollback", e.rollback());
        m.put("undoes", e.undoes());
        m.put("backend", e.backend());
        m.put("cpu", e.cpu());
        m.put("msr", Hex.hex32(e.msr()));
        m.put("name", e.name());
        m.put("old", Hex.hex64(e.oldValue()));
        m.put("new", Hex.hex64(e.newValue()));
        return m;
    }

    /** A line to an entry; IllegalArgumentException with a short reason (never the JSON library's text). */
    private static Entry fromJson(String line) {
        Object o;
        try {
            o = JSON.std.anyFrom(line);
        } catch (IOException | RuntimeException ex) {
            throw new IllegalArgumentException("not valid JSON");
        }
        if (!(o instanceof Map<?, ?> map)) {
            throw new IllegalArgumentException("not a JSON object");
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) map;
        Object undoes = m.get("undoes");
        if (undoes != null && !(undoes instanceof Number)) {
            throw new IllegalArgumentException("\"undoes\" is not a batch number");
        }
        String kind = str(m, "kind");
        Kind k = switch (kind) {
            case "wrmsr" -> Kind.WRMSR;
            case "restore" -> Kind.RESTORE;
            case "undo" -> Kind.UNDO;
            default -> throw new IllegalArgumentException("\"kind\" is not wrmsr, restore or undo");
        };
        Object name = m.get("name");
        if (name != null && !(name instanceof String)) {
            throw new IllegalArgumentException("\"name\" is not a string");
        }
        long batch = num(m, "batch");
        long cpu = num(m, "cpu");
        if (batch < 1 || cpu < 0 || cpu > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(batch < 1 ? "\"batch\" is not a positive number" : "\"cpu\" is out of range");
        }
        return new Entry(str(m, "time"), batch, k, Boolean.TRUE.equals(m.get("rollback")),
                undoes == null ? null : ((Number) undoes).longValue(),
                str(m, "backend"), (int) cpu, hex(m, "msr", 32), (String) name, hex(m, "old", 64), hex(m, "new", 64));
    }

    public static String str(Map<String, Object> m, String key) {
        if (!(m.get(key) instanceof String s)) {
            throw new IllegalArgumentException("\"" + key + "\" is missing or not a string");
        }
        return s;
    }

    public static long num(Map<String, Object> m, String key) {
        if (!(m.get(key) instanceof Number n) || n instanceof Double || n instanceof Float
                || n instanceof java.math.BigInteger || n instanceof java.math.BigDecimal) {
            throw new IllegalArgumentException("\"" + key + "\" is missing or not an integer");
        }
        return n.longValue();
    }

    public static long hex(Map<String, Object> m, String key, int bits) {
        String s = str(m, key);
        if (!s.startsWith("0x")) {
            throw new IllegalArgumentException("\"" + key + "\" is not 0x hex");
        }
        return Hex.parse0x(s, bits).orElseThrow(
                () -> new IllegalArgumentException("\"" + key + "\" is not a " + bits + "-bit 0x hex number"));
    }
}
