package dev.hwtool.msr;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.MsrAccess;
import dev.hwtool.arch.msr.CountingRegisters;
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
import java.util.function.IntFunction;

/**
 * The one careful path every MSR write takes (wrmsr, msr restore): plan — check each write
 * against the catalog for that CPU and read the old values, refusing before any WRMSR — then
 * write in order, journal each write before it is made, read each back and verify it, and if
 * any CPU fails put back every register already written (all or nothing).
 *
 * <p>The library's {@code MsrAccess.write(WriteRequest)} and the CLI's wrmsr and msr restore
 * both run here; what it says on the way (what was rolled back, bits it could not verify) goes
 * to {@code notes}, one line each with the prefix "hwtool: ".
 */
public final class MsrWriter {

    /** What to put in a register: a whole value, or some fields (read-modify-write). */
    public sealed interface Change {
        record Whole(long value) implements Change {
        }

        record Fields(List<FieldValue> fields) implements Change {
            public Fields {
                fields = List.copyOf(fields);
            }
        }
    }

    public record FieldValue(MsrField field, long value) {
    }

    /** Writes to one register of one CPU, made in order. */
    public record Request(int cpu, MsrRegister reg, List<Change> changes) {
        public Request {
            changes = List.copyOf(changes);
        }
    }

    /**
     * One planned WRMSR. {@code verifyMask} is the bits a read-back must return as written
     * (0: not verifiable); {@code unverified} the W1C/WO bits a read does not return.
     */
    public record Planned(int cpu, MsrRegister reg, long oldValue, long newValue, long verifyMask, long unverified) {
    }

    /** Which access of the write path failed. */
    public enum Op { READ, WRITE }

    /** A device error during the write path, with where it happened (for msr-tools' messages). */
    public static final class AccessFailure extends HwException {
        private final Op op;
        private final int cpu;
        private final long msr;
        private final long value;
        private final HwException underlying;

        AccessFailure(Op op, int cpu, MsrRegister reg, long value, HwException underlying) {
            super(underlying.cause(), "CPU " + cpu + ": cannot " + (op == Op.READ ? "read " : "write ")
                    + reg.label() + (reg.def().isPresent() ? " (" + reg.hex() + ")" : "")
                    + (op == Op.WRITE ? " = " + Hex.hex64(value) : "") + ": " + underlying.getMessage(),
                    underlying.remedy().orElse(null), underlying);
            this.op = op;
            this.cpu = cpu;
            this.msr = reg.address();
            this.value = value;
            this.underlying = underlying;
        }

        public Op op() {
            return op;
        }

        public int cpu() {
            return cpu;
        }

        public long msr() {
            return msr;
        }

        /** The value a failed write tried to put (0 for a read). */
        public long value() {
            return value;
        }

        /** The backend's own exception (an MsrAccessException with its errno on hardware). */
        public HwException underlying() {
            return underlying;
        }
    }

    /**
     * What {@link #execute} did so far, per planned write (by index), kept when it throws: which
     * WRMSRs happened, which read back as written, which were put back by the rollback, and the
     * journal batch (0 without a journal).
     */
    public static final class Progress {
        final boolean[] written;
        final boolean[] verified;
        final boolean[] rolledBack;
        long batch;

        public Progress(int size) {
            written = new boolean[size];
            verified = new boolean[size];
            rolledBack = new boolean[size];
        }

        public boolean written(int i) {
            return written[i];
        }

        public boolean verified(int i) {
            return verified[i];
        }

        public boolean rolledBack(int i) {
            return rolledBack[i];
        }

        public long batch() {
            return batch;
        }
    }

    /** A read of the old value for a request outside {@link #plan}, failing as the write path does. */
    public static long read(MsrAccess msr, int cpu, MsrRegister reg) {
        try {
            return msr.read(cpu, (int) reg.address());
        } catch (HwException e) {
            throw new AccessFailure(Op.READ, cpu, reg, 0, e);
        }
    }

