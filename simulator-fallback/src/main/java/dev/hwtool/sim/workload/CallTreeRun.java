package dev.hwtool.sim.workload;

import dev.hwtool.api.BranchType;

import java.util.SplittableRandom;

/**
 * One execution of a {@link CallTreeWorkload}: walks the calls depth first (recursion at most
 * {@code depth} deep), spending the call budget; once it is spent every guard skips its call,
 * so the open frames unwind and main's loop exits. Nothing is allocated once it runs.
 */
final class CallTreeRun {

    private final StraightLine line;
    private final CallTreeLayout at;
    private final RandomBits outcomes;
    /** Guards at their slot index, main's back edge after them. */
    private final TwoBitCounters predictor;
    /** Last target per indirect call site (slot index; main's site after them): a one-target BTB. */
    private final long[] lastTarget;
    private final ReturnStackBuffer rsb = new ReturnStackBuffer();
    private final int mainSite;
    private long budget;

    CallTreeRun(CallTreeWorkload w, Retirement cpu) {
        this.line = new StraightLine(cpu, w.cpl());
        SplittableRandom rnd = new SplittableRandom(w.seed());
        this.at = new CallTreeLayout(rnd, w.depth(), w.fanout(), w.base());
        this.outcomes = new RandomBits(rnd);
        this.mainSite = at.guard.length;
        this.predictor = new TwoBitCounters(mainSite + 1);
        this.lastTarget = new long[mainSite + 1];
        this.budget = w.calls();
    }

    void run() {
        while (true) {
            line.add(CallTreeLayout.MAIN_BLOCK);
            call(mainSite, at.mainCall, outcomes.next(CallTreeLayout.POOL_BITS), true);
            boolean again = budget > 0;
            boolean missed = predictor.update(mainSite, again);
            if (!again) {
                line.add(1);
                break;
            }
            line.branch(at.mainBack, at.mainTop, BranchType.JCC, missed);
        }
        line.flush();
    }

    private void call(int site, long from, int callee, boolean indirectCall) {
        budget--;
        long to = at.entry[callee];
        boolean missed = false;
        if (indirectCall) {
            missed = lastTarget[site] != to;
            lastTarget[site] = to;
        }
        line.branch(from, to, indirectCall ? BranchType.NEAR_IND_CALL : BranchType.NEAR_REL_CALL, missed);
        long returnTo = from + Encoding.CALL;
        rsb.push(returnTo);
        invoke(callee, returnTo);
    }

    private void invoke(int f, long returnTo) {
        int level = CallTreeLayout.levelOf(f);
        line.add(at.block[f]);
        if (level < at.depth) {
            int nextLevel = level * CallTreeLayout.POOL;
            for (int j = 0; j < at.fanout; j++) {
                int s = f * at.fanout + j;
                boolean doCall = budget > 0 && outcomes.next(3) < at.callEighths[s];
                boolean missed = predictor.update(s, !doCall);
                if (doCall) {
                    line.add(1);
                    int callee = nextLevel + (at.indirect[s] ? outcomes.next(CallTreeLayout.POOL_BITS) : at.directCallee[s]);
                    call(s, at.call[s], callee, at.indirect[s]);
                } else {
                    line.branch(at.guard[s], at.call[s] + Encoding.CALL, BranchType.JCC, missed);
                }
                line.add(at.block[f]);
            }
        }
        line.branch(at.ret[f], returnTo, BranchType.NEAR_RET, rsb.mispredicted(returnTo));
    }
}
