package dev.hwtool.sim.scenario;

import dev.hwtool.sim.cpu.BtsRecord;
import dev.hwtool.sim.cpu.LbrEntry;
import dev.hwtool.sim.cpu.Pmi;
import dev.hwtool.sim.cpu.LogicalProcessor;
import dev.hwtool.sim.script.Command;

import java.util.List;

/** The readable reports of the {@code lbr}, {@code bts} and {@code pmi} commands: a title line, then one line per item. */
final class Reports {

    private Reports() {
    }

    static String of(Command.Report report, LogicalProcessor cpu) {
        return switch (report) {
            case LBR -> lbr(cpu);
            case BTS -> bts(cpu);
            case PMI -> pmi(cpu);
        };
    }

    /** Most recent first, as the LBR stack reads from TOS (or IA32_LBR_0) backwards. */
    static String lbr(LogicalProcessor cpu) {
        List<LbrEntry> entries = cpu.lbr();
        StringBuilder b = new StringBuilder("LBR on CPU " + cpu.number() + " (" + cpu.lbrKind() + ", depth "
                + cpu.lbrDepth() + "): " + plural(entries.size(), "entry", "entries") + ", most recent first");
        for (LbrEntry e : entries) {
            b.append("\n  ").append(String.format("%2d", e.position())).append("  from ").append(hex(e.from()))
                    .append(" to ").append(hex(e.to()))
                    .append("  mispredicted ").append(e.mispredicted() ? "yes" : "no")
                    .append("  cycles ").append(e.cycles() < 0 ? "-" : Integer.toString(e.cycles()))
                    .append("  type ").append(e.type() == null ? "-" : e.type().scriptName());
        }
        return b.toString();
    }

    /** The BTS buffer from its base to the index, oldest first. */
    static String bts(LogicalProcessor cpu) {
        List<BtsRecord> records = cpu.btsRecords();
        StringBuilder b = new StringBuilder("BTS buffer on CPU " + cpu.number() + ": "
                + plural(records.size(), "record", "records") + " from the base to the index, oldest first");
        for (int i = 0; i < records.size(); i++) {
            BtsRecord r = records.get(i);
            b.append("\n  ").append(String.format("%2d", i)).append("  from ").append(hex(r.from()))
                    .append(" to ").append(hex(r.to())).append("  flags ").append(hex(r.flags()))
                    .append(r.predicted() ? " (predicted)" : "");
        }
        return b.toString();
    }

    static String pmi(LogicalProcessor cpu) {
        List<Pmi> pmis = cpu.pmis();
        StringBuilder b = new StringBuilder("PMIs on CPU " + cpu.number() + ": " + plural(cpu.stats().pmis(), "PMI", "PMIs")
                + " taken" + (pmis.size() < cpu.stats().pmis() ? ", the last " + pmis.size() + " shown" : "")
                + (cpu.stats().pmisMasked() > 0 ? ", " + cpu.stats().pmisMasked() + " dropped while the LVT entry was masked" : ""));
        for (Pmi p : pmis) {
            b.append("\n  #").append(p.sequence()).append(" after instruction ").append(p.instruction())
                    .append("  overflowed ").append(hex(p.overflowed()))
                    .append("  bts-threshold ").append(p.btsThreshold() ? "yes" : "no")
                    .append("  pebs-threshold ").append(p.pebsThreshold() ? "yes" : "no")
                    .append("  froze ").append(p.froze());
        }
        return b.toString();
    }

    private static String plural(long n, String one, String many) {
        return n + " " + (n == 1 ? one : many);
    }

    private static String hex(long v) {
        return String.format("0x%016x", v);
    }
}
