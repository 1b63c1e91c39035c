package dev.hwtool.record;

import dev.hwtool.arch.perf.abi.PerfRecordCursor;

import java.lang.foreign.MemorySegment;

/**
 * What {@link PerfDataFile#forEach} calls, in perf's order (by time, round by round; see there);
 * the arguments are valid only during the call.
 */
public interface RecordVisitor {

    /** A kernel record (types below 64), the cursor positioned on it. */
    void record(PerfRecordCursor c);

    /**
     * A kernel record and the index of its event in {@link dev.hwtool.record.RecordingInfo#events()}
     * (found by the record's id); by default {@link #record(PerfRecordCursor)}.
     */
    default void record(PerfRecordCursor c, int event) {
        record(c);
    }

    /** The payload of a PERF_RECORD_AUXTRACE (intel_bts: 24-byte BTS records), padding included. */
    default void auxtrace(long offset, int cpu, int tid, MemorySegment data) {
    }
}
