package dev.hwtool.api;

import java.util.OptionalDouble;

/**
 * One row of the hot-branches report: a (from, to) pair and what its LBR entries said.
 *
 * @param pid           the process of the first sample it was seen in (used to symbolize)
 * @param from          the branch's source
 * @param to            its target
 * @param fromName      {@code from} symbolized ("func+0x1c" or hex)
 * @param toName        {@code to} symbolized
 * @param type          PERF_BR_* name of the first entry (UNKNOWN unless recorded with type save)
 * @param count         LBR entries with this pair, each entry counted once (perf's pseudo period 1)
 * @param mispredicted  of them, entries with the mispred flag
 * @param predictionKnown entries with either the mispred or the predicted flag: the hardware said
 * @param timed         entries with a cycle count (flags.cycles not 0)
 * @param cycles        the sum of those cycle counts
 */
public record HotBranch(int pid, long from, long to, String fromName, String toName, String type, long count,
                        long mispredicted, long predictionKnown, long timed, long cycles) {

    /** mispredicted / entries whose prediction is known; empty when the hardware reported none. */
    public OptionalDouble mispredictRate() {
        return predictionKnown == 0 ? OptionalDouble.empty() : OptionalDouble.of((double) mispredicted / predictionKnown);
    }

    /** Average cycles since the previous branch, over the entries that carry one (perf's "avg cycles"). */
    public OptionalDouble averageCycles() {
        return timed == 0 ? OptionalDouble.empty() : OptionalDouble.of((double) cycles / timed);
    }
}
