package dev.hwtool.sim.workload;

import dev.hwtool.api.BranchType;

import java.util.SplittableRandom;

/**
 * One execution of a {@link LoopWorkload}: the per-run state (predictor, random stream,
 * instructions not yet handed to the sink). Nothing is allocated once it runs. Instructions
 * retired between two taken branches reach the sink as one {@code instructions} call.
 */
final class LoopRun {

    private final StraightLine line;
    private final int body;
    private final LoopLayout at;
    private final long[] trips;
    private final int[] ifTakenEighths;
    private final TwoBitCounters predictor;
    private final RandomBits outcomes;

    LoopRun(LoopWorkload w, Retirement cpu) {
        this.line = new StraightLine(cpu, w.cpl());
        this.body = w.body();
        SplittableRandom rnd = new SplittableRandom(w.seed());
        LoopShape shape = LoopShape.draw(rnd);
        this.outcomes = new RandomBits(rnd);
        this.at = new LoopLayout(shape, w.base(), w.body());
        this.trips = new long[shape.levels()];
        trips[0] = w.iterations();
        for (int k = 1; k < trips.length; k++) {
            trips[k] = shape.innerTripCounts().get(k - 1);
        }
        this.ifTakenEighths = shape.ifTakenEighths().stream().mapToInt(Integer::intValue).toArray();
        // sites 0..L-1 are the back edges, L.. the if guards
        this.predictor = new TwoBitCounters(trips.length + ifTakenEighths.length);
    }

    void run() {
        level(0);
        line.flush();
    }

    private void level(int k) {
        long n = trips[k];
        for (long t = 1; ; t++) {
            line.add(body);
            if (k + 1 < trips.length) {
                level(k + 1);
            } else {
                ifs();
            }
            boolean taken = t < n;
            boolean missed = predictor.update(k, taken);
            if (!taken) {
                line.add(1);
                return;
            }
            line.branch(at.back[k], at.top[k], BranchType.JCC, missed);
        }
    }

    private void ifs() {
        for (int j = 0; j < ifTakenEighths.length; j++) {
            boolean taken = outcomes.next(3) < ifTakenEighths[j];
            boolean missed = predictor.update(trips.length + j, taken);
            if (taken) {
                line.branch(at.guard[j], at.elseArm[j], BranchType.JCC, missed);
                line.add(body + 1);
            } else {
                line.add(1 + body);
                // a direct unconditional jump's target is known at decode: never mispredicted
                line.branch(at.jmp[j], at.join[j], BranchType.NEAR_REL_JMP, false);
            }
        }
    }
}
