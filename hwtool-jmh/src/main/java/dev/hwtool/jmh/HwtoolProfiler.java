package dev.hwtool.jmh;

import dev.hwtool.api.Count;
import dev.hwtool.api.Counters;
import dev.hwtool.api.Counts;
import dev.hwtool.api.EventSpec;
import dev.hwtool.api.HwException;
import dev.hwtool.api.Platform;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.ExternalProfiler;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.profile.ProfilerException;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.runner.IterationType;

import java.io.File;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A JMH profiler, {@code -prof dev.hwtool.jmh.HwtoolProfiler} (or
 * {@code -prof dev.hwtool.jmh.HwtoolProfiler:events=task-clock,instructions}), that counts events
 * per benchmark operation in the benchmark's own JVM through
 * {@link dev.hwtool.api.Platform#counters}: every thread of the fork is counted from the start to
 * the end of each iteration, and each count is divided by the iteration's operations, as JMH's
 * perfnorm normalizes; task-clock and cpu-clock in ns/op, the others in #/op. There is no
 * {@code perf} binary and no text to parse.
 *
 * <p>JMH knows a profiler by a short name only when it is one of its own (jmh-core
 * ProfilerFactory.BUILT_IN); a profiler it discovers through {@code META-INF/services} it matches
 * by its canonical class name, so {@code -prof hwtool} cannot name this one.
 *
 * <p>The class is both halves of a JMH profiler: in the host JVM, as an {@link ExternalProfiler},
 * it adds {@code --enable-native-access=ALL-UNNAMED} to each fork's command line (perf_event_open
 * is a native call through the FFM API, JEP 454; JMH starts every fork on the class path,
 * jmh-core Runner.getForkedMainCommand), so the user passes no JVM option; in the fork, as an
 * {@link InternalProfiler}, it counts. An event this machine cannot count is said once, in the
 * fork's header before its first iteration, never as a row with NaN or zero.
 */
public final class HwtoolProfiler implements InternalProfiler, ExternalProfiler {

    /** Set on the forks' command line by {@link #addJVMOptions}: this instance is the one that counts. */
    static final String FORK_PROPERTY = "dev.hwtool.jmh.fork";

    /** The native-access option each fork gets. */
    static final String NATIVE_ACCESS = "--enable-native-access=ALL-UNNAMED";

    private final ProfilerOptions options;
    private final PrintStream out;
    private final Set<String> reported = new HashSet<>();
    private boolean firstIteration = true;
    private Platform platform;
    private Counters counters;

    /**
     * JMH's constructor: the text after {@code -prof dev.hwtool.jmh.HwtoolProfiler:}
     * ({@link ProfilerOptions}). In a fork this is the instance that counts.
     */
    public HwtoolProfiler(String initLine) throws ProfilerException {
        this(ProfilerOptions.parse(initLine), System.out);
        if (Boolean.getBoolean(FORK_PROPERTY)) {
            reportUnsupportedNow();
        }
    }

    /**
     * The ServiceLoader's constructor: JMH instantiates every discovered profiler this way each
     * time it looks a name up (ProfilerFactory.getDiscoveredProfilers), in the fork too, so this
     * one only knows the defaults and opens nothing.
     */
    public HwtoolProfiler() throws ProfilerException {
        this(ProfilerOptions.parse(""), System.out);
    }

