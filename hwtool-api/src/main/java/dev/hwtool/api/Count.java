package dev.hwtool.api;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * One event's count.
 *
 * @param event         the event as asked for ("instructions", "cycles:u", "r01c2")
 * @param raw           the counter's value (0 when not counted: read {@link #value()}, which then
 *                      throws the reason)
 * @param timeEnabledNs how long the event was enabled
 * @param timeRunningNs how long it was on a counter: less than enabled when the PMU multiplexed
 * @param failure       why the event cannot be counted here, or empty
 * @param unit          what {@code raw} counts: nanoseconds for the clock events (task-clock,
 *                      cpu-clock), events for the others
 */
public record Count(String event, long raw, long timeEnabledNs, long timeRunningNs, Optional<HwException> failure,
                    Unit unit) {

    /** What a count counts. */
    public enum Unit {
        /** Occurrences of the event: instructions, branches, cache misses, ... */
        EVENTS(""),
        /** Nanoseconds: the software clock events task-clock and cpu-clock (perf stat shows them in msec). */
        NANOSECONDS("ns");

        private final String symbol;

        Unit(String symbol) {
            this.symbol = symbol;
        }

        /** "ns", or "" for plain event counts (perf stat prints them without a unit). */
        public String symbol() {
            return symbol;
        }

        /**
         * The unit of {@code event} (perf's spelling, as {@link EventSpec#parse} takes it):
         * nanoseconds for the software clocks PERF_COUNT_SW_CPU_CLOCK and PERF_COUNT_SW_TASK_CLOCK
         * (include/uapi/linux/perf_event.h), events for everything else.
         *
         * @throws HwException BAD_INPUT for an event that does not parse
         */
        public static Unit of(String event) {
            return EventSpec.parse(event).clock() ? NANOSECONDS : EVENTS;
        }
    }

    public Count {
        Objects.requireNonNull(event, "event");
        Objects.requireNonNull(failure, "failure");
        Objects.requireNonNull(unit, "unit");
    }

    /** A count in the unit {@link Unit#of} gives for {@code event}. */
    public Count(String event, long raw, long timeEnabledNs, long timeRunningNs, Optional<HwException> failure) {
        this(event, raw, timeEnabledNs, timeRunningNs, failure, Unit.of(event));
    }

    /** Whether the event was counted. */
    public boolean supported() {
        return failure.isEmpty();
    }

    /**
     * The counter's value.
     *
     * @throws HwException the event's cause (UNSUPPORTED, PERMISSION_DENIED, ...) and remedy
     *                     when it was not counted: never a zero that means "could not count"
     */
    public long value() {
        if (failure.isPresent()) {
            HwException f = failure.get();
            throw new HwException(f.cause(), event + ": " + f.getMessage(), f.remedy().orElse(null), f);
        }
        return raw;
    }

    /**
     * perf stat's estimate when the PMU multiplexed: value × enabled / running; the value itself
     * when the counter ran all the time; empty when it never ran or was not supported.
     */
    public OptionalDouble scaled() {
        if (failure.isPresent() || timeRunningNs == 0) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of(timeRunningNs >= timeEnabledNs ? raw : (double) raw * timeEnabledNs / timeRunningNs);
    }

    @Override
    public String toString() {
        return failure.map(f -> event + ": not counted (" + f.getMessage() + ")")
                .orElseGet(() -> event + " = " + raw + (unit.symbol().isEmpty() ? "" : " " + unit.symbol())
                        + (timeRunningNs < timeEnabledNs ? " (running " + timeRunningNs + " of " + timeEnabledNs + " ns)" : ""));
    }
}
