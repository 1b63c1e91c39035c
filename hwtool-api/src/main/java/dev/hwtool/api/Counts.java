package dev.hwtool.api;

import java.util.List;
import java.util.Objects;

/**
 * The counts of one {@link Counters} reading, one per event in the order asked.
 *
 * @param simulated whether they come from a simulated CPU
 */
public record Counts(List<Count> counts, boolean simulated) {

    public Counts {
        counts = List.copyOf(counts);
    }

    /**
     * The count of {@code event}, spelled as it was asked for.
     *
     * @throws IllegalArgumentException when no such event was asked for
     */
    public Count get(String event) {
        Objects.requireNonNull(event, "event");
        for (Count c : counts) {
            if (c.event().equals(event)) {
                return c;
            }
        }
        throw new IllegalArgumentException("no event '" + event + "' among " + counts.stream().map(Count::event).toList());
    }

    /**
     * The raw value of {@code event}.
     *
     * @throws HwException the event's cause when it could not be counted
     */
    public long value(String event) {
        return get(event).value();
    }
}
