package dev.hwtool.arch.perf.abi;

import dev.hwtool.arch.perf.PerfBranchSample;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Records laid out byte by byte per perf_output_sample and friends, parsed back. */
class PerfRecordCursorTest {

    private static final long KERNEL_TEXT = 0xffffffff81000000L;

    private static PerfRecordFormat format(long sampleType, long readFormat, long branchType, boolean sampleIdAll) {
        return new PerfRecordFormat(sampleType, readFormat, branchType, 0, 0, sampleIdAll);
    }

    @Test
    void aSampleWithGroupReadCallchainAndAnLbrStackWithHwIndex() {
        long st = PerfSample.IP | PerfSample.TID | PerfSample.TIME | PerfSample.ADDR | PerfSample.ID | PerfSample.CPU
                | PerfSample.PERIOD | PerfSample.READ | PerfSample.CALLCHAIN | PerfSample.BRANCH_STACK;
        long rf = PerfFormat.GROUP | PerfFormat.ID | PerfFormat.TOTAL_TIME_ENABLED | PerfFormat.TOTAL_TIME_RUNNING;
        long bf = PerfBranchSample.ANY | PerfBranchSample.USER | PerfBranchSample.HW_INDEX;
        long f0 = PerfBranchEntry.flags(true, false, false, false, 17, 4, 0, 0, 1);
        long f1 = PerfBranchEntry.flags(false, true, true, false, 3, 6, 0, 0, 1);
        byte[] b = new RecordBytes().begin(PerfRecordType.SAMPLE, PerfRecordMisc.USER | PerfRecordMisc.EXACT_IP)
                .u64(0x401000).u32(1234).u32(1235).u64(999_000).u64(0x7fff0000).u64(42).u32(1).u32(0).u64(100_000)
                .u64(2).u64(5000).u64(4000).u64(11).u64(42).u64(22).u64(43) // read: nr, enabled, running, {v,id}x2
                .u64(3).u64(0xfffffffffffffe00L).u64(0x401000).u64(0x400500) // callchain
                .u64(2).u64(7) // branch nr, hw_idx
                .u64(0x401010).u64(0x402000).u64(f0).u64(0x402010).u64(0x401014).u64(f1)
                .end().toBytes();
        PerfRecordCursor c = new PerfRecordCursor(format(st, rf, bf, false)).wrap(MemorySegment.ofArray(b));
        assertTrue(c.next());
        assertEquals(PerfRecordType.SAMPLE, c.type());
        assertEquals(b.length, c.size());
        assertEquals(0x401000, c.ip());
        assertEquals(1234, c.pid());
        assertEquals(1235, c.tid());
        assertEquals(999_000, c.time());
        assertEquals(0x7fff0000, c.addr());
        assertEquals(42, c.id());
        assertEquals(1, c.cpu());
        assertEquals(100_000, c.period());
        assertEquals(3, c.callchainLength());
        assertEquals(0x400500, c.callchain(2));
        assertEquals(2, c.branchCount());
        assertTrue(c.hasHwIndex());
        assertEquals(7, c.hwIndex());
        assertEquals(0x402010, c.branchFrom(1));
        assertEquals(0x401014, c.branchTo(1));
        PerfCounts r = c.readValues();
        assertArrayEquals(new long[] {11, 22}, r.values());
        assertArrayEquals(new long[] {42, 43}, r.ids());
        assertEquals(5000, r.timeEnabled());
        assertEquals(OptionalLong.of(27), r.scaled(1));

        PerfRecord.Sample s = assertInstanceOf(PerfRecord.Sample.class, c.toRecord());
        assertEquals(PerfRecordMisc.USER, s.cpumode());
        PerfRecord.BranchStack stack = s.branchStack().orElseThrow();
        assertEquals(OptionalLong.of(7), stack.hwIndex());
        PerfBranchEntry e0 = stack.entries().get(0);
        assertTrue(e0.mispred());
        assertFalse(e0.predicted());
        assertEquals(17, e0.cycles());
        assertEquals("CALL", e0.typeName());
        PerfBranchEntry e1 = stack.entries().get(1);
        assertTrue(e1.predicted() && e1.inTx());
        assertEquals("RET", e1.typeName());
        assertEquals(List.of(0xfffffffffffffe00L, 0x401000L, 0x400500L), s.callchain());
        assertFalse(c.next());
    }

