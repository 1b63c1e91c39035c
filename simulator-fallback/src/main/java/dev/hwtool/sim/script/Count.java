package dev.hwtool.sim.script;

import dev.hwtool.sim.cpu.CpuStats;

import java.util.Locale;
import java.util.Optional;
import java.util.function.ToLongFunction;

/**
 * The counts an {@code expect} line can check, each a {@link CpuStats} component of the current
 * CPU. {@code lbr.count}, {@code btm.count} and {@code pmi.count} are the grammar's; the others
 * are scenario-language extensions.
 */
public enum Count {
    PMI("pmi.count", CpuStats::pmis),
    PMI_MASKED("pmi.masked", CpuStats::pmisMasked),
    BTM("btm.count", CpuStats::btmGenerated),
    LBR("lbr.count", CpuStats::lbrRecords),
    BTM_STORED("btm.stored", CpuStats::btsStored),
    BTM_DROPPED("btm.dropped", CpuStats::btsDropped),
    PEBS_RECORDS("pebs.count", CpuStats::pebsRecords),
    PEBS_DROPPED("pebs.dropped", CpuStats::pebsDropped),
    DEBUG_EXCEPTIONS("db.count", CpuStats::debugExceptions),
    INSTRUCTIONS("instructions", CpuStats::instructions),
    CYCLES("cycles", CpuStats::cycles);

    private final String scriptName;
    private final ToLongFunction<CpuStats> read;

    Count(String scriptName, ToLongFunction<CpuStats> read) {
        this.scriptName = scriptName;
        this.read = read;
    }

    public String scriptName() {
        return scriptName;
    }

    public long of(CpuStats stats) {
        return read.applyAsLong(stats);
    }

    public static Optional<Count> byName(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        for (Count c : values()) {
            if (c.scriptName.equals(n)) {
                return Optional.of(c);
            }
        }
        return Optional.empty();
    }
}
