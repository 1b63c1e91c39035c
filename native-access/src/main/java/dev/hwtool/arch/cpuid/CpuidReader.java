package dev.hwtool.arch.cpuid;

/**
 * A pure view of one logical CPU's CPUID answers, as the decoders see it. Implementations
 * are a live source bound to a CPU, a dump, or a simulator profile; the decoders in
 * {@code dev.hwtool.arch} never know which.
 */
@FunctionalInterface
public interface CpuidReader {
    CpuidRegs cpuid(int leaf, int subleaf);

    default CpuidRegs cpuid(int leaf) {
        return cpuid(leaf, 0);
    }
}
