package dev.hwtool.sim.workload;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;

import java.util.List;
import java.util.SplittableRandom;

/**
 * Nested calls and returns, for LBR call-stack mode and folded-stack export: {@code main}
 * dispatches through an indirect call to functions that call further functions, up to
 * {@code depth} calls deep and at most {@code fanout} call sites per function, until exactly
 * {@code calls} calls (main's included) have been made. The program is fixed by the seed
 * ({@link CallTreeLayout}); which guarded calls run and which target an indirect call takes
 * are drawn per execution from the same {@code SplittableRandom(seed)} stream.
 *
 * <p>Every call (NEAR_REL_CALL, or NEAR_IND_CALL at the seed's indirect sites) is matched by
 * exactly one NEAR_RET from the callee to the call site + 5, properly nested; the run ends with
 * no frame open. A skipped call is a taken Jcc over it; a made one retires its guard as an
 * ordinary instruction.
 *
 * <p>Mispredictions: guards and main's back edge by {@link TwoBitCounters}; an indirect call
 * when its target differs from that site's previous one (a cold site counts as different);
 * a return by a {@link ReturnStackBuffer}; direct calls never.
 */
public record CallTreeWorkload(long seed, int depth, int fanout, long calls, long base, int cpl) implements Workload {

    static final String KIND = "calltree";
    static final Param SEED = new Param("seed", 0, -1L, 1, false);
    static final Param DEPTH = new Param("depth", 1, 64, 8, false);
    static final Param FANOUT = new Param("fanout", 1, 16, 2, false);
    static final Param CALLS = new Param("calls", 1, 1_000_000_000_000L, 1000, false);
    static final Param BASE = new Param("base", 0, -1L, 0x401000, true);
    static final Param CPL = new Param("cpl", 0, 3, 3, false);
    /** In the order of the record components. */
    static final List<Param> PARAMS = List.of(SEED, DEPTH, FANOUT, CALLS, BASE, CPL);

    public CallTreeWorkload {
        DEPTH.check(KIND, depth);
        FANOUT.check(KIND, fanout);
        CALLS.check(KIND, calls);
        CPL.check(KIND, cpl);
        long extent = new CallTreeLayout(new SplittableRandom(seed), depth, fanout, base).extent;
        if (Long.compareUnsigned(base, -1L - extent) > 0) {
            throw new HwException(Cause.BAD_INPUT, KIND + ": " + BASE.show(base) + " leaves no room below 2^64 for the "
                    + extent + " bytes of code");
        }
    }

    /** Seed 1, depth 8, fanout 2, 1000 calls, at 0x401000, CPL 3. */
    public static CallTreeWorkload defaults() {
        return new CallTreeWorkload(SEED.dflt(), (int) DEPTH.dflt(), (int) FANOUT.dflt(), CALLS.dflt(), BASE.dflt(),
                (int) CPL.dflt());
    }

    /** The program's layout, as the run draws it from the seed. */
    CallTreeLayout layout() {
        return new CallTreeLayout(new SplittableRandom(seed), depth, fanout, base);
    }

    @Override
    public void run(Retirement cpu) {
        new CallTreeRun(this, cpu).run();
    }

    @Override
    public String describe() {
        return KIND + " " + SEED.show(seed) + " " + DEPTH.show(depth) + " " + FANOUT.show(fanout) + " "
                + CALLS.show(calls) + " " + BASE.show(base) + " " + CPL.show(cpl);
    }
}
