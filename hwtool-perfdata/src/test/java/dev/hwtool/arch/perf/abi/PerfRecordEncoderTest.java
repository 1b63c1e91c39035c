package dev.hwtool.arch.perf.abi;

import dev.hwtool.arch.perf.PerfBranchSample;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Encode, then decode with the independent {@link PerfRecordCursor}: the values come back. */
class PerfRecordEncoderTest {

    record Entry(long from, long to, long flags) {
    }

    record Values(long ip, int pid, int tid, long time, long addr, long id, int cpu, long period, long hwIdx,
                  List<Entry> branches) {
    }

    static final class Stack implements PerfRecordEncoder.BranchStack {
        final List<Entry> entries;
        final long hw;

        Stack(List<Entry> entries, long hw) {
            this.entries = entries;
            this.hw = hw;
        }

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
            return hw;
        }
    }

    @Provide
    Arbitrary<Long> sampleTypes() {
        return Arbitraries.longs().between(0, PerfSample.MAX - 1).map(v -> v & PerfRecordEncoder.SUPPORTED_SAMPLE_TYPE);
    }

    @Provide
    Arbitrary<Values> values() {
        Arbitrary<Entry> entry = Combinators.combine(Arbitraries.longs(), Arbitraries.longs(), Arbitraries.longs())
                .as(Entry::new);
        Arbitrary<Long> any = Arbitraries.longs();
        Arbitrary<Integer> anyInt = Arbitraries.integers();
        return Combinators.combine(any, anyInt, anyInt, any, any, any, anyInt, any)
                .flatAs((ip, pid, tid, time, addr, id, cpu, period) ->
                        Combinators.combine(any, entry.list().ofMaxSize(40))
                                .as((hw, br) -> new Values(ip, pid, tid, time, addr, id, cpu, period, hw, br)));
    }

    @Property(tries = 2000)
    void sampleRoundTrips(@ForAll("sampleTypes") long sampleType, @ForAll boolean hwIndex,
                          @ForAll("values") Values v, @ForAll short misc) {
        PerfRecordFormat f = new PerfRecordFormat(sampleType, 0, hwIndex ? PerfBranchSample.HW_INDEX : 0, 0, 0, true);
        PerfRecordEncoder enc = new PerfRecordEncoder(f);
        MemorySegment rec = enc.sample(misc & 0xFFFF, v.ip, v.pid, v.tid, v.time, v.addr, v.id, v.cpu, v.period,
                new Stack(v.branches, v.hwIdx));
        PerfRecordCursor c = new PerfRecordCursor(f).wrap(rec);
        assertTrue(c.next());
        assertEquals(PerfRecordType.SAMPLE, c.type());
        assertEquals(misc & 0xFFFF, c.misc());
        assertEquals(rec.byteSize(), c.size());
        assertEquals(0, rec.byteSize() % 8, "records stay u64-aligned");
        long st = sampleType;
        assertEquals(f.samples(PerfSample.IP) ? v.ip : 0, c.ip());
        assertEquals(f.samples(PerfSample.TID) ? v.pid : -1, c.pid());
        assertEquals(f.samples(PerfSample.TID) ? v.tid : -1, c.tid());
        assertEquals(f.samples(PerfSample.TIME) ? v.time : 0, c.time());
        assertEquals(f.samples(PerfSample.ADDR) ? v.addr : 0, c.addr());
        assertEquals(f.samples(PerfSample.ID) ? v.id : 0, c.id());
        assertEquals(f.samples(PerfSample.STREAM_ID) ? v.id : 0, c.streamId());
        assertEquals(f.samples(PerfSample.IDENTIFIER) ? v.id : 0, c.identifier());
        assertEquals(f.samples(PerfSample.CPU) ? v.cpu : -1, c.cpu());
        assertEquals(f.samples(PerfSample.PERIOD) ? v.period : 0, c.period());
        if ((st & PerfSample.BRANCH_STACK) != 0) {
            assertEquals(v.branches.size(), c.branchCount());
            assertEquals(hwIndex && !v.branches.isEmpty(), c.hasHwIndex());
            if (c.hasHwIndex()) {
                assertEquals(v.hwIdx, c.hwIndex());
            }
            for (int i = 0; i < v.branches.size(); i++) {
                Entry e = v.branches.get(i);
                assertEquals(e, new Entry(c.branchFrom(i), c.branchTo(i), c.branchFlags(i)));
            }
        } else {
            assertEquals(0, c.branchCount());
        }
        assertFalse(c.next());
        // The independent allocating parser agrees too.
        PerfRecord.Sample s = (PerfRecord.Sample) decode(f, rec);
        assertEquals(f.samples(PerfSample.IP) ? v.ip : 0, s.ip());
    }

    @Property(tries = 1000)
    void commLostExitMmap2RoundTrip(@ForAll("sampleTypes") long sampleType, @ForAll boolean sampleIdAll,
                                    @ForAll int pid, @ForAll int tid, @ForAll long time, @ForAll long id,
                                    @ForAll int cpu, @ForAll long lost,
                                    @ForAll("names") String name, @ForAll long addr, @ForAll long len) {
        PerfRecordFormat f = new PerfRecordFormat(sampleType, 0, 0, 0, 0, sampleIdAll);
        PerfRecordEncoder enc = new PerfRecordEncoder(f);
        boolean tidTrailer = sampleIdAll && f.samples(PerfSample.TID);
        PerfRecord.SampleId sid = f.sampleIdSize() == 0 ? PerfRecord.SampleId.NONE
                : new PerfRecord.SampleId(tidTrailer ? pid : -1, tidTrailer ? tid : -1,
                f.samples(PerfSample.TIME) ? time : 0,
                f.samples(PerfSample.ID) ? id : 0,
                f.samples(PerfSample.STREAM_ID) ? id : 0, f.samples(PerfSample.CPU) ? cpu : -1);

        assertEquals(new PerfRecord.Comm(PerfRecordMisc.COMM_EXEC, pid, tid, name, sid),
                decode(f, enc.comm(PerfRecordMisc.COMM_EXEC, pid, tid, name, time, id, cpu)));
        assertEquals(new PerfRecord.Lost(0, id, lost, sid), decode(f, enc.lost(id, lost, pid, tid, time, cpu)));
        assertEquals(new PerfRecord.Task(PerfRecordType.EXIT, 0, pid, pid + 1, tid, tid + 1, time, sid),
                decode(f, enc.exit(pid, pid + 1, tid, tid + 1, time, id, cpu)));
        PerfRecord r = decode(f, enc.mmap2(PerfRecordMisc.USER, pid, tid, addr, len, 0x1000, 8, 1, 42, 7, 5, 2,
                name, time, id, cpu));
        PerfRecord.Mmap2 m = (PerfRecord.Mmap2) r;
        assertEquals(List.of(pid, tid, addr, len, 0x1000L, 8, 1, 42L, 7L, 5, 2, name, sid),
                List.of(m.pid(), m.tid(), m.addr(), m.len(), m.pgoff(), m.maj(), m.min(), m.ino(),
                        m.inoGeneration(), m.prot(), m.flags(), m.filename(), m.sampleId()));
    }

    @Provide
    Arbitrary<String> names() {
        return Arbitraries.strings().withCharRange('!', '~').ofMaxLength(40);
    }

    private static PerfRecord decode(PerfRecordFormat f, MemorySegment rec) {
        PerfRecordCursor c = new PerfRecordCursor(f).wrap(rec);
        assertTrue(c.next());
        PerfRecord r = c.toRecord();
        assertFalse(c.next());
        return r;
    }

    @Test
    void refusesFieldsItCannotWrite() {
        assertThrows(IllegalArgumentException.class,
                () -> new PerfRecordEncoder(new PerfRecordFormat(PerfSample.IP | PerfSample.CALLCHAIN, 0, 0, 0, 0, false)));
    }

    @Test
    void bufferIsReusedAcrossRecords() {
        PerfRecordFormat f = new PerfRecordFormat(PerfSample.IP | PerfSample.TID, 0, 0, 0, 0, false);
        PerfRecordEncoder enc = new PerfRecordEncoder(f);
        MemorySegment a = enc.sample(0, 1, 2, 3, 0, 0, 0, 0, 0, PerfRecordEncoder.NO_BRANCHES);
        MemorySegment b = enc.sample(0, 9, 2, 3, 0, 0, 0, 0, 0, PerfRecordEncoder.NO_BRANCHES);
        assertEquals(a.heapBase(), b.heapBase(), "one backing array for both records");
    }
}