    HwtoolProfiler(ProfilerOptions options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    @Override
    public String getDescription() {
        return "hwtool: events per operation counted in the benchmark's JVM through perf_event_open, no perf binary"
                + " (events=" + String.join(",", options.names()) + "; options: "
                + ProfilerOptions.NAME + ":help)";
    }

    // ---- the host JVM's half

    @Override
    public Collection<String> addJVMInvokeOptions(BenchmarkParams params) {
        return List.of();
    }

    @Override
    public Collection<String> addJVMOptions(BenchmarkParams params) {
        return List.of(NATIVE_ACCESS, "-D" + FORK_PROPERTY + "=true");
    }

    @Override
    public void beforeTrial(BenchmarkParams benchmarkParams) {
        // nothing to prepare in the host: the fork counts
    }

    @Override
    public Collection<? extends Result> afterTrial(BenchmarkResult br, long pid, File stdOut, File stdErr) {
        return List.of();
    }

    @Override
    public boolean allowPrintOut() {
        return true;
    }

    @Override
    public boolean allowPrintErr() {
        return true;
    }

    // ---- the fork's half

    /**
     * JMH constructs the fork's profilers before the fork prints its first iteration
     * (jmh-core BenchmarkHandler's constructor), so what this machine cannot count is said there,
     * in the header. A failure to open the counters at all is left to the first iteration, which
     * fails the benchmark with it: a profiler that throws here would be dropped by JMH
     * (ProfilerFactory.getProfilerOrNull) without a word.
     */
    private void reportUnsupportedNow() {
        try (Platform p = Platform.open(); Counters c = p.counters(Counters.Scope.PROCESS, options.names())) {
            // started and stopped at once: a read before start is an error (Counters), and an
            // event's support is known once it is open
            c.start();
            report(c.stop(), false);
        } catch (HwException e) {
            // said by beforeIteration, with its remedy
        }
    }

    /**
     * Opens the counters for every thread of the fork, for a measured iteration: JMH keeps no
     * result of a warmup one (jmh-core BaseRunner.runBenchmark). JMH calls this before it hands
     * the iteration to its executor (BenchmarkHandler.runIteration), whose worker threads the
     * first iteration's tasks start: they do not exist yet in the fork's first iteration, which is
     * therefore not counted when it is a measured one (no warmup).
     */
    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        boolean first = firstIteration;
        firstIteration = false;
        if (iterationParams.getType() != IterationType.MEASUREMENT) {
            return;
        }
        if (first) {
            out.println(); // after JMH's "Iteration   1: "
            out.println("# hwtool: iteration 1 not counted: JMH starts its worker threads after the profiler opens"
                    + " its counters; with a warmup iteration (-wi 1 or more) every measured one is counted");
            out.flush();
            return;
        }
        try {
            platform = Platform.open();
            // every thread of this fork, JMH's worker threads among them since the first iteration
            counters = platform.counters(Counters.Scope.PROCESS, options.names());
            counters.start();
        } catch (HwException e) {
            closeQuietly();
            throw new IllegalStateException("hwtool profiler: " + e.getMessage() + e.remedy().map(r -> "; fix: " + r)
                    .orElse(""), e);
        }
    }

    @Override
    public Collection<? extends Result> afterIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams,
                                                       IterationResult result) {
        if (counters == null) {
            return List.of(); // a warmup iteration, or the uncounted first one
        }
        Counts counts;
        try {
            counts = counters.stop();
        } finally {
            closeQuietly();
        }
        report(counts, true); // in a run without forks (-f 0) this is the first chance
        long ops = result.getMetadata() == null ? 0 : result.getMetadata().getAllOps();
        List<Result> out = new ArrayList<>();
        if (ops <= 0) {
            return out; // nothing to divide by: no row rather than a NaN one
        }
        for (int i = 0; i < counts.counts().size(); i++) {
            Count c = counts.counts().get(i);
            EventSpec event = options.events().get(i);
            if (c.supported()) {
                out.add(new PerOperation("hwtool." + c.event(), c.scaled().orElse(c.raw()) / ops,
                        ProfilerOptions.unit(event)));
            }
        }
        return out;
    }

    /** One line per event this machine cannot count, the first time it is seen. */
    private void report(Counts counts, boolean midLine) {
        boolean newLine = midLine;
        for (Count c : counts.counts()) {
            if (!c.supported() && reported.add(c.event())) {
                if (newLine) {
                    out.println(); // after JMH's "Iteration   N: "
                    newLine = false;
                }
                HwException f = c.failure().orElseThrow();
                out.println("# hwtool: " + c.event() + ": not counted: " + f.getMessage()
                        + f.remedy().map(r -> "; fix: " + r).orElse(""));
            }
        }
        out.flush();
    }

    private void closeQuietly() {
        try {
            if (counters != null) {
                counters.close();
            }
        } finally {
            counters = null;
            if (platform != null) {
                platform.close();
                platform = null;
            }
        }
    }
}
