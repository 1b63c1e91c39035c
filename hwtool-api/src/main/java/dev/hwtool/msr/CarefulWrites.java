package dev.hwtool.msr;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.MsrAccess;
import dev.hwtool.api.WriteRequest;
import dev.hwtool.api.WriteResult;
import dev.hwtool.arch.msr.CpuContext;
import dev.hwtool.arch.msr.MsrDef;
import dev.hwtool.arch.msr.MsrField;
import dev.hwtool.io.OutputFile;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Collectors;

/**
 * {@link MsrAccess#write(WriteRequest)} and {@link MsrAccess#save}: a request turned into {@link MsrWriter}'s plan, run
 * under the journal's lock exactly as the CLI's wrmsr and msr restore run it, and reported as a
 * {@link WriteResult}.
 */
public final class CarefulWrites {

    /** How the library's remedies name the CLI's --force. */
    private static final String FORCE = "WriteRequest.force()";

    private CarefulWrites() {
    }

    public static WriteResult write(MsrAccess msr, WriteRequest request) {
        return write(msr, machine(msr), request);
    }

    /**
     * The machine of {@code msr}: the backends' own accesses know theirs; any other (a decorator,
     * a user's implementation) is checked against the CPUID of the {@link MsrAccess#origin()} it
     * names, never the host's, and journals where that origin's journal is.
     */
    static MsrMachine machine(MsrAccess msr) {
        if (msr instanceof MsrMachine m) {
            return m;
        }
        MsrAccess.Origin origin = msr.origin();
        MsrContexts contexts = new MsrContexts(origin.cpuid(), msr);
        return new MsrMachine() {
            @Override
            public CpuContext context(int cpu) {
                return contexts.of(cpu);
            }

            @Override
            public String backend() {
                return origin.backend();
            }

            @Override
            public MsrJournal journal() {
                return new MsrJournal(origin.journalDirectory());
            }
        };
    }

    /** {@link MsrAccess#save}: the file is opened (and checked) before any register is read. */
    public static void save(MsrAccess msr, Path file, List<Integer> cpus, List<String> registers) {
        List<MsrRegister> regs = registers.stream().map(CarefulWrites::register).toList();
        try (OutputFile out = OutputFile.open(file)) {
            String backend = msr instanceof MsrMachine m ? m.backend() : msr.origin().backend();
            MsrSaveFile.capture(msr, cpus, regs, backend, backend.startsWith("sim:")).write(out);
        }
    }

    /**
     * {@link MsrAccess#read(int, String)}: the register by its catalog name (or a 0x index). On an
     * access that knows its machine (the backends' own) the catalog's view of that CPU decides
     * whether the register exists there; on any other, the RDMSR itself does (a #GP).
     */
    public static long read(MsrAccess msr, int cpu, String register) {
        MsrRegister reg = register(java.util.Objects.requireNonNull(register, "register"));
        if (msr instanceof MsrMachine m && reg.def().isPresent()) {
            MsrDef def = reg.def().get();
            CpuContext ctx = m.context(cpu);
            if (!def.existsOn(ctx)) {
                // a per-CPU alias (the LBR stack's core names) is the catalog's, resolved for this CPU
                def = dev.hwtool.arch.msr.MsrCatalog.byName(register, ctx).orElseThrow(() -> new HwException(
                        Cause.UNSUPPORTED, reg.label() + " does not exist on CPU " + cpu + " (" + m.backend() + ")",
                        "see 'hwtool msr list' for the registers of this CPU"));
            }
            return msr.read(cpu, (int) def.address());
        }
        return msr.read(cpu, (int) reg.address());
    }

