package dev.hwtool.arch.decode;

/**
 * Everything hwtool decodes from one logical CPU's CPUID answers: a pure value.
 *
 * @param coreType hybrid core type from leaf 1AH for this CPU ("Core", "Atom", ...) or ""
 *                 when the CPU is not hybrid or does not say
 */
public record CpuCapabilities(Identity identity, Microarchitecture microarchitecture, boolean hybrid,
                              String coreType, Hypervisor hypervisor, Features features,
                              ArchPerfmon archPerfmon, ArchLbr archLbr, LegacyLbr legacyLbr) {
}
