package dev.hwtool.arch.perf.abi;

import dev.hwtool.arch.perf.PerfBranchSample;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The cursor against {@link ReferenceCursor}, its decoding as first written (one bounds check per
 * field): over arbitrary formats and mostly well-framed record streams, both must see the same
 * records with the same field values, and refuse the same malformed record at the same offset with
 * the same message.
 */
class PerfRecordCursorDifferentialTest {

    @Property(tries = 4000)
    void sameRecordsAndSameErrorsAsTheFieldByFieldDecoder(@ForAll("streams") byte[] data, @ForAll("sampleTypes") long sampleType,
                                                          @ForAll("readFormats") long readFormat, @ForAll("branchTypes") long branchType,
                                                          @ForAll boolean sampleIdAll, @ForAll long regsMask) {
        PerfRecordFormat f = new PerfRecordFormat(sampleType, readFormat, branchType, regsMask, regsMask >>> 3, sampleIdAll);
        assertEquals(walk(new ReferenceCursor(f), data), walkNew(new PerfRecordCursor(f), data));
    }

    /** Every size of a sample with every fixed field, from a bare header up: the first field that does not fit is named. */
    @Test
    void truncatedSamplesNameTheFirstFieldThatDoesNotFit() {
        long st = PerfSample.IDENTIFIER | PerfSample.IP | PerfSample.TID | PerfSample.TIME | PerfSample.ADDR | PerfSample.ID
                | PerfSample.STREAM_ID | PerfSample.CPU | PerfSample.PERIOD | PerfSample.CALLCHAIN | PerfSample.BRANCH_STACK;
        PerfRecordFormat f = new PerfRecordFormat(st, 0, PerfBranchSample.HW_INDEX, 0, 0, false);
        String[] names = {"identifier", "ip", "pid/tid", "time", "addr", "id", "stream_id", "cpu", "period",
                "callchain nr", "branch nr"};
        for (int size = 8; size < 8 + 8 * names.length; size++) {
            ByteBuffer bb = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
            bb.putInt(PerfRecordType.SAMPLE).putShort((short) 0).putShort((short) size);
            byte[] b = bb.array();
            List<String> expected = walk(new ReferenceCursor(f), b);
            assertEquals(List.of("error at 0: " + names[(size - 8) / 8] + " does not fit in the record's " + size + " bytes"),
                    expected);
            assertEquals(expected, walkNew(new PerfRecordCursor(f), b));
        }
    }

    /**
     * perf record -b's layout (the fixed fields and the branch stack alone, decoded inline in the
     * cursor's hot path) with hw_idx and branch counters, cut at every size from a bare header to
     * the whole record: each size fails, or not, as the field-by-field decoder does, naming the
     * same field.
     */
    @Test
    void truncatedBranchStackSamplesFailAsTheFieldByFieldDecoder() {
        long st = PerfSample.IP | PerfSample.TID | PerfSample.TIME | PerfSample.CPU | PerfSample.PERIOD
                | PerfSample.BRANCH_STACK;
        PerfRecordFormat f = new PerfRecordFormat(st, 0, PerfBranchSample.ANY | PerfBranchSample.HW_INDEX
                | PerfBranchSample.COUNTERS, 0, 0, false);
        int full = 8 + 5 * 8 + 8 + 8 + 2 * PerfBranchEntry.SIZE + 2 * 8;
        List<String> messages = new ArrayList<>();
        for (int size = 8; size <= full; size++) {
            ByteBuffer bb = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
            bb.putInt(PerfRecordType.SAMPLE).putShort((short) 0).putShort((short) size);
            for (long v = 1; bb.remaining() >= 8; v++) {
                bb.putLong(v == 6 ? 2 : v); // the sixth word is the branch stack's nr
            }
            byte[] b = bb.array();
            List<String> expected = walk(new ReferenceCursor(f), b);
            assertEquals(expected, walkNew(new PerfRecordCursor(f), b), "record of " + size + " bytes");
            messages.add(expected.get(0).replaceFirst("^error at 0: ", "").replaceFirst(" does not fit.*", ""));
        }
        // Every check of the layout was reached: each field named, and the whole record decoded.
        for (String field : List.of("ip", "period", "branch nr", "branch hw_idx", "branch stack of 2 entries",
                "branch counters")) {
            org.junit.jupiter.api.Assertions.assertTrue(messages.contains(field), field + " in " + messages);
        }
        org.junit.jupiter.api.Assertions.assertTrue(messages.get(messages.size() - 1).startsWith("0 9 0 " + full + " "),
                messages.get(messages.size() - 1));
    }

