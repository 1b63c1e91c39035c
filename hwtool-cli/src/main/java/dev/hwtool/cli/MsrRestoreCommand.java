package dev.hwtool.cli;

import dev.hwtool.io.TerminalText;
import dev.hwtool.msr.MsrJournal;
import dev.hwtool.msr.MsrRestore;
import dev.hwtool.msr.MsrSaveFile;
import dev.hwtool.msr.MsrWriter;
import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code hwtool msr restore FILE | --last}: put back values from {@code msr save}, or undo the last
 * write batch in the journal, through the same careful path as wrmsr (catalog checks, journal,
 * verification, all or nothing).
 */
@Command(name = "restore", sortOptions = false,
        description = {"Restore MSR values saved by 'hwtool msr save', or undo the last write batch (--last).",
                "Every write is checked against the catalog, journaled, read back and verified; all or nothing."})
final class MsrRestoreCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(arity = "0..1", paramLabel = "FILE", description = "A file written by 'hwtool msr save'.")
    Path file;

    @Option(names = "--last", description = "Undo the newest write batch (wrmsr or restore) not yet undone in "
            + "this backend's journal (the simulator's is its own); again to go further back.")
    boolean last;

    @Option(names = "--dry-run", description = "Read and show old -> new per field; write nothing.")
    boolean dryRun;

    @Option(names = "--force", description = "Restore even when the file comes from another backend, a register "
            + "is not in the catalog, or (--last) a register changed since the batch.")
    boolean force;

    @Mixin
    BackendOptions backend;

    /** Registers of the file that already held their saved value. */
    private int unchanged;

    @Override
    public Integer call() {
        if ((file == null) == !last) {
            throw new UsageException("give either FILE or --last");
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        MsrSaveFile saved = file != null ? MsrSaveFile.read(file) : null;
        try (MsrSession s = new MsrSession(backend)) {
            MsrJournal journal = s.journal();
            s.noteIfSimulated(err);
            MsrWriter w = s.writer(force, err);
            // Refusals first (a damaged file or journal, nothing to undo, the catalog), before the
            // journal's lock, which needs a writable state directory; --dry-run stops here.
            Plan checked = plan(saved, s, w, saved != null ? null
                    : MsrJournal.lastUndoable(journal.file(), journal.read(), s::undoable), journal);
            if (dryRun) {
                w.describe(checked.planned()).forEach(out::println);
                out.println("dry run: nothing written");
                out.flush();
                return ExitCodes.OK;
            }
            // Then the lock, from reading the journal (which batch is last) and the registers until
            // the batch is written: concurrent --last runs undo one batch each, never the same twice.
            try (MsrJournal.Locked locked = journal.lock(err)) {
                Plan p = plan(saved, s, w, saved != null ? null : locked.lastUndoable(s::undoable), journal);
                if (p.undone() == null) {
                    w.execute(locked, p.planned(), MsrJournal.Kind.RESTORE, null);
                    out.println("restored " + p.planned().size() + " register value" + (p.planned().size() == 1 ? "" : "s")
                            + " from " + file + " (" + unchanged + " already had the saved value)");
                } else {
                    MsrJournal.Batch batch = p.undone();
                    w.execute(locked, p.planned(), MsrJournal.Kind.UNDO, batch.id());
                    out.println("undid batch " + batch.id() + " (" + batch.kind().name().toLowerCase(java.util.Locale.ROOT)
                            + " at " + batch.entries().getFirst().time() + "): restored " + p.planned().size()
                            + " register value" + (p.planned().size() == 1 ? "" : "s"));
                }
            }
            out.flush();
            return ExitCodes.OK;
        }
    }

    /** The writes to make, and the batch they undo (null for a restore from a file). */
    private record Plan(List<MsrWriter.Planned> planned, MsrJournal.Batch undone) {
    }

    private Plan plan(MsrSaveFile saved, MsrSession s, MsrWriter w, Optional<MsrJournal.Batch> last, MsrJournal journal) {
        if (saved != null) {
            return new Plan(w.plan(fromFile(saved, s)), null);
        }
        MsrJournal.Batch batch = last.orElseThrow(() -> new HwException(Cause.BAD_INPUT,
                "nothing to undo: no write batch in " + journal.file() + " is left to undo"));
        return new Plan(w.plan(undo(batch, s)), batch);
    }

    private List<MsrWriter.Request> fromFile(MsrSaveFile saved, MsrSession s) {
        MsrRestore.FromFile r = MsrRestore.fromFile(saved, file, s.backendLabel, force, "--force", s.msr);
        unchanged = r.unchanged();
        return r.requests();
    }

    /** The batch's registers, last written first, back to their values before it. */
    private List<MsrWriter.Request> undo(MsrJournal.Batch batch, MsrSession s) {
        if (!batch.backend().equals(s.backendLabel)) {
            String how = batch.backend().startsWith("sim:")
                    ? "--backend sim --profile " + TerminalText.quote(batch.backend().substring(4)) : "--backend hw";
            throw new UsageException("the last batch (" + batch.id() + ") was written on " + TerminalText.quote(batch.backend())
                    + ", not " + TerminalText.quote(s.backendLabel) + ": run with " + how);
        }
        return MsrRestore.undo(batch, s.backendLabel, s.simulated(), force, "--force", s.msr);
    }
}
