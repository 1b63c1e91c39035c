package dev.hwtool.arch.decode;

/**
 * Everything hwtool decodes from one logical CPU's CPUID answers: a pure value.
 *
 * @param coreType hybrid core type from leaf 1AH for this CPU ("Core", "Atom", ...) or ""
 *                 when the CPU is not hybrid or does not say
 * @param amd      AMD's perfmon/LBR/BRS/IBS flags ({@link AmdPerf#NONE} on other vendors)
 */
public record CpuCapabilities(Identity identity, Microarchitecture microarchitecture, boolean hybrid,
                              String coreType, Hypervisor hypervisor, Features features,
                              ArchPerfmon archPerfmon, ArchLbr archLbr, LegacyLbr legacyLbr, AmdPerf amd) {

    /** Without AMD's flags (they read as {@link AmdPerf#NONE}): for callers that build Intel or vendor-neutral values. */
    public CpuCapabilities(Identity identity, Microarchitecture microarchitecture, boolean hybrid, String coreType,
                           Hypervisor hypervisor, Features features, ArchPerfmon archPerfmon, ArchLbr archLbr,
                           LegacyLbr legacyLbr) {
        this(identity, microarchitecture, hybrid, coreType, hypervisor, features, archPerfmon, archLbr, legacyLbr,
                AmdPerf.NONE);
    }
}
