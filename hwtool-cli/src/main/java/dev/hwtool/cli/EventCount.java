package dev.hwtool.cli;

import dev.hwtool.api.EventSpec;
/**
 * One event's outcome in {@code hwtool stat}.
 *
 * @param event         the name as given (with ":u" added when perf's user-only fallback applied)
 * @param spec          the parsed event
 * @param supported     whether the event could be opened
 * @param count         the raw count (nanoseconds for task-clock/cpu-clock); 0 when not supported
 * @param timeEnabledNs PERF_FORMAT_TOTAL_TIME_ENABLED
 * @param timeRunningNs PERF_FORMAT_TOTAL_TIME_RUNNING: less than enabled when the event was multiplexed
 * @param error         why it is not supported (one line), else null
 * @param remedy        what to do about it, or null
 */
record EventCount(String event, EventSpec spec, boolean supported, long count, long timeEnabledNs,
                  long timeRunningNs, String error, String remedy) {

    static EventCount unsupported(EventSpec spec, String error, String remedy) {
        return new EventCount(spec.text(), spec, false, 0, 0, 0, error, remedy);
    }

    /** Opened but never scheduled onto a counter (perf's "<not counted>"). */
    boolean counted() {
        return supported && timeRunningNs > 0;
    }

    /** Whether the counter ran for only part of the time (multiplexing). */
    boolean scaledUp() {
        return counted() && timeRunningNs < timeEnabledNs;
    }

    /** count × enabled / running, as perf stat estimates a multiplexed count; the count when it ran all along. */
    long scaled() {
        return scaledUp() ? (long) ((double) count * timeEnabledNs / timeRunningNs) : count;
    }

    /** The share of the enabled time the counter ran, in percent (100 without multiplexing). */
    double runningPercent() {
        return timeEnabledNs == 0 ? 100.0 : 100.0 * timeRunningNs / timeEnabledNs;
    }

    /** "ns" for the clocks, "" for event counts. */
    String unit() {
        return spec.clock() ? "ns" : "";
    }
}
