package dev.hwtool.sim.workload;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;

import java.util.List;

/**
 * A loop nest, the shape of hot inner loops: the outer loop runs {@code iterations} times;
 * the seed adds 0..2 inner loops (2..8 iterations each) and 0..3 {@code if} diamonds in the
 * innermost body ({@link LoopShape}); code is laid out from {@code base} ({@link LoopLayout}).
 *
 * <p>Control flow. Every straight-line block holds {@code body} instructions. A loop's back
 * edge is a Jcc, taken on every iteration but the last; the exit is not taken and so retires
 * as an ordinary instruction. An {@code if} is a Jcc that, when taken (chance per site from the
 * seed, outcome drawn per execution from the same {@code SplittableRandom(seed)} stream), jumps
 * to the else arm ({@code body + 1} instructions); not taken, the then arm ({@code body})
 * ends with a JMP past the else arm. Either way an {@code if} retires {@code body + 2}
 * instructions, one of them a taken branch, so totals do not depend on the outcomes:
 * <pre>
 *   retired(innermost instance) = T * (body + ifs * (body + 2) + 1)
 *   retired(level k instance)   = T_k * (body + retired(level k+1 instance) + 1)
 *   taken branches likewise, with 1 per if and T - 1 back edges per instance
 * </pre>
 * and retired = (sum of instructions counts) + (number of branch calls).
 *
 * <p>Mispredictions come from {@link TwoBitCounters} (one 2-bit counter per Jcc site); JMPs are
 * never mispredicted. Nothing is stalled: cycles are the simulated CPU's business.
 */
public record LoopWorkload(long seed, long iterations, int body, long base, int cpl) implements Workload {

    static final String KIND = "loop";
    static final Param SEED = new Param("seed", 0, -1L, 1, false);
    static final Param ITERATIONS = new Param("iterations", 1, 1_000_000_000_000L, 1000, false);
    static final Param BODY = new Param("body", 1, 65_536, 8, false);
    static final Param BASE = new Param("base", 0, -1L, 0x401000, true);
    static final Param CPL = new Param("cpl", 0, 3, 3, false);
    /** In the order of the record components. */
    static final List<Param> PARAMS = List.of(SEED, ITERATIONS, BODY, BASE, CPL);

    public LoopWorkload {
        ITERATIONS.check(KIND, iterations);
        BODY.check(KIND, body);
        CPL.check(KIND, cpl);
        long extent = new LoopLayout(LoopShape.of(seed), base, body).extent;
        if (Long.compareUnsigned(base, -1L - extent) > 0) {
            throw new HwException(Cause.BAD_INPUT, KIND + ": " + BASE.show(base) + " leaves no room below 2^64 for the "
                    + extent + " bytes of code");
        }
    }

    /** Seed 1, 1000 iterations, body 8, at 0x401000, CPL 3. */
    public static LoopWorkload defaults() {
        return new LoopWorkload(SEED.dflt(), ITERATIONS.dflt(), (int) BODY.dflt(), BASE.dflt(), (int) CPL.dflt());
    }

    /** The nest and ifs the seed chooses. */
    public LoopShape shape() {
        return LoopShape.of(seed);
    }

    /** The program's layout, as the run draws it from the seed. */
    LoopLayout layout() {
        return new LoopLayout(LoopShape.of(seed), base, body);
    }

    @Override
    public void run(Retirement cpu) {
        new LoopRun(this, cpu).run();
    }

    @Override
    public String describe() {
        return KIND + " " + SEED.show(seed) + " " + ITERATIONS.show(iterations) + " " + BODY.show(body)
                + " " + BASE.show(base) + " " + CPL.show(cpl);
    }
}