    /**
     * {@link MsrAccess#readField}: one named field of a catalog register, shifted down to bit 0;
     * a field whose width depends on the CPU is read at that CPU's width.
     */
    public static long readField(MsrAccess msr, int cpu, String register, String field) {
        java.util.Objects.requireNonNull(field, "field");
        MsrRegister reg = register(java.util.Objects.requireNonNull(register, "register"));
        MsrDef def = reg.def().orElseThrow(() -> new HwException(Cause.BAD_INPUT, reg.label()
                + " is not in hwtool's catalog: it has no named fields", "read the whole register with read(cpu, msr)"));
        MsrField f = def.field(field).orElseThrow(() -> new HwException(Cause.BAD_INPUT, def.name() + " has no field '"
                + field + "' (fields: " + def.fields().stream().map(MsrField::name).collect(Collectors.joining(", ")) + ")",
                "see 'hwtool msr list " + def.name() + "'"));
        long value = read(msr, cpu, def.name());
        if (msr instanceof MsrMachine m) {
            CpuContext ctx = m.context(cpu);
            if (!f.existsOn(ctx)) {
                throw new HwException(Cause.UNSUPPORTED, def.name() + "." + f.name() + " " + f.bitsText()
                        + " does not exist on CPU " + cpu + ": needs " + f.condition().describe());
            }
            return (value & f.mask(ctx)) >>> f.lo();
        }
        return f.extract(value);
    }

    /** A catalog name, or a 32-bit index in 0x hex. */
    private static MsrRegister register(String text) {
        OptionalLong index = Hex.parse0x(text.toLowerCase(java.util.Locale.ROOT), 32);
        return index.isPresent() ? MsrRegister.at(index.getAsLong()) : MsrRegister.named(text);
    }

    private static WriteResult write(MsrAccess msr, MsrMachine machine, WriteRequest request) {
        String backend = machine.backend();
        boolean simulated = backend.startsWith("sim:");
        StringWriter said = new StringWriter();
        PrintWriter notes = new PrintWriter(said);
        MsrWriter w = new MsrWriter(msr, machine::context, request.isForced(), backend, notes);
        MsrJournal journal = request.isWithoutJournal() ? null
                : request.journalDirectory().map(MsrJournal::new).orElseGet(machine::journal);
        boolean undo = request.kind() == WriteRequest.Kind.UNDO || request.kind() == WriteRequest.Kind.UNDO_LAST;
        if (journal == null && undo) {
            throw new HwException(Cause.BAD_INPUT, "an undo reads the journal: it cannot be made without one",
                    "leave out withoutJournal(), or give the journal's directory with journal(Path)");
        }
        MsrSaveFile saved = request.kind() == WriteRequest.Kind.RESTORE ? MsrSaveFile.read(request.file().orElseThrow()) : null;
        // Refusals first (names, the catalog, a damaged journal, nothing to undo), before the
        // journal's lock, which needs a writable state directory; a dry run stops here.
        Plan checked = plan(msr, w, request, journal, undo ? journal.read() : null, saved, backend, simulated);
        if (request.isDryRun() || journal == null) {
            if (request.isDryRun() || checked.planned().isEmpty()) {
                return result(checked.planned(), null, OptionalLong.empty(), request.isDryRun(), simulated, said, null);
            }
            return execute(w, null, checked, simulated, said, null);
        }
        // Then the lock, from reading the journal and the registers until the batch is written:
        // concurrent writers serialize whole batches, and an undo is never made twice.
        try (MsrJournal.Locked locked = journal.lock(notes)) {
            Plan p = plan(msr, w, request, journal, locked.contents(), saved, backend, simulated);
            return execute(w, locked, p, simulated, said, journal.directory());
        }
    }

    /** The writes, the journal kind they are recorded as, and the batch they undo. */
    private record Plan(List<MsrWriter.Planned> planned, MsrJournal.Kind kind, Long undoes) {
    }

    private static Plan plan(MsrAccess msr, MsrWriter w, WriteRequest request, MsrJournal journal, MsrJournal.Contents contents,
                             MsrSaveFile saved, String backend, boolean simulated) {
        return switch (request.kind()) {
            case WRITE -> new Plan(w.plan(requests(request.targets())), MsrJournal.Kind.WRMSR, null);
            case RESTORE -> new Plan(w.plan(MsrRestore.fromFile(saved, request.file().orElseThrow(), backend,
                    request.isForced(), FORCE, msr).requests()), MsrJournal.Kind.RESTORE, null);
            case UNDO, UNDO_LAST -> {
                MsrJournal.Batch batch = request.kind() == WriteRequest.Kind.UNDO
                        ? MsrRestore.undoable(journal.file(), contents, request.batch().orElseThrow())
                        : MsrJournal.lastUndoable(journal.file(), contents).orElseThrow(() -> new HwException(Cause.BAD_INPUT,
                                "nothing to undo: no write batch in " + journal.file() + " is left to undo"));
                yield new Plan(w.plan(MsrRestore.undo(batch, backend, simulated, request.isForced(), FORCE, msr)),
                        MsrJournal.Kind.UNDO, batch.id());
            }
        };
    }

