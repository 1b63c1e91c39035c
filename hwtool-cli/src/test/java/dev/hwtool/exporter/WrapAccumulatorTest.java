package dev.hwtool.exporter;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The 32-bit RAPL counter made monotonic: what Prometheus' rate() relies on. */
class WrapAccumulatorTest {

    /**
     * A true count starting anywhere and growing by less than 2^32 between readings, seen
     * through a 32-bit register: the accumulated total minus the first reading is the true increase.
     */
    @Property
    void theTotalIsTheTrueCountWhateverTheWraps(@ForAll @LongRange(min = 0, max = 0xFFFF_FFFFL) long start,
                                                  @ForAll @Size(max = 50) List<@LongRange(min = 0, max = 0xFFFF_FFFFL) Long> increments) {
        WrapAccumulator acc = new WrapAccumulator(32);
        long trueCount = start;
        long first = acc.add(trueCount & 0xFFFF_FFFFL);
        assertEquals(start, first, "the first reading is the register's own count");
        long total = first;
        long trueIncrease = 0;
        for (long inc : increments) {
            trueCount += inc;
            trueIncrease += inc;
            total = acc.add(trueCount & 0xFFFF_FFFFL);
        }
        assertEquals(trueIncrease, total - first);
    }

    @Property
    void bitsAboveTheWidthAreIgnored(@ForAll long junk, @ForAll @LongRange(min = 0, max = 0xFFFF_FFFFL) long raw) {
        WrapAccumulator acc = new WrapAccumulator(32);
        acc.add(raw);
        assertEquals(raw + 5 & 0xFFFF_FFFFL, acc.add((junk & ~0xFFFF_FFFFL) | (raw + 5 & 0xFFFF_FFFFL)) & 0xFFFF_FFFFL);
    }

    @net.jqwik.api.Example
    void aWrapIsAnIncreaseNotAReset() {
        WrapAccumulator acc = new WrapAccumulator(32);
        acc.add(0xFFFF_FFF0L);
        assertEquals(0xFFFF_FFF0L + 0x20, acc.add(0x10));
        assertThrows(IllegalArgumentException.class, () -> new WrapAccumulator(64));
        assertThrows(IllegalArgumentException.class, () -> new WrapAccumulator(0));
    }
}
