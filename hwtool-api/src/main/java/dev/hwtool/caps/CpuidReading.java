package dev.hwtool.caps;

import dev.hwtool.api.CpuidResult;
import dev.hwtool.api.CpuidSource;
import dev.hwtool.api.HwException;
import dev.hwtool.arch.cpuid.CpuidReader;
import dev.hwtool.arch.cpuid.CpuidRegs;

import java.util.List;
import java.util.function.Function;

/**
 * A {@link CpuidSource} as hwtool's decoders read it: answers as the register knowledge's
 * {@link CpuidRegs}, a {@link CpuidReader} bound to one CPU, and {@link #onCpu} for many reads of
 * one CPU made as one. Every source hwtool makes is one; {@link #of} adapts a user's. The
 * contract's {@link CpuidSource} keeps to its own {@link CpuidResult}, so that the register
 * knowledge stays out of the API (issue 25).
 */
public interface CpuidReading extends CpuidSource {

    /**
     * CPUID(leaf, subleaf) as seen by logical CPU {@code cpu}.
     *
     * @throws HwException as {@link CpuidSource#cpuid} does
     */
    CpuidRegs regs(int cpu, int leaf, int subleaf);

    @Override
    default CpuidResult cpuid(int cpu, int leaf, int subleaf) {
        CpuidRegs r = regs(cpu, leaf, subleaf);
        return new CpuidResult(r.eax(), r.ebx(), r.ecx(), r.edx());
    }

    /** A pure view bound to one CPU, for the decoders. */
    default CpuidReader reader(int cpu) {
        return (leaf, subleaf) -> regs(cpu, leaf, subleaf);
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
     * @throws HwException as {@link CpuidSource#cpuid} does
     */
    default <T> T onCpu(int cpu, Function<CpuidReader, T> reads) {
        return reads.apply(reader(cpu));
    }

    /** {@code source} itself when it is one of hwtool's, else a view of it that reads through its {@code cpuid}. */
    static CpuidReading of(CpuidSource source) {
        if (source instanceof CpuidReading r) {
            return r;
        }
        return new CpuidReading() {
            @Override
            public CpuidRegs regs(int cpu, int leaf, int subleaf) {
                CpuidResult r = source.cpuid(cpu, leaf, subleaf);
                return new CpuidRegs(r.eax(), r.ebx(), r.ecx(), r.edx());
            }

            @Override
            public CpuidResult cpuid(int cpu, int leaf, int subleaf) {
                return source.cpuid(cpu, leaf, subleaf);
            }

            @Override
            public String name() {
                return source.name();
            }

            @Override
            public String description() {
                return source.description();
            }

            @Override
            public List<Integer> cpus() {
                return source.cpus();
            }

            @Override
            public int defaultCpu() {
                return source.defaultCpu();
            }

            @Override
            public List<Integer> reachableCpus() {
                return source.reachableCpus();
            }

            @Override
            public String pathOf(int cpu) {
                return source.pathOf(cpu);
            }
        };
    }
}