    private static WriteResult execute(MsrWriter w, MsrJournal.Locked journal, Plan p, boolean simulated, StringWriter said,
                                       Path journalDir) {
        MsrWriter.Progress progress = new MsrWriter.Progress(p.planned().size());
        try {
            w.execute(journal, p.planned(), p.kind(), p.undoes(), progress);
        } catch (HwException e) {
            throw new WriteResult.Failed(e, result(p.planned(), progress, batch(progress), false, simulated, said, journalDir));
        }
        return result(p.planned(), progress, batch(progress), false, simulated, said, journalDir);
    }

    private static OptionalLong batch(MsrWriter.Progress progress) {
        return progress.batch() == 0 ? OptionalLong.empty() : OptionalLong.of(progress.batch());
    }

    /**
     * The targets as MsrWriter's requests: one per register per CPU, in the order each first
     * appears, its changes in order, adjacent fields combined into one read-modify-write.
     */
    static List<MsrWriter.Request> requests(List<WriteRequest.Target> targets) {
        Map<String, MsrRegister> regs = new LinkedHashMap<>();
        Map<String, List<MsrWriter.Change>> changes = new LinkedHashMap<>();
        Map<String, Integer> cpus = new LinkedHashMap<>();
        for (WriteRequest.Target t : targets) {
            MsrRegister reg = t.register().map(MsrRegister::named).orElseGet(() -> MsrRegister.at(Integer.toUnsignedLong(t.msr())));
            String key = t.cpu() + ":" + reg.address();
            regs.putIfAbsent(key, reg);
            cpus.putIfAbsent(key, t.cpu());
            List<MsrWriter.Change> cs = changes.computeIfAbsent(key, k -> new ArrayList<>());
            if (t.field().isEmpty()) {
                cs.add(new MsrWriter.Change.Whole(t.value()));
                continue;
            }
            MsrDef def = reg.def().orElseThrow();
            String name = t.field().get();
            MsrField field = def.field(name).orElseThrow(() -> new HwException(Cause.BAD_INPUT, def.name() + " has no field '"
                    + name + "' (fields: " + def.fields().stream().map(MsrField::name).collect(Collectors.joining(", ")) + ")",
                    "see 'hwtool msr list " + def.name() + "'"));
            MsrWriter.FieldValue fv = new MsrWriter.FieldValue(field, t.value());
            if (!cs.isEmpty() && cs.getLast() instanceof MsrWriter.Change.Fields f) {
                List<MsrWriter.FieldValue> more = new ArrayList<>(f.fields());
                more.add(fv);
                cs.set(cs.size() - 1, new MsrWriter.Change.Fields(more));
            } else {
                cs.add(new MsrWriter.Change.Fields(List.of(fv)));
            }
        }
        List<MsrWriter.Request> out = new ArrayList<>();
        regs.forEach((k, reg) -> out.add(new MsrWriter.Request(cpus.get(k), reg, changes.get(k))));
        return out;
    }

    private static WriteResult result(List<MsrWriter.Planned> plan, MsrWriter.Progress progress, OptionalLong batch,
                                      boolean dryRun, boolean simulated, StringWriter said, Path journalDir) {
        List<WriteResult.Write> writes = new ArrayList<>();
        for (int i = 0; i < plan.size(); i++) {
            MsrWriter.Planned p = plan.get(i);
            writes.add(new WriteResult.Write(p.cpu(), (int) p.reg().address(), Optional.ofNullable(p.reg().name()),
                    p.oldValue(), p.newValue(), progress != null && progress.written(i), progress != null && progress.verified(i),
                    progress != null && progress.rolledBack(i)));
        }
        List<String> notes = said.toString().lines().map(l -> l.startsWith("hwtool: ") ? l.substring(8) : l).toList();
        // the journal is named only where a batch is in it: that is what undo(result) needs
        Optional<Path> journal = batch.isPresent() ? Optional.ofNullable(journalDir) : Optional.empty();
        return new WriteResult(writes, batch, dryRun, simulated, notes, journal);
    }
}
