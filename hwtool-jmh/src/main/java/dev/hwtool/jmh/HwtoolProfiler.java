package dev.hwtool.jmh;

import dev.hwtool.api.Count;
import dev.hwtool.api.Counters;
import dev.hwtool.api.Counts;
import dev.hwtool.api.HwException;
import dev.hwtool.api.Platform;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.profile.ProfilerException;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;
import org.openjdk.jmh.results.TextResult;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Locale;

/**
 * A JMH profiler ({@code -prof hwtool}, or {@code -prof hwtool:events=instructions,cycles}) that
 * counts events per benchmark operation in the benchmark's own JVM through
 * {@link dev.hwtool.api.Platform#counters}: every thread of the fork is counted from the start
 * to the end of each measured iteration, and each event's count is divided by the iteration's
 * operations, as JMH's perfnorm normalizes. Unlike perfnorm there is no {@code perf} binary and
 * no text to parse. An event this machine cannot count is reported once per iteration as text
 * with its reason, never as a zero.
 */
public final class HwtoolProfiler implements InternalProfiler {

    /** perfnorm's default set, where the PMU has them. */
    static final List<String> DEFAULT_EVENTS = List.of("instructions", "cycles", "branches", "branch-misses",
            "task-clock");

    private final List<String> events;
    private Platform platform;
    private Counters counters;

    /** JMH's constructor: {@code events=a,b,c} (default {@link #DEFAULT_EVENTS}). */
    public HwtoolProfiler(String initLine) throws ProfilerException {
        this.events = parse(initLine);
    }

    public HwtoolProfiler() throws ProfilerException {
        this("");
    }

    static List<String> parse(String initLine) throws ProfilerException {
        String line = initLine == null ? "" : initLine.strip();
        if (line.isEmpty()) {
            return DEFAULT_EVENTS;
        }
        if (!line.startsWith("events=") || line.length() == "events=".length()) {
            throw new ProfilerException("hwtool profiler options: events=EVENT,EVENT,... (perf's names, e.g."
                    + " events=instructions,cycles,task-clock); got '" + line + "'");
        }
        return Arrays.stream(line.substring("events=".length()).split(",")).map(String::strip).toList();
    }

    @Override
    public String getDescription() {
        return "hwtool: events per operation, counted in process through perf_event_open (" + String.join(",", events)
                + ")";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        try {
            platform = Platform.open();
            // the worker threads exist now: count every thread of this fork
            counters = platform.counters(Counters.Scope.PROCESS, events);
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
        Counts counts;
        try {
            counts = counters.stop();
        } finally {
            closeQuietly();
        }
        long ops = result.getMetadata() == null ? 0 : result.getMetadata().getAllOps();
        List<Result> out = new ArrayList<>();
        StringBuilder unsupported = new StringBuilder();
        for (Count c : counts.counts()) {
            if (!c.supported()) {
                unsupported.append(String.format(Locale.ROOT, "  %s: not counted: %s%n", c.event(),
                        c.failure().orElseThrow().getMessage()));
                continue;
            }
            double value = c.scaled().orElse(c.raw());
            out.add(new ScalarResult("hwtool." + c.event(), ops > 0 ? value / ops : Double.NaN, "#/op",
                    AggregationPolicy.AVG));
        }
        if (!unsupported.isEmpty()) {
            out.add(new TextResult("hwtool: events this machine cannot count\n" + unsupported, "hwtool.unsupported"));
        }
        return out;
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