    private final MsrAccess msr;
    private final IntFunction<CpuContext> contexts;
    private final boolean force;
    private final String backend;
    private final PrintWriter notes;

    /**
     * @param contexts the catalog's view of each CPU
     * @param force    write registers outside the catalog too
     * @param backend  "hw" or "sim:PROFILE", recorded in the journal
     * @param notes    where to say what was rolled back or not verified (stderr for the CLI)
     */
    public MsrWriter(MsrAccess msr, IntFunction<CpuContext> contexts, boolean force, String backend, PrintWriter notes) {
        this.msr = msr;
        this.contexts = contexts;
        this.force = force;
        this.backend = backend;
        this.notes = notes;
    }

    /** Checks and reads; throws (nothing written) when any write would be refused. */
    public List<Planned> plan(List<Request> requests) {
        List<Planned> out = new ArrayList<>();
        for (Request r : requests) {
            CpuContext ctx = contexts.apply(r.cpu());
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
    public List<String> describe(List<Planned> plan) {
        List<String> out = new ArrayList<>();
        for (Planned p : plan) {
            out.add("CPU " + p.cpu() + " " + p.reg().label() + " " + p.reg().hex() + ": "
                    + Hex.hex64(p.oldValue()) + " -> " + Hex.hex64(p.newValue())
                    + (p.oldValue() == p.newValue() ? " (no change)" : ""));
            MsrDef def = p.reg().def().orElse(null);
            if (def != null) {
                CpuContext ctx = contexts.apply(p.cpu());
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
     * rethrows the failure. A null {@code journal} makes the same writes without one (nothing
     * to undo them from afterwards).
     */
    public void execute(MsrJournal.Locked journal, List<Planned> plan, MsrJournal.Kind kind, Long undoes) {
        execute(journal, plan, kind, undoes, new Progress(plan.size()));
    }

    /** As {@link #execute(MsrJournal.Locked, List, MsrJournal.Kind, Long)}, saying in {@code progress} what it did. */
    public void execute(MsrJournal.Locked journal, List<Planned> plan, MsrJournal.Kind kind, Long undoes, Progress progress) {
        if (plan.isEmpty()) {
            return;
        }
        if (journal == null) {
            run(null, 0, plan, kind, undoes, progress);
            return;
        }
        long room = 0;
        for (Planned p : plan) {
            room += MsrJournal.reservation(backend, p.cpu(), p.reg().address(), p.reg().name());
        }
        try {
            journal.reserve(room);
        } catch (HwException e) {
            throw new HwException(e.cause(), e.getMessage() + "; nothing written", e.remedy().orElse(null), e);
        }
        long batch = journal.newBatch();
        progress.batch = batch;
        run(journal, batch, plan, kind, undoes, progress);
    }

    private void run(MsrJournal.Locked journal, long batch, List<Planned> plan, MsrJournal.Kind kind, Long undoes,
                     Progress progress) {
        List<Integer> done = new ArrayList<>();
        for (int i = 0; i < plan.size(); i++) {
            Planned p = plan.get(i);
            try {
                writeVerified(journal, batch, kind, undoes, false, p.cpu(), p.reg(), p.oldValue(), p.newValue(), p.verifyMask(),
                        progress, i);
                done.add(i);
                if (p.unverified() != 0 && p.oldValue() != p.newValue()) {
                    note("CPU " + p.cpu() + " " + p.reg().label() + ": write-1-to-clear/write-only bits 0x"
                            + Long.toHexString(p.unverified()) + " not verified (reads do not return them)");
                }
            } catch (HwException e) {
                if (e instanceof Mismatch) {
                    done.add(i);
                }
                rollBack(journal, batch, kind, undoes, plan, done, progress);
                throw e;
            }
        }
    }

    private void rollBack(MsrJournal.Locked journal, long batch, MsrJournal.Kind kind, Long undoes, List<Planned> plan,
                          List<Integer> done, Progress progress) {
        for (int i = done.size() - 1; i >= 0; i--) {
            Planned p = plan.get(done.get(i));
            try {
                long back = rollbackValue(p);
                writeVerified(journal, batch, kind, undoes, true, p.cpu(), p.reg(), p.newValue(), back, p.verifyMask(),
                        null, 0);
                progress.rolledBack[done.get(i)] = true;
                note("all or nothing: restored CPU " + p.cpu() + " " + p.reg().label() + " to " + Hex.hex64(back)
                        + (back == p.oldValue() ? "" : " (the " + Hex.hex64(p.oldValue()) + " read before the write, plus the "
                        + Long.toUnsignedString(back - p.oldValue() & p.verifyMask()) + " it has counted since)"));
            } catch (HwException e) {
                note("all or nothing: could NOT restore CPU " + p.cpu() + " " + p.reg().label() + " to "
                        + Hex.hex64(p.oldValue()) + ": " + e.getMessage());
            }
        }
    }

    /** A read-back that differs from what was written. */
    public static final class Mismatch extends HwException {
        Mismatch(String message) {
            super(Cause.VERIFICATION_FAILED, message,
                    "the CPU changed or ignored bits on its own (the catalog may not know this model's rule); "
                            + "check 'hwtool rdmsr --decode' and the SDM for this register");
        }
    }

    private void writeVerified(MsrJournal.Locked journal, long batch, MsrJournal.Kind kind, Long undoes, boolean rollback,
                               int cpu, MsrRegister reg, long oldValue, long newValue, long verifyMask,
                               Progress progress, int index) {
        // Journal first: a write the journal cannot record is not made, so every change can be
        // undone. A rollback is the exception: it puts back the value the journal already holds
        // as the old one, so all or nothing wins over recording it (restore --last then finds the
        // register no longer at the batch's value and refuses without --force).
        try {
            if (journal != null) {
                journal.append(MsrJournal.entry(batch, kind, rollback, undoes, backend, cpu, reg.address(), reg.name(), oldValue, newValue));
            }
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
                if (journal != null) {
                    journal.append(MsrJournal.entry(batch, kind, true, undoes, backend, cpu, reg.address(), reg.name(), newValue, oldValue));
                }
            } catch (HwException je) {
                note(je.getMessage());
            }
            throw new AccessFailure(Op.WRITE, cpu, reg, newValue, e);
        }
        if (progress != null) {
            progress.written[index] = true;
        }
        if (verifyMask == 0) {
            return;
        }
        long back = read(cpu, reg);
        if (CountingRegisters.counts(reg.address()) ? !CountingRegisters.countedOn(newValue, back, verifyMask)
                : ((back ^ newValue) & verifyMask) != 0) {
            throw new Mismatch("CPU " + cpu + " " + reg.label() + " " + reg.hex() + ": wrote " + Hex.hex64(newValue)
                    + " but read back " + Hex.hex64(back) + " (bits 0x"
                    + Long.toHexString((back ^ newValue) & verifyMask) + " differ)");
        }
        if (progress != null) {
            progress.verified[index] = true;
        }
    }

    /**
     * The value a rollback puts back: the old value, except on a counting register that is
     * counting (its value now has counted on from the value written), where the old value is
     * stale: it gets what it counted since the write added, as if the write had not happened,
     * instead of being moved backwards.
     */
    private long rollbackValue(Planned p) {
        if (!CountingRegisters.counts(p.reg().address()) || p.verifyMask() == 0) {
            return p.oldValue();
        }
        long now = read(p.cpu(), p.reg());
        if (now == p.newValue() || !CountingRegisters.countedOn(p.newValue(), now, p.verifyMask())) {
            return p.oldValue();
        }
        long counted = now - p.newValue();
        return p.oldValue() & ~p.verifyMask() | (p.oldValue() + counted) & p.verifyMask();
    }

    long read(int cpu, MsrRegister reg) {
        return read(msr, cpu, reg);
    }

    private static HwException refusal(Cause cause, int cpu, String message) {
        return new HwException(cause, "CPU " + cpu + ": " + message + "; nothing written");
    }

    private void note(String line) {
        notes.println("hwtool: " + line);
        notes.flush();
    }
}
