package dev.hwtool.report;

import dev.hwtool.api.HotBranch;
import dev.hwtool.arch.perf.abi.PerfRecord;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static dev.hwtool.report.Fixtures.entry;
import static dev.hwtool.report.Fixtures.lbr;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HotBranchesTest {

    static final int COND = 1;
    static final int CALL = 4;

    @Test
    void everyEntryCountsOnceEvenTwiceInOneSample() {
        HotBranches h = new HotBranches();
        // a loop back edge twice in one stack, then a call: perf report counts 2 + 1
        h.add(lbr(7, 0x1010, entry(0x1008, 0x1000, false, 10, COND), entry(0x1008, 0x1000, true, 30, COND),
                entry(0x2000, 0x1000, false, 0, CALL)));
        h.add(lbr(7, 0x1010, entry(0x1008, 0x1000, false, 20, COND)));
        List<HotBranch> rows = h.rows(Symbols.NONE, HotBranches.Order.COUNT);
        assertEquals(2, rows.size());
        HotBranch back = rows.getFirst();
        assertEquals(0x1008, back.from());
        assertEquals(0x1000, back.to());
        assertEquals(3, back.count());
        assertEquals(1, back.mispredicted());
        assertEquals(1.0 / 3, back.mispredictRate().orElseThrow(), 1e-12);
        assertEquals(20.0, back.averageCycles().orElseThrow(), 1e-12);
        assertEquals("COND", back.type());
        HotBranch call = rows.get(1);
        assertEquals(1, call.count());
        assertTrue(call.averageCycles().isEmpty(), "cycles 0 means not reported");
        assertEquals("CALL", call.type());
        assertEquals(4, h.entries());
        assertEquals(2, h.branchSamples());
        assertEquals(4, rows.stream().mapToLong(HotBranch::count).sum());
    }

    @Test
    void predictionUnknownWhenNeitherFlagIsSet() {
        HotBranches h = new HotBranches();
        h.add(lbr(1, 0, entry(0x10, 0x20)));
        HotBranch r = h.rows(Symbols.NONE, HotBranches.Order.COUNT).getFirst();
        assertTrue(r.mispredictRate().isEmpty());
        assertEquals("UNKNOWN", r.type());
    }

    @Test
    void samplesWithoutABranchStackAreCountedApart() {
        HotBranches h = new HotBranches();
        h.add(Fixtures.sample(1, 0x10, 0, Optional.<PerfRecord.BranchStack>empty()));
        assertEquals(1, h.samples());
        assertEquals(0, h.branchSamples());
        assertTrue(h.rows(Symbols.NONE, HotBranches.Order.COUNT).isEmpty());
    }

    @Test
    void ordersAndSymbols() {
        HotBranches h = new HotBranches();
        h.add(lbr(1, 0, entry(0x1100, 0x1000, false, 5, COND), entry(0x1100, 0x1000, false, 5, COND),
                entry(0x2004, 0x2000, true, 90, COND), entry(0x3000, 0x1000, true, 1, CALL),
                entry(0x3000, 0x1000, true, 1, CALL)));
        Symbols table = new Fixtures.Table().function("loop", 0x1000, 0x200).function("main", 0x3000, 0x10);
        List<HotBranch> byCount = h.rows(table, HotBranches.Order.COUNT);
        // ties on count go to the lower source
        assertEquals(List.of(0x1100L, 0x3000L, 0x2004L), byCount.stream().map(HotBranch::from).toList());
        assertEquals("loop+0x100", byCount.getFirst().fromName());
        assertEquals("loop+0x0", byCount.getFirst().toName());
        assertEquals("0x2004", byCount.get(2).fromName());
        assertEquals(List.of(0x3000L, 0x2004L, 0x1100L),
                h.rows(table, HotBranches.Order.MISPREDICTS).stream().map(HotBranch::from).toList());
        assertEquals(List.of(0x2004L, 0x1100L, 0x3000L),
                h.rows(table, HotBranches.Order.CYCLES).stream().map(HotBranch::from).toList());
        assertEquals(List.of(0x1100L, 0x2004L, 0x3000L),
                h.rows(table, HotBranches.Order.FROM).stream().map(HotBranch::from).toList());
    }

    @Test
    void kernelAddressesSortUnsigned() {
        HotBranches h = new HotBranches();
        h.add(lbr(1, 0, entry(0xffffffff81000000L, 0xffffffff81000010L), entry(0x401000, 0x401010)));
        assertEquals(List.of(0x401000L, 0xffffffff81000000L),
                h.rows(Symbols.NONE, HotBranches.Order.FROM).stream().map(HotBranch::from).toList());
    }

    @Test
    void orderNames() {
        for (HotBranches.Order o : HotBranches.Order.values()) {
            assertEquals(o, HotBranches.Order.byName(o.cliName()).orElseThrow());
        }
        assertFalse(HotBranches.Order.byName("period").isPresent());
        assertEquals("count|mispred|cycles|from", HotBranches.Order.names());
    }
}
