package dev.hwtool.sim.cpu;

import dev.hwtool.arch.decode.CpuCapabilities;
import dev.hwtool.arch.decode.CpuidBit;
import dev.hwtool.arch.decode.GuardedCpuid;
import dev.hwtool.arch.decode.Identity;
import dev.hwtool.arch.decode.LegacyLbrTable;

import java.util.OptionalLong;
import java.util.Set;

/**
 * The value a simulated CPU reports in IA32_PERF_CAPABILITIES (345H). The register exists only
 * with PDCM, CPUID.01H:ECX[15] (SDM Vol. 4 Table 2-2). CPUID dumps do not
 * record MSRs, so the value is derived from what the dump does say; the simulator models only
 * two of its fields, the rest read 0 (it has no PEBS, no SMM and no PERF_METRICS — so, by the
 * catalog, IA32_DEBUGCTL.FREEZE_WHILE_SMM, which needs SMM_FREEZE [12], is reserved there):
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
 * </ul>
 */
final class PerfCapabilitiesModel {

    static final int LBR_FMT_SHIFT = 0;
    static final long LBR_FMT_MASK = 0x3F;
    static final int LBR_FMT_LIP = LegacyLbrTable.FMT_LIP;
    static final int LBR_FMT_ARCH_LBR = 0x3F;
    static final int FW_WRITE_BIT = 13;

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
            v |= 1L << FW_WRITE_BIT;
        }
        return OptionalLong.of(v);
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
