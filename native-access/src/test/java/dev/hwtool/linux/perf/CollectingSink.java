package dev.hwtool.linux.perf;

import dev.hwtool.record.RecordSink;
import dev.hwtool.record.RecordingInfo;
import dev.hwtool.arch.perf.abi.PerfRecord;
import dev.hwtool.arch.perf.abi.PerfRecordFormat;
import dev.hwtool.arch.perf.abi.PerfRecordParser;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/** A sink that copies everything it is given and checks the contract's order as it goes. */
final class CollectingSink implements RecordSink {

    RecordingInfo info;
    int begins;
    final List<byte[]> records = new ArrayList<>();
    final ByteArrayOutputStream aux = new ByteArrayOutputStream();
    long recordsBeforeBegin;

    @Override
    public void begin(RecordingInfo info) {
        begins++;
        this.info = info;
    }

    @Override
    public void record(MemorySegment record) {
        if (info == null) {
            recordsBeforeBegin++;
        }
        int size = Short.toUnsignedInt(record.get(ValueLayout.JAVA_SHORT_UNALIGNED, 6));
        if (size != record.byteSize()) {
            throw new AssertionError("header size " + size + " but a segment of " + record.byteSize() + " bytes");
        }
        records.add(record.toArray(ValueLayout.JAVA_BYTE));
    }

    @Override
    public void auxtrace(long auxOffset, int cpu, int tid, MemorySegment data) {
        aux.writeBytes(data.toArray(ValueLayout.JAVA_BYTE));
    }

    /** Every record, parsed with the first event's format (each one on its own: none may spill). */
    List<PerfRecord> parsed() {
        PerfRecordFormat f = PerfRecordFormat.of(info.events().getFirst().attr());
        List<PerfRecord> out = new ArrayList<>();
        for (byte[] r : records) {
            List<PerfRecord> one = PerfRecordParser.parseAll(f, MemorySegment.ofArray(r));
            if (one.size() != 1) {
                throw new AssertionError("a record parsed as " + one.size());
            }
            out.add(one.getFirst());
        }
        return out;
    }

    long bytes() {
        return records.stream().mapToLong(r -> r.length).sum();
    }
}
