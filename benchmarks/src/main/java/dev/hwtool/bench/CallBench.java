package dev.hwtool.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * The same native calls through the FFM and the JNA binding (JMH parameter {@code binding}):
 * the RDTSC stub (almost no work inside, so it shows the binding's own cost), pread of 8 bytes
 * from a temp file, and syscall(getpid) (both mostly kernel time).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class CallBench {

    /** __NR_getpid, arch/x86/entry/syscalls/syscall_64.tbl. */
    static final long SYS_GETPID = 39;

    @Benchmark
    public long rdtsc(BindingState s) {
        return s.nb.rdtsc();
    }

    @Benchmark
    public long preadTmpfile8(BindingState s) {
        return s.nb.pread(s.tmpFd, s.word, s.word.length, 0);
    }

    @Benchmark
    public long syscallGetpid(BindingState s) {
        return s.nb.syscall(SYS_GETPID);
    }
}
