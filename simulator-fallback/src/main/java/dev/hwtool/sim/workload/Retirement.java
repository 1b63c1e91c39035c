package dev.hwtool.sim.workload;

import dev.hwtool.api.BranchType;

/**
 * What a simulated logical CPU retires, one call per event, in program order. A workload
 * drives it; the simulated CPU ({@code dev.hwtool.sim.cpu.LogicalProcessor}) implements it.
 *
 * <p>The cost model is the simulator's choice, fixed so that runs are deterministic: every
 * retired instruction takes one core cycle, a taken branch is one retired instruction, and
 * {@link #cycles} lets cycles pass with nothing retired (a stall). Implementations must not
 * allocate per call: workloads retire hundreds of millions of branches.
 */
public interface Retirement {

    /**
     * One taken branch, retired.
     *
     * @param from         linear address of the branch instruction
     * @param to           linear address of its target
     * @param type         its kind
     * @param cpl          the privilege level it is attributed to, 0..3 (filters test CPL = 0 vs CPL &gt; 0)
     * @param mispredicted whether the branch was mispredicted
     */
    void branch(long from, long to, BranchType type, int cpl, boolean mispredicted);

    /** {@code count} instructions other than taken branches, retired at privilege level {@code cpl}. */
    void instructions(long count, int cpl);

    /** {@code count} core cycles in which nothing retires. */
    void cycles(long count);
}
