package dev.hwtool.exporter;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * One event counted on whole CPUs, exported as {@code hwtool_perf_<event>_total{cpu}} in the style
 * of node_exporter's perf collector (node_perf_instructions_total, ...): the clocks, counted in
 * nanoseconds, as {@code _seconds_total}.
 *
 * @param metric the metric name without {@code _total}
 * @param scale  what one count is in the metric's unit (1e-9 for the clocks' nanoseconds)
 * @param perCpu each CPU's running count (may throw HwException, counted as a scrape error)
 */
public record PerfCounter(String event, String metric, double scale, Map<Integer, LongSupplier> perCpu) {

    public PerfCounter {
        Objects.requireNonNull(event, "event");
        perCpu = Map.copyOf(perCpu);
    }

    /** The metric for {@code event} (a perf event name, as {@code stat -e} takes it). */
    public static PerfCounter of(String event, Map<Integer, LongSupplier> perCpu) {
        String base = event.strip().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "_").replaceAll("^_+|_+$", "");
        boolean clock = base.equals("cpu_clock") || base.equals("task_clock");
        return new PerfCounter(event, "hwtool_perf_" + base + (clock ? "_seconds" : ""), clock ? 1e-9 : 1, perCpu);
    }
}
