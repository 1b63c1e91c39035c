package dev.hwtool.sim.record;

import dev.hwtool.api.BranchType;
import dev.hwtool.sim.workload.Retirement;
import dev.hwtool.sim.workload.Workload;

import java.util.ArrayList;
import java.util.List;

/** The workload's own branch sequence, run through {@link Retirement} directly (no CPU). */
final class Reference implements Retirement {

    record Branch(long from, long to, BranchType type, int cpl, boolean mispredicted) {
    }

    final List<Branch> branches = new ArrayList<>();
    long instructions;

    static Reference of(Workload w) {
        Reference r = new Reference();
        w.run(r);
        return r;
    }

    @Override
    public void branch(long from, long to, BranchType type, int cpl, boolean mispredicted) {
        branches.add(new Branch(from, to, type, cpl, mispredicted));
        instructions++;
    }

    @Override
    public void instructions(long count, int cpl) {
        instructions += count;
    }

    @Override
    public void cycles(long count) {
    }

    /** The call frames open after the first {@code n} branches, newest first: (call site, callee). */
    List<long[]> openCalls(int n) {
        List<long[]> stack = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Branch b = branches.get(i);
            if (b.type().isCall()) {
                stack.addFirst(new long[] {b.from(), b.to()});
            } else if (b.type().isReturn()) {
                stack.removeFirst();
            }
        }
        return stack;
    }
}
