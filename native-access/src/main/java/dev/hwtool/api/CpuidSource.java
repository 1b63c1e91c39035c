package dev.hwtool.api;

import dev.hwtool.arch.cpuid.CpuidReader;
import dev.hwtool.arch.cpuid.CpuidRegs;

import java.util.List;
import java.util.function.Function;

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
    CpuidRegs cpuid(int cpu, int leaf, int subleaf);

    /** A pure view bound to one CPU, for the decoders. */
    default CpuidReader reader(int cpu) {
        return (leaf, subleaf) -> cpuid(cpu, leaf, subleaf);
    }

    /**
     * Runs {@code reads} with a reader of CPU {@code cpu} and returns its result: the reads of
     * one CPU made as one. A source whose every read pays a set-up does it once for the call: the
     * instruction source pins the thread to the CPU once instead of once per read (each pin is
     * three system calls). The answers are the same as {@link #reader}'s.
     *
     * <p>{@code reads} should read CPUID and compute, nothing else: no I/O and nothing that
     * blocks while the thread is held on one CPU. The reader may be kept (a memoizing decoder
     * reads on demand); after the call its reads cost what {@link #reader}'s do.
     *
     * @throws HwException as {@link #cpuid} does
     */
    default <T> T onCpu(int cpu, Function<CpuidReader, T> reads) {
        return reads.apply(reader(cpu));
    }
}
