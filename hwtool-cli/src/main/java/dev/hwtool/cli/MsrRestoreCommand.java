package dev.hwtool.cli;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.io.TerminalText;
import dev.hwtool.arch.msr.MsrCatalog;
import dev.hwtool.arch.msr.MsrDef;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
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

    @Option(names = "--last", description = "Undo the newest write batch (wrmsr or restore) not yet undone; "
            + "again to go further back.")
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
        MsrJournal journal = MsrJournal.atDefaultLocation();
        try (MsrSession s = new MsrSession(backend)) {
            s.noteIfSimulated(err);
            MsrWriter w = s.writer(force, err);
            // Refusals first (a damaged file or journal, nothing to undo, the catalog), before the
            // journal's lock, which needs a writable state directory; --dry-run stops here.
            Plan checked = plan(saved, s, w, saved != null ? null
                    : MsrJournal.lastUndoable(journal.file(), journal.read()), journal);
            if (dryRun) {
                w.describe(checked.planned()).forEach(out::println);
                out.println("dry run: nothing written");
                out.flush();
                return ExitCodes.OK;
            }
            // Then the lock, from reading the journal (which batch is last) and the registers until
            // the batch is written: concurrent --last runs undo one batch each, never the same twice.
            try (MsrJournal.Locked locked = journal.lock(err)) {
                Plan p = plan(saved, s, w, saved != null ? null : locked.lastUndoable(), journal);
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
        unchanged = 0;
        if (!saved.backend().equals(s.backendLabel) && !force) {
            throw new HwException(Cause.BAD_INPUT, TerminalText.quote(file.toString()) + " was saved on "
                    + TerminalText.quote(saved.backend()) + ", not on " + s.backendLabel
                    + ": nothing written", "restore it on the machine it came from, or add --force");
        }
        List<MsrWriter.Request> out = new ArrayList<>();
        for (MsrSaveFile.Register r : saved.registers()) {
            Optional<MsrDef> def = MsrCatalog.byAddress(r.msr());
            if (r.name() != null && def.isPresent() && !def.get().name().equalsIgnoreCase(r.name())) {
                throw new HwException(Cause.BAD_INPUT, TerminalText.quote(file.toString()) + ": MSR " + Numbers.hex32(r.msr())
                        + " is " + def.get().name() + ", not " + TerminalText.quote(r.name()) + ": nothing written");
            }
            RegisterArg reg = new RegisterArg(r.msr(), def);
            // A register that already holds its saved value is left alone: no write, no journal
            // entry, and read-only registers (saved for the record) restore without a refusal.
            if (read(s, r.cpu(), reg) == r.value()) {
                unchanged++;
                continue;
            }
            out.add(new MsrWriter.Request(r.cpu(), reg, List.of(new MsrWriter.Change.Whole(r.value()))));
        }
        return out;
    }

    private static long read(MsrSession s, int cpu, RegisterArg reg) {
        try {
            return s.msr.read(cpu, (int) reg.address());
        } catch (HwException e) {
            throw new MsrWriter.AccessFailure(MsrToolsErrors.Op.READ, cpu, reg, 0, e);
        }
    }

    /** The batch's registers, last written first, back to their values before it. */
    private List<MsrWriter.Request> undo(MsrJournal.Batch batch, MsrSession s) {
        if (!batch.backend().equals(s.backendLabel)) {
            String how = batch.backend().startsWith("sim:")
                    ? "--backend sim --profile " + batch.backend().substring(4) : "--backend hw";
            throw new UsageException("the last batch (" + batch.id() + ") was written on " + batch.backend()
                    + ", not " + s.backendLabel + ": run with " + how);
        }
        List<MsrJournal.Net> net = new ArrayList<>(batch.net());
        java.util.Collections.reverse(net);
        List<MsrWriter.Request> out = new ArrayList<>();
        for (MsrJournal.Net n : net) {
            RegisterArg reg = new RegisterArg(n.msr(), MsrCatalog.byAddress(n.msr()));
            long now = read(s, n.cpu(), reg);
            if (now != n.after() && !force) {
                throw new HwException(Cause.BAD_INPUT, "CPU " + n.cpu() + " " + reg.label() + " is " + Numbers.hex64(now)
                        + ", not " + Numbers.hex64(n.after()) + " as batch " + batch.id() + " left it: nothing written",
                        (s.simulated() ? "the simulator starts every run from the profile's boot values; " : "")
                                + "add --force to restore " + Numbers.hex64(n.before()) + " anyway");
            }
            out.add(new MsrWriter.Request(n.cpu(), reg, List.of(new MsrWriter.Change.Whole(n.before()))));
        }
        return out;
    }
}
