package dev.hwtool.report;

import java.util.List;

/**
 * A sequence of consecutive taken branches of one thread and how often it ran.
 *
 * @param pid   the process of its first occurrence (used to symbolize)
 * @param hops  the branches, oldest first
 * @param count occurrences; overlapping ones count each (a sliding window, one per branch)
 */
public record HotPath(int pid, List<Hop> hops, long count) {

    public HotPath {
        hops = List.copyOf(hops);
    }

    /** One branch of a path, symbolized. */
    public record Hop(long from, long to, String fromName, String toName) {
    }
}
