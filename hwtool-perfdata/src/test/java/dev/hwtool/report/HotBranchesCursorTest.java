package dev.hwtool.report;

import dev.hwtool.arch.perf.abi.PerfBranchEntry;
import dev.hwtool.arch.perf.PerfBranchSample;
import dev.hwtool.arch.perf.abi.PerfRecord;
import dev.hwtool.arch.perf.abi.PerfRecordCursor;
import dev.hwtool.arch.perf.abi.PerfRecordEncoder;
import dev.hwtool.arch.perf.abi.PerfRecordFormat;
import dev.hwtool.arch.perf.abi.PerfSample;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.lang.foreign.MemorySegment;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link HotBranches#add(PerfRecordCursor)}, the allocation-free path {@code lbr report} takes,
 * counts exactly as {@link HotBranches#add(PerfRecord.Sample)} over the same records: samples with
 * and without branch stacks, few addresses (collisions in one pair) or many (the table grows past
 * its first 1024 slots several times).
 */
class HotBranchesCursorTest {

    record Stack(List<PerfBranchEntry> entries) implements PerfRecordEncoder.BranchStack {
        public int size() {
            return entries.size();
        }

        public long from(int i) {
            return entries.get(i).from();
        }

        public long to(int i) {
            return entries.get(i).to();
        }

        public long flags(int i) {
            return entries.get(i).flags();
        }

        public long hwIndex() {
            return 0;
        }
    }

    @Provide
    Arbitrary<List<List<PerfBranchEntry>>> stacks() {
        Arbitrary<Long> addr = Arbitraries.oneOf(Arbitraries.longs().between(0x1000, 0x1008),
                Arbitraries.longs().between(0x400000, 0x4FFFFF), Arbitraries.longs());
        Arbitrary<PerfBranchEntry> entry = net.jqwik.api.Combinators.combine(addr, addr, Arbitraries.longs())
                .as(PerfBranchEntry::new);
        return entry.list().ofMaxSize(32).list().ofMaxSize(200);
    }

    @Property(tries = 200)
    void cursorCountsAsTheRecordValue(@ForAll("stacks") List<List<PerfBranchEntry>> stacks) {
        PerfRecordFormat f = new PerfRecordFormat(PerfSample.IP | PerfSample.TID | PerfSample.TIME
                | PerfSample.BRANCH_STACK, 0, PerfBranchSample.HW_INDEX, 0, 0, true);
        PerfRecordEncoder enc = new PerfRecordEncoder(f);
        PerfRecordCursor c = new PerfRecordCursor(f);
        HotBranches byCursor = new HotBranches();
        HotBranches byValue = new HotBranches();
        int pid = 100;
        for (List<PerfBranchEntry> s : stacks) {
            MemorySegment rec = enc.sample(2, 0x401000, pid, pid, 0, 0, 0, 0, 1, new Stack(s));
            c.wrap(rec);
            assertTrue(c.next());
            byCursor.add(c);
            byValue.add((PerfRecord.Sample) c.toRecord());
            pid++;
        }
        assertEquals(byValue.samples(), byCursor.samples());
        assertEquals(byValue.branchSamples(), byCursor.branchSamples());
        assertEquals(byValue.entries(), byCursor.entries());
        assertEquals(stacks.stream().mapToLong(List::size).sum(), byCursor.entries());
        for (HotBranches.Order o : HotBranches.Order.values()) {
            assertEquals(byValue.rows(Symbols.NONE, o), byCursor.rows(Symbols.NONE, o));
        }
    }

    @Property(tries = 5)
    void aBranchStackFreeFormatCountsSamplesOnly(@ForAll("stacks") List<List<PerfBranchEntry>> stacks) {
        PerfRecordFormat f = new PerfRecordFormat(PerfSample.IP | PerfSample.TID, 0, 0, 0, 0, true);
        PerfRecordEncoder enc = new PerfRecordEncoder(f);
        PerfRecordCursor c = new PerfRecordCursor(f);
        HotBranches h = new HotBranches();
        for (int i = 0; i < stacks.size(); i++) {
            c.wrap(enc.sample(2, 0x401000, 1, 1, 0, 0, 0, 0, 1, PerfRecordEncoder.NO_BRANCHES));
            assertTrue(c.next());
            h.add(c);
        }
        assertEquals(stacks.size(), h.samples());
        assertEquals(0, h.branchSamples());
        assertTrue(h.rows(Symbols.NONE, HotBranches.Order.COUNT).isEmpty());
    }
}
