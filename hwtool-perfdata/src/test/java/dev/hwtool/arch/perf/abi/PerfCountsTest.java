package dev.hwtool.arch.perf.abi;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The read_format layouts of kernel/events/core.c: perf_read_one and perf_read_group. */
class PerfCountsTest {

    private static MemorySegment words(long... w) {
        ByteBuffer b = ByteBuffer.allocate(8 * w.length).order(ByteOrder.LITTLE_ENDIAN);
        for (long x : w) {
            b.putLong(x);
        }
        return MemorySegment.ofArray(b.array());
    }

    @Test
    void oneCounterHasItsValueBeforeTheTimes() {
        long rf = PerfFormat.TOTAL_TIME_ENABLED | PerfFormat.TOTAL_TIME_RUNNING | PerfFormat.ID | PerfFormat.LOST;
        PerfCounts c = PerfCounts.read(words(5, 100, 50, 9, 2), 0, 40, rf);
        assertEquals(5, c.value());
        assertEquals(100, c.timeEnabled());
        assertEquals(50, c.timeRunning());
        assertArrayEquals(new long[]{9}, c.ids());
        assertArrayEquals(new long[]{2}, c.lost());
        assertEquals(10, c.scaled(0).getAsLong());
        assertEquals(40, PerfCounts.byteSize(rf, 1));
    }

    @Test
    void oneCounterWithRunningOnly() {
        PerfCounts c = PerfCounts.read(words(7, 30), 0, 16, PerfFormat.TOTAL_TIME_RUNNING);
        assertEquals(7, c.value());
        assertEquals(30, c.timeRunning());
        assertEquals(0, c.timeEnabled());
    }

    @Test
    void aGroupHasTheTimesBeforeTheMembers() {
        long rf = PerfFormat.GROUP | PerfFormat.TOTAL_TIME_ENABLED | PerfFormat.TOTAL_TIME_RUNNING | PerfFormat.ID;
        PerfCounts c = PerfCounts.read(words(2, 100, 25, 3, 11, 4, 12), 0, 56, rf);
        assertArrayEquals(new long[]{3, 4}, c.values());
        assertArrayEquals(new long[]{11, 12}, c.ids());
        assertEquals(100, c.timeEnabled());
        assertEquals(25, c.timeRunning());
        assertEquals(16, c.scaled(1).getAsLong());
    }
}
