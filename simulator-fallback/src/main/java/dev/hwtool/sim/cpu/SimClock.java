package dev.hwtool.sim.cpu;

import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The simulated machine's time, counted in TSC ticks since reset. One clock per platform:
 * the TSC of every core of a modern part is invariant and synchronised (SDM Vol. 3B 17.17.1,
 * "Invariant TSC"), so all simulated CPUs share it.
 *
 * <p>Three things move it forward: the cycles each simulated CPU spends retiring (one tick
 * per core cycle: the simulator's core and reference clocks run at the same rate), explicit
 * {@link #advance} calls, and every register access, which costs
 * {@link #ACCESS_COST} ticks — RDMSR and WRMSR are serialising instructions that take
 * cycles on real parts — so two reads of IA32_TIME_STAMP_COUNTER are strictly increasing even
 * when nothing else runs, and a run is deterministic (no wall clock involved).
 */
public final class SimClock {

    /** Ticks charged per simulated RDMSR/WRMSR. */
    public static final long ACCESS_COST = 100;

    private final AtomicLong ticks = new AtomicLong();
    /**
     * Each CPU's own cycle count. A CPU counts its cycles in a plain field (no atomic add per
     * retired branch) and the clock sums them when read: simulated CPUs take turns, so time is
     * the sum of what each has run.
     */
    private final CopyOnWriteArrayList<LongSupplier> cpuCycles = new CopyOnWriteArrayList<>();

    /** Ticks since reset. */
    public long now() {
        return ticks.get() + cycles();
    }

    /** Counts {@code cycles} (a CPU's running total) as time passed. */
    void attach(LongSupplier cycles) {
        cpuCycles.add(cycles);
    }

    private long cycles() {
        long sum = 0;
        for (LongSupplier c : cpuCycles) {
            sum += c.getAsLong();
        }
        return sum;
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
        return ticks.addAndGet(delta) + cycles();
    }

    /** Charges one register access and returns the time at which it completes. */
    long access() {
        return ticks.addAndGet(ACCESS_COST) + cycles();
    }
}
