package dev.hwtool.sim.workload;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RandomBitsTest {

    @Property(tries = 50)
    void numbersStayInRangeAndCoverIt(@ForAll long seed, @ForAll @IntRange(min = 1, max = 5) int n) {
        RandomBits bits = new RandomBits(new SplittableRandom(seed));
        int[] seen = new int[1 << n];
        for (int i = 0; i < 4000; i++) {
            int r = bits.next(n);
            assertTrue(r >= 0 && r < (1 << n), "out of range: " + r);
            seen[r]++;
        }
        for (int v = 0; v < seen.length; v++) {
            assertTrue(seen[v] > 4000 / seen.length / 2, "value " + v + " drawn " + seen[v] + " times");
        }
    }

    @Property(tries = 50)
    void theSameSeedGivesTheSameNumbers(@ForAll long seed) {
        RandomBits a = new RandomBits(new SplittableRandom(seed));
        RandomBits b = new RandomBits(new SplittableRandom(seed));
        for (int i = 0; i < 100; i++) {
            int n = 1 + i % 7;
            assertEquals(a.next(n), b.next(n));
        }
    }
}
