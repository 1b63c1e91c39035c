package dev.hwtool.jmh;

import org.junit.jupiter.api.Test;
import org.openjdk.jmh.profile.ProfilerException;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The text after {@code -prof dev.hwtool.jmh.HwtoolProfiler:}, parsed as JMH's own profilers parse theirs. */
class ProfilerOptionsTest {

    @Test
    void noOptionsMeansTheDefaultEvents() throws ProfilerException {
        assertEquals(ProfilerOptions.DEFAULT_EVENTS, ProfilerOptions.parse("").names());
        assertEquals(ProfilerOptions.DEFAULT_EVENTS, ProfilerOptions.parse(null).names());
    }

    @Test
    void eventsAreSplitAsPerfSplitsThem() throws ProfilerException {
        assertEquals(List.of("task-clock", "cycles:u"), ProfilerOptions.parse("events=task-clock, cycles:u").names());
        // a PMU/EVENT/ event, as perf writes it (tools/perf/util/parse-events.l)
        assertEquals(List.of("msr/tsc/", "page-faults"),
                ProfilerOptions.parse("events=msr/tsc/,page-faults").names());
    }

    @Test
    void clocksAreNanosecondsPerOperationAndTheRestCounts() throws ProfilerException {
        ProfilerOptions o = ProfilerOptions.parse("events=task-clock,cpu-clock,instructions,page-faults");
        assertEquals(List.of("ns/op", "ns/op", "#/op", "#/op"), o.events().stream().map(ProfilerOptions::unit).toList());
    }

    @Test
    void anUnknownOptionIsRefusedWithTheUsage() {
        ProfilerException e = assertThrows(ProfilerException.class, () -> ProfilerOptions.parse("instructions"));
        assertTrue(e.getMessage().contains("instructions") && e.getMessage().contains("events=<event,...>")
                && e.getMessage().contains("Usage: -prof dev.hwtool.jmh.HwtoolProfiler:"), e.getMessage());
    }

    @Test
    void anUnknownEventIsRefusedWithPerfsSyntax() {
        ProfilerException e = assertThrows(ProfilerException.class, () -> ProfilerOptions.parse("events=cycles,nosuch"));
        assertTrue(e.getMessage().startsWith("events: ") && e.getMessage().contains("nosuch"), e.getMessage());
        e = assertThrows(ProfilerException.class, () -> ProfilerOptions.parse("events="));
        assertTrue(e.getMessage().startsWith("events: "), e.getMessage());
    }

    @Test
    void helpIsTheUsage() {
        ProfilerException e = assertThrows(ProfilerException.class, () -> ProfilerOptions.parse("help"));
        String oneLine = e.getMessage().replaceAll("\\s+", " "); // JMH's layout wraps the descriptions
        assertTrue(oneLine.contains("Options accepted by dev.hwtool.jmh.HwtoolProfiler:")
                && oneLine.contains("(default: [task-clock,instructions,cycles,branches,branch-misses])"), e.getMessage());
    }
}
