package dev.hwtool.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The three forms of {@code hwtool stat}'s report: perf stat's table (tools/perf/util/stat-display.c),
 * its {@code -x SEP} lines, and one JSON object. Only formatting: the numbers are the
 * {@link StatResult}'s.
 */
final class StatOutput {

    static final String NOT_SUPPORTED = "<not supported>";
    static final String NOT_COUNTED = "<not counted>";

    /** PerfErrors' "perf_event_open(hardware config 0x0, pid 12, cpu -1): " prefix. */
    private static final java.util.regex.Pattern CALL = java.util.regex.Pattern.compile("^perf_event_open\\([^)]*\\): ");

    private StatOutput() {
    }

    /** A shown metric: value and unit, perf's "# 0.809 CPUs utilized" / "433.791 K/sec". */
    record Metric(double value, String unit) {
    }

    /**
     * perf's shadow metric: task-clock as CPUs utilized (task-clock / wall time), any other
     * counted event as a rate per second of task-clock, when task-clock was counted.
     */
    static Metric metric(EventCount e, StatResult r) {
        if (!e.counted()) {
            return null;
        }
        if (e.spec().taskClock()) {
            return r.elapsedNs() == 0 ? null : new Metric((double) e.scaled() / r.elapsedNs(), "CPUs utilized");
        }
        if (e.spec().clock()) {
            return null;
        }
        EventCount clock = r.events().stream().filter(x -> x.spec().taskClock() && x.counted()).findFirst().orElse(null);
        if (clock == null || clock.scaled() == 0) {
            return null;
        }
        double perSec = e.scaled() * 1e9 / clock.scaled();
        if (perSec >= 1e9) {
            return new Metric(perSec / 1e9, "G/sec");
        }
        if (perSec >= 1e6) {
            return new Metric(perSec / 1e6, "M/sec");
        }
        if (perSec >= 1e3) {
            return new Metric(perSec / 1e3, "K/sec");
        }
        return new Metric(perSec, "/sec");
    }

    /** The count column: msec with 2 decimals for the clocks, else the integer; or the reason there is none. */
    static String value(EventCount e) {
        if (!e.supported()) {
            return NOT_SUPPORTED;
        }
        if (!e.counted()) {
            return NOT_COUNTED;
        }
        return e.spec().clock() ? String.format(Locale.ROOT, "%.2f", e.scaled() / 1e6) : Long.toString(e.scaled());
    }

    static String displayUnit(EventCount e) {
        return e.spec().clock() ? "msec" : "";
    }

    /** The table, as perf stat prints it, and a note per event that could not be counted. */
    static String text(StatResult r) {
        StringBuilder b = new StringBuilder();
        b.append("\n Performance counter stats for '").append(String.join(" ", r.command())).append('\'');
        if (!r.backend().equals("hardware")) {
            b.append(" [").append(r.backend()).append(']');
        }
        b.append(":\n\n");
        for (EventCount e : r.events()) {
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%18s %-4s %-32s", value(e), displayUnit(e),
                    e.event()));
            Metric m = metric(e, r);
            if (m != null) {
                line.append(String.format(Locale.ROOT, " # %8.3f %s", m.value(), m.unit()));
            }
            if (e.scaledUp()) {
                line.append(String.format(Locale.ROOT, "  (%.2f%%, scaled from %d)", e.runningPercent(), e.count()));
            }
            b.append(line.toString().stripTrailing()).append('\n');
        }
        b.append(String.format(Locale.ROOT, "\n%18.9f seconds time elapsed\n\n", r.elapsedNs() / 1e9));
        // One line per distinct reason: the events it applies to, then the reason without the
        // perf_event_open(...) call that differs per event (the JSON keeps each full message).
        Map<String, List<String>> reasons = new LinkedHashMap<>();
        Set<String> remedies = new LinkedHashSet<>();
        for (EventCount e : r.events()) {
            if (!e.supported()) {
                reasons.computeIfAbsent(CALL.matcher(e.error()).replaceFirst(""), k -> new ArrayList<>()).add(e.event());
                if (e.remedy() != null) {
                    remedies.add(e.remedy());
                }
            }
        }
        reasons.forEach((why, events) -> b.append("hwtool: ").append(String.join(", ", events)).append(": ")
                .append(why).append('\n'));
        for (String fix : remedies) {
            b.append("hwtool: fix: ").append(fix).append('\n');
        }
        return b.toString();
    }

    /**
     * perf stat -x SEP: per event value, unit, event, time running (ns), percent running, metric
     * value, metric unit.
     */
    static String csv(StatResult r, String sep) {
        StringBuilder b = new StringBuilder();
        for (EventCount e : r.events()) {
            Metric m = metric(e, r);
            List<String> f = new ArrayList<>(List.of(value(e), displayUnit(e), e.event(),
                    Long.toString(e.timeRunningNs()), String.format(Locale.ROOT, "%.2f", e.runningPercent()),
                    m == null ? "" : String.format(Locale.ROOT, "%.3f", m.value()), m == null ? "" : m.unit()));
            b.append(String.join(sep, f)).append('\n');
        }
        return b.toString();
    }

    /** One JSON object; the fields are README.md's "JSON fields of hwtool stat --json". */
    static String json(StatResult r) {
        Map<String, Object> top = new LinkedHashMap<>();
        top.put("backend", r.backend());
        top.put("command", r.command());
        top.put("exit_code", r.exitCode());
        top.put("elapsed_ns", r.elapsedNs());
        List<Object> events = new ArrayList<>();
        for (EventCount e : r.events()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("event", e.event());
            m.put("supported", e.supported());
            m.put("count", e.supported() ? e.count() : null);
            m.put("unit", e.unit());
            m.put("time_enabled_ns", e.timeEnabledNs());
            m.put("time_running_ns", e.timeRunningNs());
            m.put("scaled", e.counted() ? e.scaled() : null);
            m.put("error", e.error());
            m.put("remedy", e.remedy());
            events.add(m);
        }
        top.put("events", events);
        return Json.write(top) + "\n";
    }
}
