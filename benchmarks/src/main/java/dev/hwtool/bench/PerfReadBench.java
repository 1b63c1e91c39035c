package dev.hwtool.bench;

import dev.hwtool.arch.perf.abi.PerfCounts;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * A counter read through read(2) (issue 5's target: within 1.1× of C), on the benchmark
 * thread's own task-clock event: {@code PerfEvent.read()} (the counts decoded into PerfCounts),
 * {@code PerfEvent.value()} (the value alone) and the binding's bare read(2) of the same fd, which
 * separates the binding's cost from PerfEvent's. Reference: perfRead in src/main/c/perf_loop.c.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class PerfReadBench {

    @Benchmark
    public PerfCounts read(PerfCounterState s) {
        return s.taskClock.read();
    }

    @Benchmark
    public long value(PerfCounterState s) {
        return s.taskClock.value();
    }

    @Benchmark
    public long bindingRead(PerfCounterState s) {
        return s.nb.read(s.taskClock.fd(), s.word, s.word.length);
    }
}
