package dev.hwtool.sim.workload;

import dev.hwtool.api.BranchType;

/**
 * The instructions a generator retires between two taken branches, handed to the sink as one
 * {@code instructions} call just before the next branch (or at the end), so the sink sees at
 * most one such call between branches. Allocation-free.
 */
final class StraightLine {

    private final Retirement cpu;
    private final int cpl;
    private long pending;

    StraightLine(Retirement cpu, int cpl) {
        this.cpu = cpu;
        this.cpl = cpl;
    }

    /** {@code n} more non-branch instructions. */
    void add(long n) {
        pending += n;
    }

    /** The pending instructions, then a taken branch. */
    void branch(long from, long to, BranchType type, boolean missed) {
        flush();
        cpu.branch(from, to, type, cpl, missed);
    }

    void flush() {
        if (pending > 0) {
            cpu.instructions(pending, cpl);
            pending = 0;
        }
    }
}
