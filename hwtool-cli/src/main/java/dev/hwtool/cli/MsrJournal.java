package dev.hwtool.cli;

import com.fasterxml.jackson.jr.ob.JSON;
import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The undo journal of MSR writes: one JSON object per line in {@code msr-journal.jsonl} under
 * hwtool's XDG state directory. Every write is recorded with its old and new value as it happens;
 * writes of one command share a batch number, so {@code hwtool msr restore --last} can put a whole
 * batch back. The file is replaced atomically on each append ({@link AtomicFiles}) under a lock,
 * so a crash or a concurrent hwtool never leaves a half-written line.
 */
final class MsrJournal {

    static final String FILE = "msr-journal.jsonl";

    /** What a batch did: a wrmsr, a restore from a save file, an undo of an earlier batch. */
    enum Kind { WRMSR, RESTORE, UNDO }

    /**
     * One write. {@code rollback} marks the writes that put a CPU back when a later CPU of the
     * same batch failed (all or nothing).
     */
    record Entry(String time, long batch, Kind kind, boolean rollback, Long undoes, String backend, int cpu,
                 long msr, String name, long oldValue, long newValue) {
    }

    /** A batch's writes, in order. */
    record Batch(long id, Kind kind, String backend, List<Entry> entries) {

        /** The (cpu, msr) pairs it wrote, first write first, with the value before the batch and after it. */
        List<Net> net() {
            Map<String, Net> m = new LinkedHashMap<>();
            for (Entry e : entries) {
                String k = e.cpu() + ":" + e.msr();
                Net prev = m.get(k);
                m.put(k, new Net(e.cpu(), e.msr(), e.name(), prev == null ? e.oldValue() : prev.before(), e.newValue()));
            }
            return List.copyOf(m.values());
        }

        boolean changedSomething() {
            return net().stream().anyMatch(n -> n.before() != n.after());
        }
    }

    /** A register's value before and after a batch. */
    record Net(int cpu, long msr, String name, long before, long after) {
    }

    private final Path dir;

    MsrJournal(Path dir) {
        this.dir = dir;
    }

    /**
     * $XDG_STATE_HOME/hwtool, else ~/.local/state/hwtool (XDG Base Directory spec: a relative
     * XDG_STATE_HOME is invalid and ignored); the system property hwtool.state.dir overrides both.
     */
    static MsrJournal atDefaultLocation() {
        String prop = System.getProperty("hwtool.state.dir");
        if (prop != null && !prop.isEmpty()) {
            return new MsrJournal(Path.of(prop));
        }
        String xdg = System.getenv("XDG_STATE_HOME");
        if (xdg != null && Path.of(xdg).isAbsolute()) {
            return new MsrJournal(Path.of(xdg, "hwtool"));
        }
        return new MsrJournal(Path.of(System.getProperty("user.home"), ".local", "state", "hwtool"));
    }

    Path file() {
        return dir.resolve(FILE);
    }

    /** A batch number not used before in this journal. */
    long newBatch() {
        return locked(() -> read().stream().mapToLong(Entry::batch).max().orElse(0) + 1);
    }

    void append(Entry e) {
        locked(() -> {
            byte[] old = Files.exists(file()) ? Files.readAllBytes(file()) : new byte[0];
            byte[] line = (JSON.std.asString(toMap(e)) + "\n").getBytes(StandardCharsets.UTF_8);
            byte[] all = new byte[old.length + line.length];
            System.arraycopy(old, 0, all, 0, old.length);
            System.arraycopy(line, 0, all, old.length, line.length);
            AtomicFiles.write(file(), all);
            return null;
        });
    }

    static Entry entry(long batch, Kind kind, boolean rollback, Long undoes, String backend, int cpu, long msr,
                       String name, long oldValue, long newValue) {
        return new Entry(Instant.now().toString(), batch, kind, rollback, undoes, backend, cpu, msr, name, oldValue, newValue);
    }