    private static List<String> walk(ReferenceCursor c, byte[] data) {
        List<String> seen = new ArrayList<>();
        c.wrap(MemorySegment.ofArray(data));
        try {
            while (c.next()) {
                StringBuilder s = new StringBuilder();
                s.append(c.offset()).append(' ').append(c.type()).append(' ').append(c.misc()).append(' ').append(c.size())
                        .append(" id ").append(c.identifier()).append(' ').append(c.ip()).append(' ').append(c.pid())
                        .append(' ').append(c.tid()).append(' ').append(c.time()).append(' ').append(c.addr()).append(' ')
                        .append(c.id()).append(' ').append(c.streamId()).append(' ').append(c.cpu()).append(' ')
                        .append(c.period());
                if (c.isSample()) {
                    s.append(" chain ").append(c.callchainLength());
                    for (int i = 0; i < c.callchainLength(); i++) {
                        s.append(' ').append(c.callchain(i));
                    }
                    s.append(" br ").append(c.branchCount()).append(' ').append(c.hasHwIndex()).append(' ')
                            .append(c.hwIndex()).append(' ').append(c.hasBranchCounters());
                    for (int i = 0; i < c.branchCount(); i++) {
                        s.append(' ').append(c.branchFrom(i)).append('/').append(c.branchTo(i)).append('/')
                                .append(c.branchFlags(i));
                        if (c.hasBranchCounters()) {
                            s.append('/').append(c.branchCounter(i));
                        }
                    }
                    s.append(" tail ").append(c.rawSize()).append(' ').append(c.weight()).append(' ').append(c.dataSrc())
                            .append(' ').append(c.transaction()).append(' ').append(c.physAddr()).append(' ')
                            .append(c.cgroup()).append(' ').append(c.dataPageSize()).append(' ').append(c.codePageSize())
                            .append(' ').append(c.auxSize());
                }
                seen.add(s.toString());
            }
        } catch (PerfParseException e) {
            seen.add("error at " + e.offset() + ": " + e.getMessage().replaceFirst("^.*?: ", ""));
        }
        return seen;
    }

    /** The same walk over the cursor under test (the two classes share no interface). */
    private static List<String> walkNew(PerfRecordCursor c, byte[] data) {
        List<String> seen = new ArrayList<>();
        c.wrap(MemorySegment.ofArray(data));
        try {
            while (c.next()) {
                StringBuilder s = new StringBuilder();
                s.append(c.offset()).append(' ').append(c.type()).append(' ').append(c.misc()).append(' ').append(c.size())
                        .append(" id ").append(c.identifier()).append(' ').append(c.ip()).append(' ').append(c.pid())
                        .append(' ').append(c.tid()).append(' ').append(c.time()).append(' ').append(c.addr()).append(' ')
                        .append(c.id()).append(' ').append(c.streamId()).append(' ').append(c.cpu()).append(' ')
                        .append(c.period());
                if (c.isSample()) {
                    s.append(" chain ").append(c.callchainLength());
                    for (int i = 0; i < c.callchainLength(); i++) {
                        s.append(' ').append(c.callchain(i));
                    }
                    s.append(" br ").append(c.branchCount()).append(' ').append(c.hasHwIndex()).append(' ')
                            .append(c.hwIndex()).append(' ').append(c.hasBranchCounters());
                    for (int i = 0; i < c.branchCount(); i++) {
                        s.append(' ').append(c.branchFrom(i)).append('/').append(c.branchTo(i)).append('/')
                                .append(c.branchFlags(i));
                        if (c.hasBranchCounters()) {
                            s.append('/').append(c.branchCounter(i));
                        }
                    }
                    s.append(" tail ").append(c.rawSize()).append(' ').append(c.weight()).append(' ').append(c.dataSrc())
                            .append(' ').append(c.transaction()).append(' ').append(c.physAddr()).append(' ')
                            .append(c.cgroup()).append(' ').append(c.dataPageSize()).append(' ').append(c.codePageSize())
                            .append(' ').append(c.auxSize());
                }
                seen.add(s.toString());
            }
        } catch (PerfParseException e) {
            seen.add("error at " + e.offset() + ": " + e.getMessage().replaceFirst("^.*?: ", ""));
        }
        return seen;
    }

