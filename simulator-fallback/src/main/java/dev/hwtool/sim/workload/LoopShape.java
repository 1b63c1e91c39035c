package dev.hwtool.sim.workload;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * What a loop workload's seed chooses: how deep the nest is and which {@code if}s the
 * innermost body holds. Drawn first from {@code new SplittableRandom(seed)}, before any
 * branch outcome, so the shape is a pure function of the seed.
 *
 * @param innerTripCounts iterations of each inner loop instance, outermost inner loop first
 *                        (0..2 inner loops, 2..8 iterations each)
 * @param ifTakenEighths  per {@code if} site of the innermost body (0..3 sites), the chance in
 *                        eighths (1..7) that its Jcc is taken (the else arm runs)
 */
public record LoopShape(List<Integer> innerTripCounts, List<Integer> ifTakenEighths) {

    static final int MAX_INNER_LOOPS = 2;
    static final int MIN_TRIP = 2;
    static final int MAX_TRIP = 8;
    static final int MAX_IFS = 3;

    public LoopShape {
        innerTripCounts = List.copyOf(innerTripCounts);
        ifTakenEighths = List.copyOf(ifTakenEighths);
    }

    /** The shape {@code seed} gives. */
    public static LoopShape of(long seed) {
        return draw(new SplittableRandom(seed));
    }

    /** Draws a shape from {@code rnd}, leaving it positioned for the branch outcomes. */
    static LoopShape draw(SplittableRandom rnd) {
        int inner = rnd.nextInt(MAX_INNER_LOOPS + 1);
        List<Integer> trips = new ArrayList<>();
        for (int i = 0; i < inner; i++) {
            trips.add(MIN_TRIP + rnd.nextInt(MAX_TRIP - MIN_TRIP + 1));
        }
        int ifs = rnd.nextInt(MAX_IFS + 1);
        List<Integer> eighths = new ArrayList<>();
        for (int i = 0; i < ifs; i++) {
            eighths.add(1 + rnd.nextInt(7));
        }
        return new LoopShape(trips, eighths);
    }

    /** Loops in the nest, the outer one included. */
    public int levels() {
        return 1 + innerTripCounts.size();
    }
}
