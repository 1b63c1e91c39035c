package dev.hwtool.msr;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.MsrAccess;
import dev.hwtool.arch.msr.MsrCatalog;
import dev.hwtool.arch.msr.MsrDef;
import dev.hwtool.io.TerminalText;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The writes that put registers back: from a save file ({@code msr restore FILE}) or to before a
 * journal batch ({@code msr restore --last}, {@code WriteRequest.undo}). Both then go through
 * {@link MsrWriter}'s careful path. {@code forceHint} is how the caller's user says "force" (the
 * CLI's {@code --force}), named in the remedies.
 */
public final class MsrRestore {

    private MsrRestore() {
    }

    /** The writes a save file needs, and how many of its registers already held their value. */
    public record FromFile(List<MsrWriter.Request> requests, int unchanged) {
    }

    /**
     * The registers of {@code saved} that differ from their saved value now, as writes of it.
     *
     * @throws HwException BAD_INPUT when the file comes from another backend (unless
     *                     {@code force}) or names a register the catalog spells differently;
     *                     a device error reading a register (as {@link MsrWriter.AccessFailure})
     */
    public static FromFile fromFile(MsrSaveFile saved, Path file, String backend, boolean force, String forceHint,
                                    MsrAccess msr) {
        if (!saved.backend().equals(backend) && !force) {
            throw new HwException(Cause.BAD_INPUT, TerminalText.quote(file.toString()) + " was saved on "
                    + TerminalText.quote(saved.backend()) + ", not on " + TerminalText.quote(backend)
                    + ": nothing written", "restore it on the machine it came from, or add " + forceHint);
        }
        int unchanged = 0;
        List<MsrWriter.Request> out = new ArrayList<>();
        for (MsrSaveFile.Register r : saved.registers()) {
            Optional<MsrDef> def = MsrCatalog.byAddress(r.msr());
            if (r.name() != null && def.isPresent() && !def.get().name().equalsIgnoreCase(r.name())) {
                throw new HwException(Cause.BAD_INPUT, TerminalText.quote(file.toString()) + ": MSR " + Hex.hex32(r.msr())
                        + " is " + def.get().name() + ", not " + TerminalText.quote(r.name()) + ": nothing written");
            }
            MsrRegister reg = new MsrRegister(r.msr(), def);
            // A register that already holds its saved value is left alone: no write, no journal
            // entry, and read-only registers (saved for the record) restore without a refusal.
            if (MsrWriter.read(msr, r.cpu(), reg) == r.value()) {
                unchanged++;
                continue;
            }
            out.add(new MsrWriter.Request(r.cpu(), reg, List.of(new MsrWriter.Change.Whole(r.value()))));
        }
        return new FromFile(out, unchanged);
    }

    /**
     * The batch's registers, last written first, back to their values before it.
     *
     * @throws HwException BAD_INPUT when the batch was written on another backend, or (unless
     *                     {@code force}) a register no longer holds the value the batch left
     */
    public static List<MsrWriter.Request> undo(MsrJournal.Batch batch, String backend, boolean simulated, boolean force,
                                               String forceHint, MsrAccess msr) {
        if (!batch.backend().equals(backend)) {
            // A dump's backend is its path: quoted for the terminal, as any text from a file.
            throw new HwException(Cause.BAD_INPUT, "batch " + batch.id() + " was written on " + TerminalText.quote(batch.backend())
                    + ", not " + TerminalText.quote(backend) + ": nothing written", "undo it on the machine it was written on");
        }
        List<MsrJournal.Net> net = new ArrayList<>(batch.net());
        Collections.reverse(net);
        List<MsrWriter.Request> out = new ArrayList<>();
        for (MsrJournal.Net n : net) {
            MsrRegister reg = MsrRegister.at(n.msr());
            long now = MsrWriter.read(msr, n.cpu(), reg);
            if (now != n.after() && !force) {
                throw new HwException(Cause.BAD_INPUT, "CPU " + n.cpu() + " " + reg.label() + " is " + Hex.hex64(now)
                        + ", not " + Hex.hex64(n.after()) + " as batch " + batch.id() + " left it: nothing written",
                        (simulated ? "the simulator starts every run from the profile's boot values; " : "")
                                + "add " + forceHint + " to restore " + Hex.hex64(n.before()) + " anyway");
            }
            out.add(new MsrWriter.Request(n.cpu(), reg, List.of(new MsrWriter.Change.Whole(n.before()))));
        }
        return out;
    }

    /**
     * Batch {@code id} of the journal, if it can be undone: it exists, is not itself an undo, and
     * has not been undone.
     *
     * @throws HwException BAD_INPUT otherwise, or when the journal has a damaged line
     */
    public static MsrJournal.Batch undoable(Path file, MsrJournal.Contents c, long id) {
        MsrJournal.lastUndoable(file, c);   // refuses a damaged journal, as restore --last does
        Set<Long> undone = new HashSet<>();
        for (MsrJournal.Entry e : c.entries()) {
            if (e.undoes() != null) {
                undone.add(e.undoes());
            }
        }
        for (MsrJournal.Batch b : c.batches()) {
            if (b.id() == id) {
                if (b.kind() == MsrJournal.Kind.UNDO) {
                    throw new HwException(Cause.BAD_INPUT, "batch " + id + " in " + file + " is itself an undo: nothing written",
                            "write the values again instead");
                }
                if (undone.contains(id)) {
                    throw new HwException(Cause.BAD_INPUT, "batch " + id + " in " + file + " has been undone already: nothing written");
                }
                return b;
            }
        }
        if (id > c.maxBatch()) {
            // The id was never handed out here: the batch is in another journal (a simulated
            // platform keeps its own; a request's journal(dir) names another directory).
            throw new HwException(Cause.BAD_INPUT, "no batch " + id + " in " + file + " ("
                    + (c.maxBatch() == 0 ? "it has no batches" : "its batches end at " + c.maxBatch())
                    + "): the batch is in another journal; nothing written",
                    "undo the WriteResult itself (WriteRequest.undo(result) knows its journal), or name that"
                            + " journal's directory with journal(Path)");
        }
        throw new HwException(Cause.BAD_INPUT, "no batch " + id + " in " + file + ": nothing written",
                "the journal's batch ids are in WriteResult.batch()");
    }
}
