package dev.hwtool.bench;

import dev.hwtool.arch.cpuid.CpuidRegs;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * CPUID two ways, on whatever CPU the benchmark thread runs (no pinning): the machine-code stub
 * through the binding, and pread of /dev/cpu/0/cpuid, whose file offset is the leaf
 * (arch/x86/kernel/cpuid.c; the kernel runs CPUID on CPU 0 by IPI if we are elsewhere).
 * In a VM every CPUID is a VM exit, which dominates both these and the C reference.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class CpuidBench {

    @Benchmark
    public CpuidRegs cpuidLeaf0(BindingState s) {
        return s.nb.cpuid(0, 0);
    }

    @Benchmark
    public CpuidRegs cpuidLeaf1(BindingState s) {
        return s.nb.cpuid(1, 0);
    }

    @Benchmark
    public long deviceLeaf0(BindingState s) {
        return s.nb.pread(s.cpuidFd(), s.regs, s.regs.length, 0);
    }

    @Benchmark
    public long deviceLeaf1(BindingState s) {
        return s.nb.pread(s.cpuidFd(), s.regs, s.regs.length, 1);
    }
}
