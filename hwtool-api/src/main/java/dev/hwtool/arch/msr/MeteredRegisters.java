package dev.hwtool.arch.msr;

import dev.hwtool.arch.cpuid.CpuidRegs.Reg;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which catalogued registers are meters — energy counters with their unit register, free-running
 * clock and instruction counters — and which of them a CPU has, so that a consumer (the exporter)
 * picks Intel's or AMD's from the catalog by vendor and CPUID instead of by address.
 *
 * <ul>
 * <li>RAPL: Intel's MSR_PKG/PP0/PP1/DRAM_ENERGY_STATUS count in MSR_RAPL_POWER_UNIT's energy unit
 *     (SDM Vol. 3B 14.9); AMD's MSR_AMD_PKG_ENERGY_STATUS and the per-core
 *     MSR_AMD_CORE_ENERGY_STATUS in MSR_AMD_RAPL_POWER_UNIT's (PPR 17h/19h; Linux
 *     arch/x86/events/rapl.c model_amd_hygon: .msr_power_unit = MSR_AMD_RAPL_POWER_UNIT).
 * <li>Frequency: IA32_MPERF/IA32_APERF (SDM Vol. 3B 15.2, CPUID.06H:ECX[0], on AMD too); on AMD
 *     with EffFreqRO (CPUID Fn8000_0007_EDX[10]) the read-only copies MPerfReadOnly/APerfReadOnly,
 *     which the APM (Vol. 2 chapter 17, effective frequency) provides so that readers cannot disturb each
 *     other (a write to IA32_MPERF, which the read-write pair allows, would skew every other reader).
 * </ul>
 */
public final class MeteredRegisters {

    /**
     * An energy status register and the register holding its unit.
     *
     * @param domain  node_exporter's RAPL zone name: package, core, uncore, dram
     * @param perCore true for AMD's MSR_AMD_CORE_ENERGY_STATUS, which counts one core's energy;
     *                the others are package-wide
     */
    public record RaplDomain(String status, String unit, String domain, boolean perCore) {
    }

    /** A free-running 64-bit count and the short name a metric takes from it (mperf, aperf, irperf). */
    public record FreeRunning(String register, String metric) {
    }

    private static final String INTEL_UNIT = "MSR_RAPL_POWER_UNIT";
    private static final Map<String, RaplDomain> RAPL = Map.of(
            "MSR_PKG_ENERGY_STATUS", new RaplDomain("MSR_PKG_ENERGY_STATUS", INTEL_UNIT, "package", false),
            "MSR_PP0_ENERGY_STATUS", new RaplDomain("MSR_PP0_ENERGY_STATUS", INTEL_UNIT, "core", false),
            "MSR_PP1_ENERGY_STATUS", new RaplDomain("MSR_PP1_ENERGY_STATUS", INTEL_UNIT, "uncore", false),
            "MSR_DRAM_ENERGY_STATUS", new RaplDomain("MSR_DRAM_ENERGY_STATUS", INTEL_UNIT, "dram", false),
            AmdMsrs.PKG_ENERGY, new RaplDomain(AmdMsrs.PKG_ENERGY, AmdMsrs.RAPL_POWER_UNIT, "package", false),
            AmdMsrs.CORE_ENERGY, new RaplDomain(AmdMsrs.CORE_ENERGY, AmdMsrs.RAPL_POWER_UNIT, "core", true));
    /** Reporting order of {@link #raplOn}: package first, as node_exporter lists zones. */
    private static final List<String> RAPL_ORDER = List.of("MSR_PKG_ENERGY_STATUS", AmdMsrs.PKG_ENERGY,
            "MSR_PP0_ENERGY_STATUS", "MSR_PP1_ENERGY_STATUS", "MSR_DRAM_ENERGY_STATUS", AmdMsrs.CORE_ENERGY);

    private static final Map<String, FreeRunning> FREE_RUNNING = Map.of(
            "IA32_MPERF", new FreeRunning("IA32_MPERF", "mperf"),
            "IA32_APERF", new FreeRunning("IA32_APERF", "aperf"),
            AmdMsrs.MPERF_RO, new FreeRunning(AmdMsrs.MPERF_RO, "mperf"),
            AmdMsrs.APERF_RO, new FreeRunning(AmdMsrs.APERF_RO, "aperf"),
            AmdMsrs.IRPERF_COUNT, new FreeRunning(AmdMsrs.IRPERF_COUNT, "irperf"));

    private static final Condition APERFMPERF = Condition.cpuid(0x6, 0, Reg.ECX, 0);

    private MeteredRegisters() {
    }

    /** The RAPL domain {@code def} counts, if it is an energy status register. */
    public static Optional<RaplDomain> rapl(MsrDef def) {
        return Optional.ofNullable(RAPL.get(def.name()));
    }

    /** The energy status registers this CPU has, package first; {@code packageOnly} leaves per-core ones out. */
    public static List<MsrDef> raplOn(CpuContext ctx, boolean packageOnly) {
        return RAPL_ORDER.stream().filter(n -> !packageOnly || !RAPL.get(n).perCore())
                .map(MeteredRegisters::def).filter(d -> d.existsOn(ctx)).toList();
    }

    /** The free-running count {@code def} is, if it is one. */
    public static Optional<FreeRunning> freeRunning(MsrDef def) {
        return Optional.ofNullable(FREE_RUNNING.get(def.name()));
    }

    /**
     * MPERF then APERF as this CPU should be read for its effective frequency: AMD's read-only
     * copies where EffFreqRO says they exist, else IA32_MPERF/IA32_APERF where CPUID.06H:ECX[0]
     * does; empty when neither.
     */
    public static List<MsrDef> frequencyOn(CpuContext ctx) {
        MsrDef mro = def(AmdMsrs.MPERF_RO);
        if (mro.existsOn(ctx)) {
            return List.of(mro, def(AmdMsrs.APERF_RO));
        }
        return APERFMPERF.test(ctx) ? List.of(def("IA32_MPERF"), def("IA32_APERF")) : List.of();
    }

    private static MsrDef def(String name) {
        return MsrCatalog.byName(name).orElseThrow(() -> new IllegalStateException(name + " not catalogued"));
    }
}
