package dev.hwtool.arch.cpuid;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The recorded CPUID answers of one logical CPU (from a dump, a profile, or an enumeration
 * of a live CPU), in the order they were recorded. A leaf/subleaf that was not recorded
 * reads as all zeros, which decoders treat as "not reported".
 */
public final class CpuidSnapshot implements CpuidReader {

    private final int cpu;
    private final List<CpuidLeaf> leaves;
    private final Map<Long, CpuidRegs> index;

    public CpuidSnapshot(int cpu, List<CpuidLeaf> leaves) {
        this.cpu = cpu;
        this.leaves = List.copyOf(leaves);
        Map<Long, CpuidRegs> m = new LinkedHashMap<>();
        for (CpuidLeaf l : this.leaves) {
            m.putIfAbsent(key(l.leaf(), l.subleaf()), l.regs());
        }
        this.index = Collections.unmodifiableMap(m);
    }

    public int cpu() {
        return cpu;
    }

    public List<CpuidLeaf> leaves() {
        return leaves;
    }

    @Override
    public CpuidRegs cpuid(int leaf, int subleaf) {
        CpuidRegs r = index.get(key(leaf, subleaf));
        return r == null ? CpuidRegs.ZERO : r;
    }

    public boolean has(int leaf, int subleaf) {
        return index.containsKey(key(leaf, subleaf));
    }

    private static long key(int leaf, int subleaf) {
        return (Integer.toUnsignedLong(leaf) << 32) | Integer.toUnsignedLong(subleaf);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CpuidSnapshot s && s.cpu == cpu && s.leaves.equals(leaves);
    }

    @Override
    public int hashCode() {
        return Objects.hash(cpu, leaves);
    }

    @Override
    public String toString() {
        return "CpuidSnapshot[cpu=" + cpu + ", " + leaves.size() + " leaves]";
    }
}
