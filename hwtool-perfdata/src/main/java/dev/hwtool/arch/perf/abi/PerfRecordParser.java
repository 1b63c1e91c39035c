package dev.hwtool.arch.perf.abi;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/** Whole-buffer helpers over {@link PerfRecordCursor}. */
public final class PerfRecordParser {

    /** Called once per record with the cursor on it; the cursor is only valid during the call. */
    @FunctionalInterface
    public interface Visitor {
        void visit(PerfRecordCursor record);
    }

    private PerfRecordParser() {
    }

    /**
     * Visits every record of {@code data} in order without allocating per record.
     *
     * @return the number of records
     * @throws PerfParseException at the first malformed record (the ones before it were visited)
     */
    public static long forEach(PerfRecordFormat format, MemorySegment data, Visitor v) {
        PerfRecordCursor c = new PerfRecordCursor(format).wrap(data);
        long n = 0;
        while (c.next()) {
            v.visit(c);
            n++;
        }
        return n;
    }

    /** Every record of {@code data} as values. */
    public static List<PerfRecord> parseAll(PerfRecordFormat format, MemorySegment data) {
        List<PerfRecord> out = new ArrayList<>();
        forEach(format, data, c -> out.add(c.toRecord()));
        return out;
    }

    /** The records between a buffer's position and limit (its order is ignored: perf data is little-endian). */
    public static List<PerfRecord> parseAll(PerfRecordFormat format, ByteBuffer data) {
        return parseAll(format, MemorySegment.ofBuffer(data));
    }
}
