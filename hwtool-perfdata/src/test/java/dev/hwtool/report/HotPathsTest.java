package dev.hwtool.report;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class HotPathsTest {

    /** A loop body of three taken branches A→B→C→A, run {@code times} times by thread tid. */
    static void loop(BranchSink s, int tid, int times) {
        for (int i = 0; i < times; i++) {
            s.branch(1, tid, 0x100, 0x200, Prediction.UNKNOWN);
            s.branch(1, tid, 0x208, 0x300, Prediction.UNKNOWN);
            s.branch(1, tid, 0x310, 0x100, Prediction.UNKNOWN);
        }
    }

    @Test
    void everyWindowPositionCountsOnce() {
        HotPaths p = new HotPaths(3);
        loop(p, 1, 100);
        // 300 branches, 298 windows of 3: the three rotations 100, 99, 99 times
        assertEquals(298, p.paths());
        assertEquals(3, p.distinct());
        List<HotPath> top = p.top(Symbols.NONE, 10);
        assertEquals(List.of(100L, 99L, 99L), top.stream().map(HotPath::count).toList());
        HotPath first = top.getFirst();
        assertEquals(List.of(0x100L, 0x208L, 0x310L), first.hops().stream().map(HotPath.Hop::from).toList());
        assertEquals("0x100", first.hops().getFirst().fromName());
        assertEquals(1, p.top(Symbols.NONE, 1).size());
    }

    @Test
    void windowsNeverSpanTwoThreads() {
        HotPaths p = new HotPaths(2);
        // interleaved: 1 2 1 2: without per-thread windows there would be 3 paths mixing threads
        p.branch(1, 1, 0x10, 0x20, Prediction.UNKNOWN);
        p.branch(1, 2, 0x90, 0xa0, Prediction.UNKNOWN);
        p.branch(1, 1, 0x28, 0x10, Prediction.UNKNOWN);
        p.branch(1, 2, 0xa8, 0x90, Prediction.UNKNOWN);
        assertEquals(2, p.paths());
        for (HotPath h : p.top(Symbols.NONE, 10)) {
            long first = h.hops().getFirst().from();
            assertEquals(first == 0x10 ? 0x28 : 0xa8, h.hops().get(1).from());
        }
    }

    @Test
    void lengthOneIsTheHotBranchTable() {
        HotPaths p = new HotPaths(1);
        loop(p, 1, 5);
        p.branch(1, 1, 0x100, 0x200, Prediction.UNKNOWN);
        List<HotPath> top = p.top(Symbols.NONE, 10);
        assertEquals(6, top.getFirst().count());
        assertEquals(0x100, top.getFirst().hops().getFirst().from());
        assertEquals(16, p.paths());
    }

    @Test
    void lengthZeroIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new HotPaths(0));
    }
}
