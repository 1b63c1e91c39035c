package dev.hwtool.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/** A small real benchmark for the profiler test: a known amount of work per operation. */
@State(Scope.Thread)
public class SpinBench {

    long seed = 17;

    @Benchmark
    public long spin() {
        long x = seed;
        for (int i = 0; i < 10_000; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
        }
        return x;
    }
}
