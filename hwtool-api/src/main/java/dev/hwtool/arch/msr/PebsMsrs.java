package dev.hwtool.arch.msr;

import dev.hwtool.arch.pebs.PebsSupport;

import java.util.ArrayList;
import java.util.List;

import static dev.hwtool.arch.msr.Access.RW;
import static dev.hwtool.arch.msr.Fields.bit;
import static dev.hwtool.arch.msr.Fields.bits;

/**
 * PEBS control registers (SDM Vol. 3B, Performance Monitoring, the IA32_PEBS_ENABLE figures of
 * each generation and "Adaptive PEBS"; Vol. 4 Table 2-2; msr-index.h MSR_IA32_PEBS_ENABLE,
 * MSR_PEBS_DATA_CFG, MSR_PEBS_LD_LAT_THRESHOLD; Linux intel_pmu_pebs_enable in
 * arch/x86/events/intel/ds.c for which bit enables what). They exist on Intel models with PEBS
 * ({@link PebsSupport}) and DS (CPUID.01H:EDX[21]); IA32_MISC_ENABLE[12] (PEBS unavailable) is a
 * run-time value the catalog cannot see.
 *
 * <p>IA32_PEBS_ENABLE bits 32–35 mean different things by generation: LL_EN_PMCi (load-latency
 * PEBS on IA32_PMCi, Nehalem to Skylake) or PEBS_EN_FIXEDi (PEBS on fixed counter i, adaptive
 * PEBS from Ice Lake). A register's fields never overlap, so each of those bits is one field
 * named after both meanings.
 */
final class PebsMsrs {

    private static final String SRC = "SDM Vol. 3B Performance Monitoring (PEBS), Vol. 4 Table 2-2; msr-index.h;"
            + " Linux ds.c intel_pmu_pebs_enable";

    static final Condition PEBS = Condition.and(Condition.Vendor.INTEL, DebugMsrs.DS,
            new Condition.IntelModel(6, PebsSupport.ALL, "a model with PEBS (Linux intel_ds_init)"));
    static final Condition PMC0_ONLY = new Condition.IntelModel(6, PebsSupport.PMC0_ONLY,
            "PEBS on IA32_PMC0 only (Core, Atom, Silvermont)");
    static final Condition LOAD_LATENCY = new Condition.IntelModel(6, PebsSupport.LOAD_LATENCY_ENABLES,
            "load-latency PEBS enables (Nehalem to Skylake)");
    static final Condition PRECISE_STORE = new Condition.IntelModel(6, PebsSupport.SANDY_BRIDGE,
            "precise store (Sandy Bridge, Ivy Bridge)");

    private PebsMsrs() {
    }

    static List<MsrDef> defs() {
        return List.of(pebsEnable(), pebsDataCfg(), loadLatencyThreshold());
    }

    static MsrDef pebsEnable() {
        List<MsrField> f = new ArrayList<>();
        for (int i = 0; i < PerfmonMsrs.MAX_GP; i++) {
            Condition has = new Condition.GpCounterIndexBelow(i);
            f.add(bit(i, "PEBS_EN_PMC" + i, RW, i == 0 ? has : Condition.and(has, Condition.not(PMC0_ONLY)),
                    "PEBS on IA32_PMC" + i));
        }
        for (int i = 0; i < PerfmonMsrs.MAX_FIXED; i++) {
            Condition fixed = Condition.and(PerfmonMsrs.PEBS_BASELINE, new Condition.FixedCounterIndexBelow(i));
            if (i < 4) {
                Condition ll = Condition.and(LOAD_LATENCY, new Condition.GpCounterIndexBelow(i));
                f.add(bit(32 + i, "PEBS_EN_FIXED" + i + "_OR_LL_EN_PMC" + i, RW, Condition.or(fixed, ll),
                        "adaptive PEBS: PEBS on IA32_FIXED_CTR" + i + "; Nehalem to Skylake: load-latency PEBS on IA32_PMC" + i));
            } else {
                f.add(bit(32 + i, "PEBS_EN_FIXED" + i, RW, fixed, "PEBS on IA32_FIXED_CTR" + i + " (adaptive PEBS)"));
            }
        }
        f.add(bit(63, "PS_EN", RW, PRECISE_STORE, "precise store on IA32_PMC3 (Sandy Bridge, Ivy Bridge)"));
        return new MsrDef("IA32_PEBS_ENABLE", 0x3F1, f, RW, PEBS,
                "which counters take PEBS records through the DS save area", SRC);
    }

    /** Adaptive PEBS (PEBS_BASELINE): the groups a record carries (perf_event.h PEBS_DATACFG_*). */
    static MsrDef pebsDataCfg() {
        return new MsrDef("MSR_PEBS_DATA_CFG", 0x3F2, List.of(
                bit(0, "MEMINFO", "memory-info group (address, aux, latency, TSX tuning)"),
                bit(1, "GP", "general-purpose register group"),
                bit(2, "XMMS", "XMM register group"),
                bit(3, "LBRS", "LBR entries group"),
                bits(31, 24, "LBR_ENTRIES", "LBR entries in the record, minus 1")),
                RW, Condition.and(PEBS, PerfmonMsrs.PEBS_BASELINE),
                "adaptive PEBS record groups", SRC + "; perf_event.h PEBS_DATACFG_*");
    }

    static MsrDef loadLatencyThreshold() {
        return new MsrDef("MSR_PEBS_LD_LAT_THRESHOLD", 0x3F6, List.of(
                bits(15, 0, "THRESHOLD", "minimum load latency (core cycles) a load-latency record needs")),
                RW, Condition.and(PEBS, new Condition.IntelModel(6, PebsSupport.LOAD_LATENCY_THRESHOLD,
                        "load-latency PEBS (Nehalem and later big cores)")),
                "load-latency PEBS threshold", SRC);
    }
}
