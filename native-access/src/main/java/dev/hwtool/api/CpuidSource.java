package dev.hwtool.api;

import dev.hwtool.arch.cpuid.CpuidReader;
import dev.hwtool.arch.cpuid.CpuidRegs;

import java.util.List;

/**
 * Where CPUID answers come from: the instruction itself, /dev/cpu/N/cpuid, a dump file,
 * or a simulator profile. Every implementation answers the same question the same way,
 * so decoders and commands never care which one they hold.
 */
public interface CpuidSource {

    /** Short stable name: {@code instruction}, {@code device}, {@code dump}, {@code sim}. */
    String name();

    /** Human description, e.g. the dump file or profile it reads. */
    String description();

    /** Logical CPUs this source can answer for, in ascending order. */
    List<Integer> cpus();

    /**
     * CPUID(leaf, subleaf) as seen by logical CPU {@code cpu}.
     *
     * @throws HwException with {@link Cause#NO_SUCH_CPU} for a CPU not in {@link #cpus()},
     *                     or the cause of an access failure
     */
    CpuidRegs cpuid(int cpu, int leaf, int subleaf);

    /** A pure view bound to one CPU, for the decoders. */
    default CpuidReader reader(int cpu) {
        return (leaf, subleaf) -> cpuid(cpu, leaf, subleaf);
    }
}
