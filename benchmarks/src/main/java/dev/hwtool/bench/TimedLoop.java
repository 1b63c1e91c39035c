package dev.hwtool.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

/**
 * A plain timed loop, for where JMH is too heavy (the QEMU guest of {@link MsrReadLoop}): untimed
 * warm-up runs, then timed runs of the same size, each reported as ns per operation; the best
 * and the median of the timed runs, in the line format of the C references
 * ({@code benchmarks/src/main/c/*_loop.c}), which {@code benchmarks/scripts/report.py} reads.
 */
final class TimedLoop {

    /** One timed body: performs {@code passes} passes and returns a value that depends on every one. */
    @FunctionalInterface
    interface Body {
        long run(long passes);
    }

    /**
     * @param name     the operation, as report.py knows it
     * @param ops      operations counted per run (passes times operations per pass)
     * @param warmupNs every warm-up run's ns/op, to show when the JIT settled
     */
    record Result(String name, long ops, double[] samples, double[] warmupNs) {

        double best() {
            return Arrays.stream(samples).min().orElseThrow();
        }

        double median() {
            double[] s = samples.clone();
            Arrays.sort(s);
            int n = s.length;
            return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
        }

        /** name, ops, best, median, every run: the C references' line. */
        String tsv() {
            return String.join("\t", name, Long.toString(ops), f(best()), f(median()), join(samples));
        }

        static String join(double[] xs) {
            return Arrays.stream(xs).mapToObj(Result::f).collect(Collectors.joining(","));
        }

        private static String f(double x) {
            return String.format(Locale.ROOT, "%.2f", x);
        }
    }

    private final int warmups;
    private final int runs;
    private final Consumer<String> progress;
    /** Every body's result ends up here, so that the JIT cannot drop the work. */
    private long sink;

    TimedLoop(int warmups, int runs, Consumer<String> progress) {
        if (warmups < 0 || runs < 1) {
            throw new IllegalArgumentException("warm-up runs must be >= 0 and timed runs >= 1");
        }
        this.warmups = warmups;
        this.runs = runs;
        this.progress = progress;
    }

    /**
     * Times {@code body}: {@code passes} passes per run, each pass {@code opsPerPass} operations.
     */
    Result measure(String name, long passes, int opsPerPass, Body body) {
        long ops = passes * opsPerPass;
        double[] warm = new double[warmups];
        for (int i = 0; i < warmups; i++) {
            warm[i] = once(body, passes, ops);
            progress.accept(String.format(Locale.ROOT, "%s warm-up %d: %.1f ns/op", name, i + 1, warm[i]));
        }
        double[] samples = LongStream.range(0, runs).mapToDouble(i -> once(body, passes, ops)).toArray();
        Result r = new Result(name, ops, samples, warm);
        progress.accept(String.format(Locale.ROOT, "%s: best %.1f, median %.1f ns/op over %s", name, r.best(), r.median(),
                List.of(Result.join(samples))));
        return r;
    }

    private double once(Body body, long passes, long ops) {
        long t0 = System.nanoTime();
        sink += body.run(passes);
        return (double) (System.nanoTime() - t0) / ops;
    }

    /** What all bodies returned, summed: printed by the caller so that it is used. */
    long sink() {
        return sink;
    }
}