    @Test
    void anEmptyBranchStackHasNoHwIndexEvenWhenAsked() {
        long st = PerfSample.IP | PerfSample.BRANCH_STACK;
        byte[] b = new RecordBytes().begin(PerfRecordType.SAMPLE, 0).u64(0x1000).u64(0).end()
                .begin(PerfRecordType.SAMPLE, 0).u64(0x2000).u64(1).u64(5).u64(0xa).u64(0xb).u64(0).end().toBytes();
        List<PerfRecord> all = PerfRecordParser.parseAll(format(st, 0, PerfBranchSample.ANY | PerfBranchSample.HW_INDEX,
                false), ByteBuffer.wrap(b));
        PerfRecord.Sample first = (PerfRecord.Sample) all.get(0);
        assertEquals(OptionalLong.empty(), first.branchStack().orElseThrow().hwIndex());
        assertEquals(0, first.branchStack().orElseThrow().entries().size());
        PerfRecord.Sample second = (PerfRecord.Sample) all.get(1);
        assertEquals(OptionalLong.of(5), second.branchStack().orElseThrow().hwIndex());
        assertEquals(new PerfBranchEntry(0xa, 0xb, 0), second.branchStack().orElseThrow().entries().get(0));
    }

    @Test
    void branchCountersFollowTheEntries() {
        long st = PerfSample.BRANCH_STACK;
        byte[] b = new RecordBytes().begin(PerfRecordType.SAMPLE, 0).u64(2).u64(1).u64(2).u64(0).u64(3).u64(4).u64(0)
                .u64(77).u64(88).end().toBytes();
        PerfRecordCursor c = new PerfRecordCursor(format(st, 0, PerfBranchSample.ANY | PerfBranchSample.COUNTERS, false))
                .wrap(MemorySegment.ofArray(b));
        assertTrue(c.next());
        assertEquals(88, c.branchCounter(1));
        assertEquals(List.of(77L, 88L), ((PerfRecord.Sample) c.toRecord()).branchStack().orElseThrow().counters());
    }

    @Test
    void auxRecordsCarryTheirFlagsAndTheSampleIdTrailer() {
        long st = PerfSample.TID | PerfSample.TIME | PerfSample.CPU | PerfSample.IDENTIFIER;
        byte[] b = new RecordBytes().begin(PerfRecordType.AUX, 0).u64(0x10000).u64(0x8000)
                .u64(PerfAuxFlag.TRUNCATED | PerfAuxFlag.PARTIAL).u32(10).u32(11).u64(123456).u32(1).u32(0).u64(99)
                .end().toBytes();
        PerfRecord.Aux a = (PerfRecord.Aux) PerfRecordParser.parseAll(format(st, 0, 0, true),
                MemorySegment.ofArray(b)).getFirst();
        assertEquals(0x10000, a.auxOffset());
        assertEquals(0x8000, a.auxSize());
        assertTrue(a.truncated());
        assertTrue(a.partial());
        assertFalse(a.overwrite());
        assertEquals(new PerfRecord.SampleId(10, 11, 123456, 0, 0, 1), a.sampleId());
    }

