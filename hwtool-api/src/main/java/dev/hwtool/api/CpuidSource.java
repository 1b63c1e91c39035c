package dev.hwtool.api;

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
     * The CPU to read when none is named: the first of {@link #cpus()} this source can read from
     * here. For the instruction it is the first CPU this process may run on, which in a cpuset
     * (taskset, a container's or a pod's CPU set) need not be CPU 0.
     */
    default int defaultCpu() {
        return cpus().getFirst();
    }

    /**
     * The CPUs of {@link #cpus()} this source can read from here, in ascending order: all of
     * them, unless some are out of this process's reach (outside its affinity mask, with no other
     * path to them).
     */
    default List<Integer> reachableCpus() {
        return cpus();
    }

    /**
     * The path that answers for CPU {@code cpu}: {@link #name()}, or the name of the source a
     * CPU out of this source's own reach is read through (the instruction source reads a CPU
     * outside the process's affinity mask through the {@code device}).
     */
    default String pathOf(int cpu) {
        return name();
    }

    /**
     * CPUID(leaf, subleaf) as seen by logical CPU {@code cpu}.
     *
     * @throws HwException with {@link Cause#NO_SUCH_CPU} for a CPU not in {@link #cpus()},
     *                     or the cause of an access failure
     */
    CpuidResult cpuid(int cpu, int leaf, int subleaf);
}