    /** Mostly the fields a recorder asks for, with the rest of sample_type mixed in now and then. */
    @Provide
    Arbitrary<Long> sampleTypes() {
        long common = PerfSample.IP | PerfSample.TID | PerfSample.TIME | PerfSample.CPU | PerfSample.PERIOD;
        Arbitrary<Long> any = Arbitraries.longs().between(0, PerfSample.MAX - 1);
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(3, Arbitraries.of(common, common | PerfSample.BRANCH_STACK,
                        common | PerfSample.IDENTIFIER | PerfSample.CALLCHAIN, common | PerfSample.ID | PerfSample.READ)),
                net.jqwik.api.Tuple.of(1, any),
                net.jqwik.api.Tuple.of(1, any.map(v -> v & ~(PerfSample.REGS_USER | PerfSample.STACK_USER | PerfSample.RAW
                        | PerfSample.AUX))));
    }

    @Provide
    Arbitrary<Long> branchTypes() {
        long lbr = PerfBranchSample.ANY | PerfBranchSample.USER;
        return Arbitraries.oneOf(Arbitraries.of(lbr, lbr | PerfBranchSample.HW_INDEX,
                lbr | PerfBranchSample.HW_INDEX | PerfBranchSample.COUNTERS), Arbitraries.longs());
    }

    @Provide
    Arbitrary<Long> readFormats() {
        return Arbitraries.longs().between(0, PerfFormat.MAX - 1);
    }

    /** Samples and other records of any byte size (not only whole words), with small counts now and then. */
    @Provide
    Arbitrary<byte[]> streams() {
        return Arbitraries.integers().between(1, 6).flatMap(n ->
                Arbitraries.of(PerfRecordType.SAMPLE, PerfRecordType.SAMPLE, PerfRecordType.SAMPLE, PerfRecordType.SAMPLE,
                        PerfRecordType.MMAP, PerfRecordType.COMM, PerfRecordType.LOST, 1000).list().ofSize(n).flatMap(types ->
                        Arbitraries.integers().between(0, 300).list().ofSize(n).flatMap(sizes ->
                                Arbitraries.longs().array(long[].class).ofSize(n * 38)
                                        .map(payload -> frame(types, sizes, payload)))));
    }

    private static byte[] frame(List<Integer> types, List<Integer> sizes, long[] payload) {
        int total = 0;
        for (int s : sizes) {
            total += 8 + s;
        }
        ByteBuffer bb = ByteBuffer.allocate(total + 8 * payload.length).order(ByteOrder.LITTLE_ENDIAN);
        int at = 0;
        int w = 0;
        for (int i = 0; i < types.size(); i++) {
            int body = sizes.get(i);
            bb.position(at);
            bb.putInt(types.get(i)).putShort((short) (w & 0x7)).putShort((short) (8 + body));
            for (int k = 0; k + 8 <= body; k += 8) {
                long v = payload[w++ % payload.length];
                bb.putLong((v & 0x100) == 0 ? (v >>> 9 & 3) : v); // half of them counts of 0-3
            }
            at += 8 + body;
        }
        byte[] out = new byte[total];
        System.arraycopy(bb.array(), 0, out, 0, total);
        return out;
    }
}
