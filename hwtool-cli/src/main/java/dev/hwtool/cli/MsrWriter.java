package dev.hwtool.cli;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.MsrAccess;
import dev.hwtool.arch.msr.Access;
import dev.hwtool.arch.msr.CpuContext;
import dev.hwtool.arch.msr.DecodedField;
import dev.hwtool.arch.msr.MsrDecoder;
import dev.hwtool.arch.msr.MsrDef;
import dev.hwtool.arch.msr.MsrField;
import dev.hwtool.arch.msr.MsrFieldWrite;
import dev.hwtool.arch.msr.Violation;
import dev.hwtool.arch.msr.WriteCheck;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The one careful path every MSR write takes (wrmsr, msr restore): plan — check each write
 * against the catalog for that CPU and read the old values, refusing before any WRMSR — then
 * write in order, journal each write before it is made, read each back and verify it, and if
 * any CPU fails put back every register already written (all or nothing).
 */
final class MsrWriter {

    /** What to put in a register: a whole value, or some fields (read-modify-write). */
    sealed interface Change {
        record Whole(long value) implements Change {
        }

        record Fields(List<FieldValue> fields) implements Change {
            public Fields {
                fields = List.copyOf(fields);
            }
        }
    }

    record FieldValue(MsrField field, long value) {
    }

    /** Writes to one register of one CPU, made in order. */
    record Request(int cpu, RegisterArg reg, List<Change> changes) {
        Request {
            changes = List.copyOf(changes);
        }
    }

    /**
     * One planned WRMSR. {@code verifyMask} is the bits a read-back must return as written
     * (0: not verifiable); {@code unverified} the W1C/WO bits a read does not return.
     */
    record Planned(int cpu, RegisterArg reg, long oldValue, long newValue, long verifyMask, long unverified) {
    }

    /** A device error during the write path, with where it happened (for msr-tools' messages). */
    static final class AccessFailure extends HwException {
        final MsrToolsErrors.Op op;
        final int cpu;
        final long msr;
        final long value;
        final HwException underlying;

        AccessFailure(MsrToolsErrors.Op op, int cpu, RegisterArg reg, long value, HwException underlying) {
            super(underlying.reason(), "CPU " + cpu + ": cannot " + (op == MsrToolsErrors.Op.READ ? "read " : "write ")
                    + reg.label() + (reg.def().isPresent() ? " (" + reg.hex() + ")" : "")
                    + (op == MsrToolsErrors.Op.WRITE ? " = " + Numbers.hex64(value) : "") + ": " + underlying.getMessage(),
                    underlying.remedy().orElse(null), underlying);
            this.op = op;
            this.cpu = cpu;
            this.msr = reg.address();
            this.value = value;
            this.underlying = underlying;
        }
    }

    private final MsrAccess msr;
    private final MsrContexts contexts;
    private final boolean force;
    private final String backend;
    private final PrintWriter notes;

    /**
     * @param backend "hw" or "sim:PROFILE", recorded in the journal
     * @param notes   where to say what was rolled back or not verified (stderr)
     */
    MsrWriter(MsrAccess msr, MsrContexts contexts, boolean force, String backend, PrintWriter notes) {
        this.msr = msr;
        this.contexts = contexts;
        this.force = force;
        this.backend = backend;
        this.notes = notes;
    }

    /** Checks and reads; throws (nothing written) when any write would be refused. */
    List<Planned> plan(List<Request> requests) {
        List<Planned> out = new ArrayList<>();
        for (Request r : requests) {
            CpuContext ctx = contexts.of(r.cpu());
            MsrDef def = r.reg().def().orElse(null);
            if (def == null && !force) {
                throw refusal(Cause.BAD_INPUT, r.cpu(), r.reg().label() + " is not in hwtool's catalog: not written without --force");
            }
            if (def != null) {
                // Register-level rules need no read: refuse before touching the CPU at all.
                for (Violation v : WriteCheck.check(def, 0, ctx)) {
                    if (v.kind() == Violation.Kind.NOT_ON_THIS_CPU) {
                        throw refusal(Cause.UNSUPPORTED, r.cpu(), v.message());
                    }
                    if (v.kind() == Violation.Kind.READ_ONLY_REGISTER) {
                        throw refusal(Cause.BAD_INPUT, r.cpu(), v.message());
                    }
                }
            }
            long current = read(r.cpu(), r.reg());
            for (Change c : r.changes()) {
                long next = switch (c) {
                    case Change.Whole w -> w.value();
                    case Change.Fields f -> applyFields(r.cpu(), def, f, current, ctx);
                };
                if (def != null) {
                    List<Violation> vs = WriteCheck.check(def, current, next, ctx);
                    if (!vs.isEmpty()) {
                        throw refusal(Cause.BAD_INPUT, r.cpu(), vs.getFirst().message());
                    }
                }
                out.add(new Planned(r.cpu(), r.reg(), current, next, verifyMask(def, ctx), unverified(def, ctx)));
                current = next;
            }
        }
        return out;
    }

