package dev.hwtool.record;

import java.lang.foreign.MemorySegment;

/**
 * Where a {@link SinkRecorder}'s records go: a perf.data writer, to a file or into memory. Here,
 * beside the writer, rather than in the contract: the records are the kernel's own bytes, handed
 * over as segments of the ring buffer, and the contract names neither perf's ABI nor
 * java.lang.foreign. A user records through {@link dev.hwtool.api.Recorder}: into memory, or to a
 * perf.data file. Segments are only valid
 * during the call (they may point into a live ring buffer): copy what you keep.
 */
public interface RecordSink {

    /** Exactly once, before any record: the events recorded and how. */
    void begin(RecordingInfo info);

    /**
     * One record in the kernel's format: perf_event_header (u32 type, u16 misc, u16 size) then
     * the body, {@code record.byteSize() == size}, little-endian, as read from the ring buffer.
     */
    void record(MemorySegment record);

    /**
     * AUX area data (intel_bts: 24-byte BTS records) of {@code cpu}/{@code tid}, taken from
     * {@code auxOffset} of the AUX buffer; perf.data stores it as PERF_RECORD_AUXTRACE.
     */
    void auxtrace(long auxOffset, int cpu, int tid, MemorySegment data);
}
