package dev.hwtool.sim.cpu;

import dev.hwtool.arch.decode.CpuCapabilities;
import dev.hwtool.arch.decode.CpuidBit;
import dev.hwtool.arch.decode.GuardedCpuid;
import dev.hwtool.arch.decode.Identity;
import dev.hwtool.arch.decode.LegacyLbrTable;
import dev.hwtool.arch.pebs.PebsSupport;

import java.util.OptionalLong;
import java.util.Set;

/**
 * The value a simulated CPU reports in IA32_PERF_CAPABILITIES (345H). The register exists only
 * with PDCM, CPUID.01H:ECX[15] (SDM Vol. 4 Table 2-2). CPUID dumps do not
 * record MSRs, so the value is derived from what the dump does say (its family and model); the
 * fields below are modelled, the rest read 0 (no PERF_METRICS, no PEBS output to Intel PT):
 *
 * <ul>
 * <li>LBR_FMT [5:0] — the legacy LBR model table's format ({@link LegacyLbrTable}: 3 Nehalem to
 *     Ivy Bridge, 4 Haswell/Broadwell, 5 Skylake-derived cores, 6 Goldmont, 7 Goldmont Plus).
 *     Where the table does not know it (Core 2, Bonnell, Silvermont) the simulator
 *     <em>chooses</em> {@link #LBR_FMT_LIP} (1, 64-bit linear addresses): SDM Vol. 3B 17.4.8.1
 *     says Intel 64 processors store 64-bit addresses in 64-bit mode, and the SDM's MSR table for
 *     those cores names the registers MSR_LASTBRANCH_n_TO_LIP. For parts with architectural LBR
 *     (CPUID.(07H,0):EDX[19]) it <em>chooses</em> {@link #LBR_FMT_ARCH_LBR} (3FH, "no legacy
 *     format"), a value docs/facts.md §1 flags as UNCONFIRMED (seen only in third-party code).
 * <li>FW_WRITE [13] — full-width counter writes through IA32_A_PMCx (4C1H+). The simulator
 *     <em>chooses</em> to set it on Intel CPUs with architectural perfmon version ≥ 2 that are
 *     not of a generation before Sandy Bridge ({@link #PRE_SANDY_BRIDGE}: Core, Bonnell/Saltwell,
 *     Nehalem/Westmere). No primary source at hand lists the bit per model (Linux reads it from
 *     the MSR), hence a choice by generation; what the bit enables is SDM Vol. 3B "Full-Width
 *     Writes to Performance Counter Registers".
 * <li>SMM_FREEZE [12] — set where FW_WRITE is (a choice by generation, as for FW_WRITE; the
 *     simulator never enters SMM, so IA32_DEBUGCTL.FREEZE_WHILE_SMM is then a bit that holds its
 *     value and freezes nothing). With the PEBS fields a Skylake client reads 33C5H, as a real
 *     i7-6700K does.
 * <li>PEBS_TRAP [6], PEBS_ARCH_REG [7], PEBS_FMT [11:8], PEBS_BASELINE [14] — from the model
 *     table {@link PebsSupport} (the formats Linux's intel_ds_init reports as "PEBS fmtN+/-" on
 *     those parts) on CPUs with DS; PEBS_ARCH_REG is set wherever there is PEBS, every record
 *     format saving the general-purpose registers.
 * </ul>
 */
final class PerfCapabilitiesModel {

    static final int LBR_FMT_SHIFT = 0;
    static final long LBR_FMT_MASK = 0x3F;
    static final int LBR_FMT_LIP = LegacyLbrTable.FMT_LIP;
    static final int LBR_FMT_ARCH_LBR = 0x3F;
    static final int FW_WRITE_BIT = 13;
    static final int SMM_FREEZE_BIT = 12;
    static final int PEBS_TRAP_BIT = 6;
    static final int PEBS_ARCH_REG_BIT = 7;
    static final int PEBS_FMT_SHIFT = 8;
    static final int PEBS_BASELINE_BIT = 14;

    /** Family 6 models before Sandy Bridge (Linux intel-family.h; arch/x86/events/intel/lbr.c). */
    static final Set<Integer> PRE_SANDY_BRIDGE = Set.of(
            0x0F, 0x16, 0x17, 0x1D,                 // Core (Merom, Penryn, Dunnington)
            0x1C, 0x26, 0x27, 0x35, 0x36,           // Bonnell, Saltwell
            0x1A, 0x1E, 0x1F, 0x2E,                 // Nehalem
            0x25, 0x2C, 0x2F);                      // Westmere

    private PerfCapabilitiesModel() {
    }

    /** The register's value, or empty when the CPU has no IA32_PERF_CAPABILITIES (no PDCM). */
    static OptionalLong initial(CpuCapabilities caps, GuardedCpuid cpuid) {
        if (!cpuid.flag(CpuidBit.PDCM)) {
            return OptionalLong.empty();
        }
        long v = (long) lbrFormat(caps) << LBR_FMT_SHIFT;
        if (fullWidthWrites(caps)) {
            v |= 1L << FW_WRITE_BIT | 1L << SMM_FREEZE_BIT;
        }
        return OptionalLong.of(v | pebsFields(caps, cpuid));
    }

    /** PEBS_TRAP, PEBS_ARCH_REG, PEBS_FMT and PEBS_BASELINE of a CPU with DS and a PEBS model. */
    static long pebsFields(CpuCapabilities caps, GuardedCpuid cpuid) {
        if (!cpuid.flag(CpuidBit.DS)) {
            return 0;
        }
        return PebsSupport.of(caps.identity()).map(p -> (p.trap() ? 1L << PEBS_TRAP_BIT : 0)
                | 1L << PEBS_ARCH_REG_BIT
                | (long) p.format() << PEBS_FMT_SHIFT
                | (p.baseline() ? 1L << PEBS_BASELINE_BIT : 0)).orElse(0L);
    }

    static int lbrFormat(CpuCapabilities caps) {
        if (caps.archLbr().supported()) {
            return LBR_FMT_ARCH_LBR;
        }
        int table = caps.legacyLbr().format();
        return table >= 0 ? table : LBR_FMT_LIP;
    }

    static boolean fullWidthWrites(CpuCapabilities caps) {
        Identity id = caps.identity();
        return id.isIntel() && caps.archPerfmon().version() >= 2
                && !(id.family() == 6 && PRE_SANDY_BRIDGE.contains(id.model()));
    }
}
