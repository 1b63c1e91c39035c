package dev.hwtool.sim.workload;

/**
 * The conditional-branch predictor the generators use to decide which branches were
 * mispredicted: one 2-bit saturating counter per branch site (Smith, "A study of branch
 * prediction strategies", 1981), states 0..1 predict not taken, 2..3 taken, every counter
 * starting weakly not taken (1). A loop back edge is therefore mispredicted on its first
 * execution and, for trip counts of 2, every time; the loop exit is mispredicted too, but
 * a not-taken branch is no retirement record, so the sink never sees that one.
 */
final class TwoBitCounters {

    private final byte[] state;

    TwoBitCounters(int sites) {
        state = new byte[sites];
        java.util.Arrays.fill(state, (byte) 1);
    }

    /** Records the outcome at {@code site} and says whether the prediction before it was wrong. */
    boolean update(int site, boolean taken) {
        int s = state[site];
        boolean mispredicted = (s >= 2) != taken;
        state[site] = (byte) (taken ? Math.min(3, s + 1) : Math.max(0, s - 1));
        return mispredicted;
    }
}
