package dev.hwtool.arch.decode;

import dev.hwtool.arch.cpuid.CpuidReader;

/**
 * Composes every decoder into {@link CpuCapabilities} for one logical CPU. Where CPUID itself
 * enumerates architectural LBR, that overrides the legacy model table, as Linux's
 * intel_pmu_init() does (intel_pmu_arch_lbr_init() runs after the model switch).
 */
public final class CpuDecoder {

    private CpuDecoder() {
    }

    public static CpuCapabilities decode(CpuidReader reader) {
        GuardedCpuid c = GuardedCpuid.over(reader);
        Identity id = IdentityDecoder.decode(reader, c);
        ArchLbr archLbr = ArchLbrDecoder.decode(c);
        LegacyLbr legacy = archLbr.supported()
                ? LegacyLbr.none("CPUID.(07H,0):EDX[19] and leaf 1CH enumerate architectural LBR,"
                        + " which replaces legacy LBR")
                : LegacyLbrTable.lookup(id);
        return new CpuCapabilities(id, Microarchitectures.lookup(id),
                HybridDecoder.isHybrid(c), HybridDecoder.coreType(c),
                HypervisorDecoder.decode(c), FeaturesDecoder.decode(c),
                ArchPerfmonDecoder.decode(c), archLbr, legacy, AmdPerfDecoder.decode(c, id));
    }
}
