package dev.hwtool.sim.workload;

import java.util.SplittableRandom;

/**
 * Small random numbers for per-branch outcomes, cut from one {@code nextLong} at a time:
 * a generator draws several per branch, at hundreds of millions of branches a second.
 * Deterministic, as the {@code SplittableRandom} it reads.
 */
final class RandomBits {

    private final SplittableRandom rnd;
    private long bits;
    private int left;

    RandomBits(SplittableRandom rnd) {
        this.rnd = rnd;
    }

    /** A uniform number in 0 .. 2^n - 1, n in 1..31. */
    int next(int n) {
        if (left < n) {
            bits = rnd.nextLong();
            left = 64;
        }
        int r = (int) (bits & ((1L << n) - 1));
        bits >>>= n;
        left -= n;
        return r;
    }
}