    /** Every entry, oldest first; an unreadable journal is BAD_INPUT naming the file and line. */
    List<Entry> read() {
        Path f = file();
        if (!Files.exists(f)) {
            return List.of();
        }
        List<String> lines;
        try {
            lines = Files.readAllLines(f, StandardCharsets.UTF_8);
        } catch (IOException ex) {
            throw new HwException(Cause.BAD_INPUT, "cannot read the MSR journal " + f + ": " + ex.getMessage());
        }
        List<Entry> out = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).isBlank()) {
                continue;
            }
            try {
                out.add(fromMap(JSON.std.mapFrom(lines.get(i))));
            } catch (IOException | RuntimeException ex) {
                throw new HwException(Cause.BAD_INPUT, "MSR journal " + f + " line " + (i + 1) + " is malformed: "
                        + Cli.oneLine(ex).replaceFirst("^internal error: ", ""),
                        "move the file aside; hwtool starts a new journal");
            }
        }
        return out;
    }

    /** Batches in journal order. */
    List<Batch> batches() {
        Map<Long, List<Entry>> by = new LinkedHashMap<>();
        for (Entry e : read()) {
            by.computeIfAbsent(e.batch(), k -> new ArrayList<>()).add(e);
        }
        List<Batch> out = new ArrayList<>();
        by.forEach((id, es) -> out.add(new Batch(id, es.getFirst().kind(), es.getFirst().backend(), List.copyOf(es))));
        return out;
    }

    /**
     * The batch {@code restore --last} undoes: the newest batch that changed a register, is not
     * itself an undo, and has not been undone. Undoing repeatedly walks back through history.
     */
    Optional<Batch> lastUndoable() {
        List<Batch> all = batches();
        java.util.Set<Long> undone = new java.util.HashSet<>();
        for (Batch b : all) {
            for (Entry e : b.entries()) {
                if (e.undoes() != null) {
                    undone.add(e.undoes());
                }
            }
        }
        for (int i = all.size() - 1; i >= 0; i--) {
            Batch b = all.get(i);
            if (b.kind() != Kind.UNDO && !undone.contains(b.id()) && b.changedSomething()) {
                return Optional.of(b);
            }
        }
        return Optional.empty();
    }

    private static Map<String, Object> toMap(Entry e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("time", e.time());
        m.put("batch", e.batch());
        m.put("kind", e.kind().name().toLowerCase(java.util.Locale.ROOT));
        m.put("rollback", e.rollback());
        m.put("undoes", e.undoes());
        m.put("backend", e.backend());
        m.put("cpu", e.cpu());
        m.put("msr", Numbers.hex32(e.msr()));
        m.put("name", e.name());
        m.put("old", Numbers.hex64(e.oldValue()));
        m.put("new", Numbers.hex64(e.newValue()));
        return m;
    }

    private static Entry fromMap(Map<String, Object> m) {
        Object undoes = m.get("undoes");
        return new Entry(str(m, "time"), num(m, "batch"),
                Kind.valueOf(str(m, "kind").toUpperCase(java.util.Locale.ROOT)),
                Boolean.TRUE.equals(m.get("rollback")),
                undoes == null ? null : ((Number) undoes).longValue(),
                str(m, "backend"), (int) num(m, "cpu"), hex(m, "msr", 32), (String) m.get("name"),
                hex(m, "old", 64), hex(m, "new", 64));
    }

    static String str(Map<String, Object> m, String key) {
        if (!(m.get(key) instanceof String s)) {
            throw new IllegalArgumentException("\"" + key + "\" is missing or not a string");
        }
        return s;
    }

    static long num(Map<String, Object> m, String key) {
        if (!(m.get(key) instanceof Number n) || n instanceof Double || n instanceof Float) {
            throw new IllegalArgumentException("\"" + key + "\" is missing or not an integer");
        }
        return n.longValue();
    }

    static long hex(Map<String, Object> m, String key, int bits) {
        String s = str(m, key);
        if (!s.startsWith("0x")) {
            throw new IllegalArgumentException("\"" + key + "\" is not 0x hex: " + s);
        }
        return CNumbers.strict(s, bits).orElseThrow(
                () -> new IllegalArgumentException("\"" + key + "\" is not a " + bits + "-bit 0x hex number: " + s));
    }

    private interface IoAction<T> {
        T run() throws IOException;
    }

    /** Runs {@code a} holding an exclusive lock on the journal's lock file (one hwtool at a time). */
    private <T> T locked(IoAction<T> a) {
        try {
            Files.createDirectories(dir);
            try (FileChannel ch = FileChannel.open(dir.resolve(FILE + ".lock"), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE); FileLock ignored = ch.lock()) {
                return a.run();
            }
        } catch (IOException ex) {
            throw new HwException(Cause.OS_ERROR, "cannot update the MSR journal in " + dir + ": " + ex.getMessage(),
                    "make " + dir + " writable, or point XDG_STATE_HOME elsewhere");
        }
    }
}