    private long applyFields(int cpu, MsrDef def, Change.Fields f, long old, CpuContext ctx) {
        long v = old;
        for (FieldValue fv : f.fields()) {
            MsrField field = fv.field();
            String path = def.name() + "." + field.name() + " " + field.bitsText();
            if (!field.existsOn(ctx)) {
                throw refusal(Cause.UNSUPPORTED, cpu, path + " does not exist on this CPU: needs " + field.condition().describe());
            }
            if (field.access() == Access.RO) {
                throw refusal(Cause.BAD_INPUT, cpu, path + " is read-only");
            }
            try {
                v = MsrFieldWrite.apply(def, field, v, fv.value(), ctx);
            } catch (IllegalArgumentException e) {
                throw refusal(Cause.BAD_INPUT, cpu, e.getMessage());
            }
        }
        return v;
    }

    /** Bits a read returns as written: the RW fields; all 64 bits of a register outside the catalog. */
    static long verifyMask(MsrDef def, CpuContext ctx) {
        if (def == null) {
            return -1L;
        }
        if (def.access() == Access.W1C || def.access() == Access.WO) {
            return 0;
        }
        long m = 0;
        for (MsrField f : def.fieldsOn(ctx)) {
            if (f.access() == Access.RW) {
                m |= f.mask(ctx);
            }
        }
        return m;
    }

    /** W1C, R/WC0 and write-only bits: a read does not return what was written there. */
    static long unverified(MsrDef def, CpuContext ctx) {
        if (def == null) {
            return 0;
        }
        if (def.access() == Access.W1C || def.access() == Access.WO) {
            return def.definedMask(ctx);
        }
        long m = 0;
        for (MsrField f : def.fieldsOn(ctx)) {
            if (f.access() == Access.W1C || f.access() == Access.WO || f.access() == Access.RWC0) {
                m |= f.mask(ctx);
            }
        }
        return m;
    }

    /** Lines for --dry-run: old → new per register and per changed field. */
    List<String> describe(List<Planned> plan) {
        List<String> out = new ArrayList<>();
        for (Planned p : plan) {
            out.add("CPU " + p.cpu() + " " + p.reg().label() + " " + p.reg().hex() + ": "
                    + Numbers.hex64(p.oldValue()) + " -> " + Numbers.hex64(p.newValue())
                    + (p.oldValue() == p.newValue() ? " (no change)" : ""));
            MsrDef def = p.reg().def().orElse(null);
            if (def != null) {
                CpuContext ctx = contexts.of(p.cpu());
                Map<String, DecodedField> before = new HashMap<>();
                for (DecodedField f : MsrDecoder.decode(def, p.oldValue(), ctx)) {
                    before.put(f.name() + f.lo(), f);
                }
                for (DecodedField f : MsrDecoder.decode(def, p.newValue(), ctx)) {
                    DecodedField b = before.get(f.name() + f.lo());
                    long was = b == null ? 0 : b.value();
                    if (was != f.value()) {
                        out.add("  " + f.name() + " " + f.bitsText() + ": 0x" + Long.toHexString(was) + " -> 0x"
                                + Long.toHexString(f.value()));
                    }
                }
            }
            if (p.verifyMask() == 0) {
                out.add("  (" + p.reg().label() + " is write-1-to-clear/write-only: the write cannot be verified by reading back)");
            }
        }
        return out;
    }

