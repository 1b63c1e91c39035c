package dev.hwtool.bench;

import dev.hwtool.linux.perf.PerfSelfMonitor;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * {@code PerfSelfMonitor.read()} on the thread's HARDWARE instructions counter: the user-page
 * seqlock and RDPMC through the binding's stub. Reference: rdpmc in src/main/c/perf_loop.c (the
 * same loop in C, as in the header comment of include/uapi/linux/perf_event.h).
 *
 * <p>Needs a hardware PMU that grants user-space RDPMC. Without one the setup fails with the
 * reason ({@link RdpmcTarget}), and benchmarks/run.sh, which asks {@link RdpmcTarget#main} first,
 * does not run this benchmark and reports the reason instead. An iteration whose last read fell
 * back to read(2) fails too: its figure would not be the RDPMC path.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class PerfRdpmcBench {

    @State(Scope.Thread)
    public static class Target {
        @Param({"ffm", "jna"})
        public String binding;

        RdpmcTarget target;
        PerfSelfMonitor monitor;

        @Setup(Level.Trial)
        public void open() {
            target = RdpmcTarget.open(binding);
            if (target.unavailable.isPresent()) {
                String why = target.unavailable.get();
                target.close();
                throw new IllegalStateException("rdpmc not measured here: " + why);
            }
            monitor = target.monitor;
        }

        @TearDown(Level.Iteration)
        public void tookTheRdpmcPath() {
            if (monitor.lastPath() != PerfSelfMonitor.Path.RDPMC) {
                throw new IllegalStateException("PerfSelfMonitor.read() took the " + monitor.lastPath()
                        + " path: the counter left its PMC (index 0) during the iteration");
            }
        }

        @TearDown(Level.Trial)
        public void close() {
            target.close();
        }
    }

    @Benchmark
    public long selfRead(Target t) {
        return t.monitor.read();
    }
}
