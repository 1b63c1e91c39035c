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
 * CPUID leaf 0 of CPU 0 the way the library answers it: DeviceCpuidSource (pread of the cached
 * /dev/cpu/0/cpuid descriptor, decoded into CpuidRegs) and InstructionCpuidSource (pin the thread
 * to CPU 0, check sched_getcpu, run the stub, restore the affinity mask: three extra syscalls and
 * possibly a migration per call).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class SourceBench {

    @Benchmark
    public CpuidRegs deviceSourceLeaf0(SourceState s) {
        return s.device.regs(0, 0, 0);
    }

    @Benchmark
    public CpuidRegs instructionSourceLeaf0(SourceState s) {
        return s.instruction.regs(0, 0, 0);
    }
}
