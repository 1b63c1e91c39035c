package dev.hwtool.cli;

import dev.hwtool.api.EventSpec;
import java.util.List;

/**
 * Where {@code hwtool stat}'s counts come from: it counts {@code events} over one run of
 * {@code command} and says how each went. {@link PerfEventCounter} is the hardware backend
 * (perf_event_open on the command's process); a simulator backend implements the same method by
 * running its workload on the simulated CPU and reporting its counters.
 *
 * <p>Contract: an event that cannot be counted is an {@link EventCount#unsupported} entry, in
 * the order asked; only when no event at all can be counted does {@link #count} throw (the
 * HwException of the first event's failure), before the command runs.
 */
interface EventCounter {

    /** The backend's name in the output, e.g. "hardware" ("backend" in the JSON). */
    String backend();

    /**
     * Runs {@code command} (argv; argv[0] already checked to be runnable) with the events counting
     * from its start to its end, children included; returns the counts, its exit status and the
     * wall time.
     *
     * @throws dev.hwtool.api.HwException when no event can be counted, or the command cannot start
     */
    StatResult count(List<EventSpec> events, List<String> command);
}
