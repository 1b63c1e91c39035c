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

    /**
     * {@code reader} with each (leaf, subleaf) asked of it at most once: the answers of one
     * moment, for a caller that decodes one CPU many times over. The decoders re-read the same
     * leaves on every question (GuardedCpuid reads leaves 0, 1, 40000000H and 80000000H for each
     * flag it tests), and on a live CPU each read pins the thread and executes CPUID, a VM exit
     * under a hypervisor. A failed read is not remembered. Not thread-safe.
     */
    static CpuidReader memoizing(CpuidReader reader) {
        java.util.Map<Long, CpuidRegs> answers = new java.util.HashMap<>();
        return (leaf, subleaf) -> {
            long key = ((long) leaf << 32) | (subleaf & 0xFFFF_FFFFL);
            CpuidRegs r = answers.get(key);
            if (r == null) {
                r = reader.cpuid(leaf, subleaf);
                answers.put(key, r);
            }
            return r;
        };
    }
}