    @Test
    void sideBandRecordsAndUnknownTypesSkippedByTheirSize() {
        long st = PerfSample.TID | PerfSample.TIME;
        byte[] b = new RecordBytes()
                .begin(PerfRecordType.MMAP2, PerfRecordMisc.USER).u32(5).u32(6).u64(0x400000).u64(0x1000).u64(0)
                .u32(8).u32(1).u64(1234).u64(1).u32(5).u32(2).string("/usr/bin/true").u32(5).u32(6).u64(10).end()
                .begin(PerfRecordType.COMM, PerfRecordMisc.COMM_EXEC).u32(5).u32(6).string("true").u32(5).u32(6).u64(11).end()
                .begin(99, 0).u64(1).u64(2).u64(3).end()
                .begin(PerfRecordType.LOST, 0).u64(42).u64(17).u32(5).u32(6).u64(12).end()
                .begin(PerfRecordType.SWITCH, PerfRecordMisc.SWITCH_OUT | PerfRecordMisc.SWITCH_OUT_PREEMPT)
                .u32(5).u32(6).u64(13).end()
                .begin(PerfRecordType.SWITCH_CPU_WIDE, 0).u32(7).u32(8).u32(5).u32(6).u64(14).end()
                .begin(PerfRecordType.THROTTLE, 0).u64(15).u64(42).u64(0).u32(5).u32(6).u64(15).end()
                .begin(PerfRecordType.UNTHROTTLE, 0).u64(16).u64(42).u64(0).u32(5).u32(6).u64(16).end()
                .begin(PerfRecordType.LOST_SAMPLES, 0).u64(3).u32(5).u32(6).u64(17).end()
                .toBytes();
        List<PerfRecord> all = PerfRecordParser.parseAll(format(st, 0, 0, true), MemorySegment.ofArray(b));
        assertEquals(9, all.size());
        PerfRecord.Mmap2 m = (PerfRecord.Mmap2) all.get(0);
        assertEquals("/usr/bin/true", m.filename());
        assertEquals(0x400000, m.addr());
        assertEquals(8, m.maj());
        assertEquals(1234, m.ino());
        assertEquals(5, m.prot());
        assertEquals(10, m.sampleId().time());
        PerfRecord.Comm comm = (PerfRecord.Comm) all.get(1);
        assertEquals("true", comm.comm());
        assertTrue(comm.exec());
        assertEquals(new PerfRecord.Unknown(99, 0, 32), all.get(2));
        assertEquals(17, ((PerfRecord.Lost) all.get(3)).lost());
        PerfRecord.Switch sw = (PerfRecord.Switch) all.get(4);
        assertTrue(sw.out() && sw.preempted());
        assertEquals(13, sw.sampleId().time());
        assertEquals(7, ((PerfRecord.SwitchCpuWide) all.get(5)).nextPrevPid());
        assertEquals(15, ((PerfRecord.Throttle) all.get(6)).time());
        assertEquals(16, ((PerfRecord.Unthrottle) all.get(7)).time());
        assertEquals(3, ((PerfRecord.LostSamples) all.get(8)).lost());
    }

    @Test
    void malformedRecordsAreParseErrorsThatNameTheOffset() {
        PerfRecordFormat f = format(PerfSample.IP | PerfSample.CALLCHAIN, 0, 0, false);
        byte[] tooSmall = new RecordBytes().begin(PerfRecordType.SAMPLE, 0).u64(1).u64(0).end().toBytes();
        tooSmall[6] = 4; // header size 4
        PerfParseException e = assertThrows(PerfParseException.class,
                () -> PerfRecordParser.parseAll(f, MemorySegment.ofArray(tooSmall)));
        assertEquals(0, e.offset());

        byte[] hugeChain = new RecordBytes().begin(PerfRecordType.SAMPLE, 0).u64(1).u64(0).end()
                .begin(PerfRecordType.SAMPLE, 0).u64(1).u64(Long.MAX_VALUE).end().toBytes();
        e = assertThrows(PerfParseException.class, () -> PerfRecordParser.parseAll(f, MemorySegment.ofArray(hugeChain)));
        assertTrue(e.getMessage().contains("callchain"), e.getMessage());
        // the first record was fine: the error is at the second
        e = assertThrows(PerfParseException.class, () -> PerfRecordParser.forEach(f, MemorySegment.ofArray(hugeChain), c -> { }));
        assertEquals(24, e.offset());

        byte[] cut = new RecordBytes().begin(PerfRecordType.SAMPLE, 0).u64(1).u64(0).end().toBytes();
        assertThrows(PerfParseException.class,
                () -> PerfRecordParser.parseAll(f, MemorySegment.ofArray(cut).asSlice(0, cut.length - 8)));
    }

