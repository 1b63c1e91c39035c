package dev.hwtool.sim;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The simulated machine's time, counted in TSC ticks since reset. One clock per platform:
 * the TSC of every core of a modern part is invariant and synchronised (SDM Vol. 3B 17.17.1,
 * "Invariant TSC"), so all simulated CPUs share it.
 *
 * <p>Two things move it forward: the execution simulator (later) calls {@link #advance} with
 * the cycles its retired instructions took, and every register access itself costs
 * {@link #ACCESS_COST} ticks — RDMSR and WRMSR are serialising instructions that take
 * cycles on real parts — so two reads of IA32_TIME_STAMP_COUNTER are strictly increasing even
 * when nothing else runs, and a run is deterministic (no wall clock involved).
 */
public final class SimClock {

    /** Ticks charged per simulated RDMSR/WRMSR. */
    public static final long ACCESS_COST = 100;

    private final AtomicLong ticks = new AtomicLong();

    /** Ticks since reset. */
    public long now() {
        return ticks.get();
    }

    /**
     * Moves time forward.
     *
     * @throws IllegalArgumentException for a negative amount: time never runs backwards
     */
    public long advance(long delta) {
        if (delta < 0) {
            throw new IllegalArgumentException("the simulated clock cannot go back (" + delta + " ticks)");
        }
        return ticks.addAndGet(delta);
    }

    /** Charges one register access and returns the time at which it completes. */
    long access() {
        return advance(ACCESS_COST);
    }
}
