package dev.hwtool.sim.cpu;

import dev.hwtool.api.BranchType;

import java.util.List;

/** The LBR facility of a simulated CPU: the legacy model-specific stack or architectural LBR. */
sealed interface LbrUnit permits LegacyLbrStack, ArchLbrStack {

    /**
     * A retired taken branch: recorded (or, in call-stack mode, a return popped) when the unit is
     * enabled and the branch passes its filters.
     *
     * @param cycleNow the CPU's cycle count once this branch has retired
     * @param debugctl IA32_DEBUGCTL now
     * @param frozen   IA32_PERF_GLOBAL_STATUS.LBR_FRZ (v4+): recording is off while it is set
     */
    void retire(long from, long to, BranchType type, int cpl, boolean mispredicted, long cycleNow,
                long debugctl, boolean frozen);

    /** What delivering a #DB does to this unit's own enable (legacy LBR's lives in IA32_DEBUGCTL). */
    void debugException();

    /** Fills {@code out} with the valid entries, most recent first (at most {@link #depth()}); allocates nothing. */
    void snapshot(LbrSnapshot out);

    /** Valid entries, most recent first. */
    default List<LbrEntry> entries() {
        LbrSnapshot s = new LbrSnapshot(depth());
        snapshot(s);
        return s.toList();
    }

    /** Records written since reset (call-stack pops do not subtract). */
    long records();

    int depth();
}