    /**
     * Makes the planned writes in order, journaling each in {@code journal} (whose lock the
     * caller holds from before {@link #plan}, so the old values cannot change under it). Room
     * for every entry the batch can need is reserved first: a journal that cannot take it stops
     * the batch before any write. On any failure puts back every register already written (in
     * reverse order), says on {@code notes} what was restored and what could not be, and
     * rethrows the failure.
     */
    void execute(MsrJournal.Locked journal, List<Planned> plan, MsrJournal.Kind kind, Long undoes) {
        if (plan.isEmpty()) {
            return;
        }
        long room = 0;
        for (Planned p : plan) {
            room += MsrJournal.reservation(backend, p.cpu(), p.reg().address(), p.reg().name());
        }
        try {
            journal.reserve(room);
        } catch (HwException e) {
            throw new HwException(e.reason(), e.getMessage() + "; nothing written", e.remedy().orElse(null), e);
        }
        long batch = journal.newBatch();
        List<Planned> done = new ArrayList<>();
        for (Planned p : plan) {
            try {
                writeVerified(journal, batch, kind, undoes, false, p.cpu(), p.reg(), p.oldValue(), p.newValue(), p.verifyMask());
                done.add(p);
                if (p.unverified() != 0 && p.oldValue() != p.newValue()) {
                    note("CPU " + p.cpu() + " " + p.reg().label() + ": write-1-to-clear/write-only bits 0x"
                            + Long.toHexString(p.unverified()) + " not verified (reads do not return them)");
                }
            } catch (HwException e) {
                if (e instanceof Mismatch) {
                    done.add(p);
                }
                rollBack(journal, batch, kind, undoes, done);
                throw e;
            }
        }
    }

    private void rollBack(MsrJournal.Locked journal, long batch, MsrJournal.Kind kind, Long undoes, List<Planned> done) {
        for (int i = done.size() - 1; i >= 0; i--) {
            Planned p = done.get(i);
            try {
                writeVerified(journal, batch, kind, undoes, true, p.cpu(), p.reg(), p.newValue(), p.oldValue(), p.verifyMask());
                note("all or nothing: restored CPU " + p.cpu() + " " + p.reg().label() + " to " + Numbers.hex64(p.oldValue()));
            } catch (HwException e) {
                note("all or nothing: could NOT restore CPU " + p.cpu() + " " + p.reg().label() + " to "
                        + Numbers.hex64(p.oldValue()) + ": " + e.getMessage());
            }
        }
    }

    /** A read-back that differs from what was written. */
    static final class Mismatch extends HwException {
        Mismatch(String message) {
            super(Cause.VERIFICATION_FAILED, message,
                    "the CPU changed or ignored bits on its own (the catalog may not know this model's rule); "
                            + "check 'hwtool rdmsr --decode' and the SDM for this register");
        }
    }

    private void writeVerified(MsrJournal.Locked journal, long batch, MsrJournal.Kind kind, Long undoes, boolean rollback,
                               int cpu, RegisterArg reg, long oldValue, long newValue, long verifyMask) {
        // Journal first: a write the journal cannot record is not made, so every change can be
        // undone. A rollback is the exception: it puts back the value the journal already holds
        // as the old one, so all or nothing wins over recording it (restore --last then finds the
        // register no longer at the batch's value and refuses without --force).
        try {
            journal.append(MsrJournal.entry(batch, kind, rollback, undoes, backend, cpu, reg.address(), reg.name(), oldValue, newValue));
        } catch (HwException je) {
            if (!rollback) {
                throw je;
            }
            note("all or nothing: " + je.getMessage() + "; putting CPU " + cpu + " " + reg.label() + " back anyway");
        }
        try {
            msr.write(cpu, (int) reg.address(), newValue);
        } catch (HwException e) {
            // The WRMSR did not happen (#GP or refused): say so in the journal, value back at old.
            try {
                journal.append(MsrJournal.entry(batch, kind, true, undoes, backend, cpu, reg.address(), reg.name(), newValue, oldValue));
            } catch (HwException je) {
                note(je.getMessage());
            }
            throw new AccessFailure(MsrToolsErrors.Op.WRITE, cpu, reg, newValue, e);
        }
        if (verifyMask == 0) {
            return;
        }
        long back = read(cpu, reg);
        if (((back ^ newValue) & verifyMask) != 0) {
            throw new Mismatch("CPU " + cpu + " " + reg.label() + " " + reg.hex() + ": wrote " + Numbers.hex64(newValue)
                    + " but read back " + Numbers.hex64(back) + " (bits 0x"
                    + Long.toHexString((back ^ newValue) & verifyMask) + " differ)");
        }
    }

    long read(int cpu, RegisterArg reg) {
        try {
            return msr.read(cpu, (int) reg.address());
        } catch (HwException e) {
            throw new AccessFailure(MsrToolsErrors.Op.READ, cpu, reg, 0, e);
        }
    }

    private static HwException refusal(Cause cause, int cpu, String message) {
        return new HwException(cause, "CPU " + cpu + ": " + message + "; nothing written");
    }

    private void note(String line) {
        notes.println("hwtool: " + line);
        notes.flush();
    }
}