    @Test
    void btsRecordsFromTheAuxAreaSkipPaddingAndDecodePrediction() {
        ByteBuffer bb = ByteBuffer.allocate(4 * 24).order(ByteOrder.LITTLE_ENDIAN);
        bb.putLong(0x401000).putLong(0x402000).putLong(BtsRecord.MISC_PREDICTED);
        bb.putLong(0).putLong(0).putLong(0); // padding
        bb.putLong(KERNEL_TEXT).putLong(0x401100).putLong(0);
        bb.putLong(0x402010).putLong(0x401004).putLong(BtsRecord.MISC_PREDICTED);
        MemorySegment seg = MemorySegment.ofArray(bb.array());
        List<BtsRecord> seen = new ArrayList<>();
        long n = BtsRecord.forEach(seg, 0, seg.byteSize(), (from, to, misc) -> seen.add(new BtsRecord(from, to, misc)));
        assertEquals(3, n);
        assertTrue(seen.get(0).predicted());
        assertFalse(seen.get(1).predicted());
        assertEquals(KERNEL_TEXT, seen.get(1).from());
        assertTrue(BtsRecord.read(seg, 24).padding());
        assertThrows(PerfParseException.class, () -> BtsRecord.forEach(seg, 0, 50, (f, t, m) -> { }));
        assertThrows(PerfParseException.class, () -> BtsRecord.forEach(seg, 48, 72, (f, t, m) -> { }));
    }

    /**
     * The hot path: small samples (IP|TID|TIME, 32 bytes) through a reused cursor. Prints the rate;
     * fails only far below the 50 M/s target (the 2-core VM is shared with other builds).
     */
    @Test
    void theCursorWalksAMillionSmallRecordsOneByOne() {
        // Correctness over a large buffer only: how fast is measured by PerfParseBench in the
        // benchmark module against C (no timing assertions in tests on a shared machine).
        int n = 1 << 20;
        ByteBuffer bb = ByteBuffer.allocate(n * 32).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < n; i++) {
            bb.putInt(PerfRecordType.SAMPLE).putShort((short) 0).putShort((short) 32).putLong(0x400000 + i)
                    .putInt(1).putInt(2).putLong(i);
        }
        MemorySegment seg = MemorySegment.ofArray(bb.array());
        PerfRecordCursor c = new PerfRecordCursor(format(PerfSample.IP | PerfSample.TID | PerfSample.TIME, 0, 0, false));
        c.wrap(seg);
        long sum = 0;
        int records = 0;
        while (c.next()) {
            sum += c.ip() + c.time();
            records++;
        }
        long expected = 0;
        for (int i = 0; i < n; i++) {
            expected += 0x400000 + i + i;
        }
        assertEquals(n, records);
        assertEquals(expected, sum);
    }

    /**
     * A sample's IP, TID, TIME, CPU and PERIOD are read from its bytes while the cursor is on it;
     * a record of another type keeps the last sample's ip and period, also when the cursor was
     * wrapped over other bytes in between and the sample's bytes were then reused (as a ring's
     * are once data_tail moves past them).
     */
    @Test
    void aRecordAfterASampleKeepsTheSamplesIpAndPeriodWhenTheSampleBytesAreReused() {
        long st = PerfSample.IP | PerfSample.TID | PerfSample.TIME | PerfSample.CPU | PerfSample.PERIOD;
        byte[] sample = new RecordBytes().begin(PerfRecordType.SAMPLE, 0)
                .u64(0x401000).u32(10).u32(11).u64(5000).u32(3).u32(0).u64(100_000).end().toBytes();
        byte[] lost = new RecordBytes().begin(PerfRecordType.LOST, 0).u64(1).u64(2).end().toBytes();
        PerfRecordCursor c = new PerfRecordCursor(format(st, 0, 0, false));
        c.wrap(MemorySegment.ofArray(sample));
        assertTrue(c.next());
        assertEquals(0x401000, c.ip());
        assertEquals(10, c.pid());
        assertEquals(11, c.tid());
        assertEquals(5000, c.time());
        assertEquals(3, c.cpu());
        assertEquals(100_000, c.period());
        c.wrap(MemorySegment.ofArray(lost));
        java.util.Arrays.fill(sample, (byte) 0x55);
        assertTrue(c.next());
        assertEquals(PerfRecordType.LOST, c.type());
        assertEquals(0x401000, c.ip());
        assertEquals(100_000, c.period());
        assertEquals(-1, c.pid());
        assertEquals(-1, c.tid());
        assertEquals(0, c.time());
        assertEquals(-1, c.cpu());
    }
}
