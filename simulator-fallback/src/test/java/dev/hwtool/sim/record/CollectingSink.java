package dev.hwtool.sim.record;

import dev.hwtool.record.RecordSink;
import dev.hwtool.record.RecordingInfo;
import dev.hwtool.arch.perf.abi.PerfRecord;
import dev.hwtool.arch.perf.abi.PerfRecordCursor;
import dev.hwtool.arch.perf.abi.PerfRecordFormat;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/** A sink that keeps copies of the records and parses them with the independent cursor. */
final class CollectingSink implements RecordSink {

    RecordingInfo info;
    int begins;
    final List<byte[]> records = new ArrayList<>();
    int recordsBeforeBegin;

    @Override
    public void begin(RecordingInfo info) {
        this.info = info;
        begins++;
    }

    @Override
    public void record(MemorySegment record) {
        if (info == null) {
            recordsBeforeBegin++;
        }
        records.add(record.toArray(ValueLayout.JAVA_BYTE));
    }

    @Override
    public void auxtrace(long auxOffset, int cpu, int tid, MemorySegment data) {
        throw new AssertionError("the simulator has no AUX area");
    }

    /** Every record, decoded with the first event's format. */
    List<PerfRecord> parsed() {
        PerfRecordCursor c = new PerfRecordCursor(PerfRecordFormat.of(info.events().getFirst().attr()));
        List<PerfRecord> out = new ArrayList<>();
        for (byte[] r : records) {
            c.wrap(MemorySegment.ofArray(r));
            if (!c.next()) {
                throw new AssertionError("empty record");
            }
            if (c.size() != r.length) {
                throw new AssertionError("header size " + c.size() + " != record length " + r.length);
            }
            out.add(c.toRecord());
        }
        return out;
    }

    List<PerfRecord.Sample> samples() {
        return parsed().stream().filter(r -> r instanceof PerfRecord.Sample).map(r -> (PerfRecord.Sample) r).toList();
    }
}
