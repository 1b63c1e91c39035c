package dev.hwtool.api;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * One event's count.
 *
 * @param event         the event as asked for ("instructions", "cycles:u", "r01c2")
 * @param raw           the counter's value (0 when not supported; read {@link #value()})
 * @param timeEnabledNs how long the event was enabled
 * @param timeRunningNs how long it was on a counter: less than enabled when the PMU multiplexed
 * @param failure       why the event cannot be counted here, or empty
 */
public record Count(String event, long raw, long timeEnabledNs, long timeRunningNs, Optional<HwException> failure) {

    public Count {
        Objects.requireNonNull(event, "event");
        Objects.requireNonNull(failure, "failure");
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
            throw new HwException(f.reason(), event + ": " + f.getMessage(), f.remedy().orElse(null), f);
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
                .orElseGet(() -> event + " = " + raw + (timeRunningNs < timeEnabledNs ? " (running " + timeRunningNs + " of " + timeEnabledNs + " ns)" : ""));
    }
}
