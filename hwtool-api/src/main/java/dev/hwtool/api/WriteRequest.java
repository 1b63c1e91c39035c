package dev.hwtool.api;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What {@link MsrAccess#write(WriteRequest)} is to do, carefully: write register values or named
 * fields, undo an earlier write batch from the journal, or restore a file {@code hwtool msr save}
 * wrote. Immutable; each option returns a new request.
 *
 * <pre>{@code
 * WriteRequest.field(2, "IA32_DEBUGCTL", "LBR", 1)            // read-modify-write one field on CPU 2
 * WriteRequest.field(List.of(0, 1, 2, 3), "IA32_DEBUGCTL", "LBR", 1)  // on four CPUs: all or nothing
 * WriteRequest.value(0, "IA32_PMC0", 0).then(WriteRequest.value(0, 0xc2, 0))  // several, in order
 * WriteRequest.undo(result)                                   // put a write's registers back, in its journal
 * WriteRequest.undo(7).journal(dir)                           // batch 7 of the journal in dir
 * WriteRequest.undoLast().dryRun()                            // what undoing the newest batch would write
 * WriteRequest.restore(Path.of("saved.json"))                 // the values hwtool msr save wrote
 * }</pre>
 *
 * <p>Options: {@link #dryRun()} (check and read, write nothing), {@link #force()} (also registers
 * outside hwtool's catalog, a save file from another backend, an undo of a register changed
 * since), {@link #journal(Path)} (the journal's directory) or {@link #withoutJournal()}. Without
 * either, the journal is the platform's: on this machine's registers hwtool's own, the one
 * {@code hwtool msr restore --last} reads; on a simulated platform one of its own (in a temporary
 * directory that lives as long as the platform), so a simulated write never reaches the journal
 * of the real registers.
 *
 * <p>Building a request checks only its shape ({@link IllegalArgumentException} for a negative
 * CPU or batch); names, fields, values and CPUs are checked by {@code write}, against the catalog
 * for each CPU of the machine it runs on (real or simulated), before anything is written.
 */
public final class WriteRequest {

    /** What the request does. */
    public enum Kind { WRITE, UNDO, UNDO_LAST, RESTORE }

    /**
     * One write of the {@link Kind#WRITE} kind: a whole value ({@code field} empty) or one named
     * field. The register is a catalog name or, when {@code register} is empty, the index {@code msr}.
     */
    public record Target(int cpu, Optional<String> register, int msr, Optional<String> field, long value) {
        public Target {
            if (cpu < 0) {
                throw new IllegalArgumentException("cpu " + cpu + " is negative");
            }
            Objects.requireNonNull(register, "register");
            Objects.requireNonNull(field, "field");
        }
    }

    private final Kind kind;
    private final List<Target> targets;
    private final long batch;
    private final Path file;
    private final boolean dryRun;
    private final boolean force;
    private final Path journalDir;
    private final boolean noJournal;

    private WriteRequest(Kind kind, List<Target> targets, long batch, Path file, boolean dryRun, boolean force,
                         Path journalDir, boolean noJournal) {
        this.kind = kind;
        this.targets = List.copyOf(targets);
        this.batch = batch;
        this.file = file;
        this.dryRun = dryRun;
        this.force = force;
        this.journalDir = journalDir;
        this.noJournal = noJournal;
    }

    private static WriteRequest of(Kind kind, List<Target> targets, long batch, Path file) {
        return new WriteRequest(kind, targets, batch, file, false, false, null, false);
    }

    /**
     * Sets {@code field} of the catalog register {@code register} (e.g. "IA32_DEBUGCTL", "LBR")
     * to {@code value} on {@code cpu}: a read-modify-write that leaves the other bits as they are.
     */
    public static WriteRequest field(int cpu, String register, String field, long value) {
        return field(List.of(cpu), register, field, value);
    }

    /** As {@link #field(int, String, String, long)} on each of {@code cpus}, all or nothing. */
    public static WriteRequest field(Collection<Integer> cpus, String register, String field, long value) {
        Objects.requireNonNull(register, "register");
        Objects.requireNonNull(field, "field");
        return of(Kind.WRITE, cpus.stream().map(c -> new Target(c, Optional.of(register), 0, Optional.of(field), value)).toList(),
                0, null);
    }

    /** Writes the whole value of the catalog register {@code register} on {@code cpu}. */
    public static WriteRequest value(int cpu, String register, long value) {
        Objects.requireNonNull(register, "register");
        return of(Kind.WRITE, List.of(new Target(cpu, Optional.of(register), 0, Optional.empty(), value)), 0, null);
    }

    /**
     * Writes the whole value of MSR {@code msr} (the 32-bit index, unsigned) on {@code cpu}. One
     * outside hwtool's catalog is refused unless {@link #force()}: nothing then checks its bits.
     */
    public static WriteRequest value(int cpu, int msr, long value) {
        return of(Kind.WRITE, List.of(new Target(cpu, Optional.empty(), msr, Optional.empty(), value)), 0, null);
    }

    /**
     * Puts back the registers journal batch {@code batch} wrote ({@link WriteResult#batch()}) to
     * their values before it, as one new batch. Refused when the batch is itself an undo, was
     * undone already, or (unless {@link #force()}) a register no longer holds what it left.
     */
    public static WriteRequest undo(long batch) {
        if (batch < 1) {
            throw new IllegalArgumentException("batch " + batch + " is not a journal batch id (1 or more)");
        }
        return of(Kind.UNDO, List.of(), batch, null);
    }

    /**
     * Puts back what {@code result} wrote, in the journal it was written to: {@code undo(batch)}
     * with {@link #journal(Path)} set to {@link WriteResult#journal()}.
     *
     * @throws IllegalArgumentException when the result has no journal batch (a dry run, a write
     *                                  without a journal, or one that needed no register written)
     */
    public static WriteRequest undo(WriteResult result) {
        Objects.requireNonNull(result, "result");
        if (result.batch().isEmpty() || result.journal().isEmpty()) {
            throw new IllegalArgumentException("this result has no journal batch to undo: it was a dry run, written"
                    + " without a journal, or needed no register written");
        }
        return undo(result.batch().getAsLong()).journal(result.journal().get());
    }

    /** Undoes the newest batch not yet undone, as {@code hwtool msr restore --last}; again to go further back. */
    public static WriteRequest undoLast() {
        return of(Kind.UNDO_LAST, List.of(), 0, null);
    }

    /**
     * Writes back the values of a file {@code hwtool msr save} wrote, as {@code hwtool msr restore
     * FILE}: registers that already hold their saved value are left alone.
     */
    public static WriteRequest restore(Path saveFile) {
        return of(Kind.RESTORE, List.of(), 0, Objects.requireNonNull(saveFile, "saveFile"));
    }

    /**
     * This request's writes and then {@code more}'s, in one batch (all or nothing); the options are
     * this request's. Fields of one register on one CPU are combined into one read-modify-write.
     *
     * @throws IllegalArgumentException when either request is not of the {@link Kind#WRITE} kind
     */
    public WriteRequest then(WriteRequest more) {
        if (kind != Kind.WRITE || more.kind != Kind.WRITE) {
            throw new IllegalArgumentException("only writes combine; an undo or a restore is a request of its own");
        }
        List<Target> all = new ArrayList<>(targets);
        all.addAll(more.targets);
        return new WriteRequest(kind, all, batch, file, dryRun, force, journalDir, noJournal);
    }

    /** Check everything and read the old values, write nothing: the result says what would be written. */
    public WriteRequest dryRun() {
        return new WriteRequest(kind, targets, batch, file, true, force, journalDir, noJournal);
    }

    /**
     * Also write registers outside hwtool's catalog, restore a save file from another backend,
     * and undo registers that changed since the batch (the CLI's {@code --force}). The catalog's
     * checks of registers it knows still apply.
     */
    public WriteRequest force() {
        return new WriteRequest(kind, targets, batch, file, dryRun, true, journalDir, noJournal);
    }

    /** Journal in {@code directory} ({@code msr-journal.jsonl} there) instead of hwtool's state directory. */
    public WriteRequest journal(Path directory) {
        return new WriteRequest(kind, targets, batch, file, dryRun, force, Objects.requireNonNull(directory, "directory"), false);
    }

    /** Write without a journal: nothing can be undone afterwards. Not for {@link #undo} and {@link #undoLast}. */
    public WriteRequest withoutJournal() {
        return new WriteRequest(kind, targets, batch, file, dryRun, force, null, true);
    }

    public Kind kind() {
        return kind;
    }

    /** The writes of a {@link Kind#WRITE} request, in order; empty for the other kinds. */
    public List<Target> targets() {
        return targets;
    }

    /** The batch an {@link Kind#UNDO} request undoes. */
    public OptionalLong batch() {
        return kind == Kind.UNDO ? OptionalLong.of(batch) : OptionalLong.empty();
    }

    /** The save file of a {@link Kind#RESTORE} request. */
    public Optional<Path> file() {
        return Optional.ofNullable(file);
    }

    public boolean isDryRun() {
        return dryRun;
    }

    public boolean isForced() {
        return force;
    }

    /**
     * The journal's directory: empty for the platform's (for this machine's registers the
     * {@code hwtool.state.dir} system property, else {@code $XDG_STATE_HOME/hwtool}, else
     * {@code ~/.local/state/hwtool}; for a simulated platform its own) or without one.
     */
    public Optional<Path> journalDirectory() {
        return Optional.ofNullable(journalDir);
    }

    /** Whether {@link #withoutJournal()} was asked for. */
    public boolean isWithoutJournal() {
        return noJournal;
    }
}
