package dev.hwtool.api;

import dev.hwtool.api.BranchFilter;
import dev.hwtool.arch.perf.PerfBranchSample;
import dev.hwtool.arch.perf.abi.PerfRecord;
import dev.hwtool.arch.perf.abi.PerfRecordFormat;
import dev.hwtool.arch.perf.abi.PerfRecordParser;
import dev.hwtool.arch.perf.abi.PerfRecordType;
import dev.hwtool.arch.perf.abi.PerfSample;
import dev.hwtool.record.RecordSink;
import dev.hwtool.record.RecordingInfo;
import dev.hwtool.record.SinkRecorder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What every {@link Recorder} must do, whatever is behind it: perf_event_open on a real kernel or
 * the simulator with its Linux-driver stand-in. Each backend runs it by subclassing (as
 * {@link MsrAccessContract}). A request the backend cannot serve here must fail cleanly, before
 * anything is recorded; one it can serve must give well-formed kernel-format records that agree
 * with the attrs announced in {@link RecordSink#begin} and with the summary.
 */
public abstract class RecorderContract {

    /** A fresh recorder (closing what it needs is the subclass's business, after each test). */
    protected abstract Recorder recorder();

    /** A target of the kind this backend runs, busy enough to give a few hundred samples. */
    protected abstract RecordTarget busyTarget();

    /** A target of the kind this backend does not run. */
    protected abstract RecordTarget foreignTarget();

    /** A plain sampling request this backend serves here (hardware: cpu-clock; simulator: branches). */
    protected abstract RecordRequest.Sampling workingSampling();

    /**
     * Why LBR recording cannot run on this backend here, or empty when it can: the LBR tests
     * then require the failure to be the one stated (cause), or the records to be right.
     */
    protected abstract Optional<Cause> lbrUnavailable();

    /** As {@link #lbrUnavailable()}, for user-space BTS. */
    protected abstract Optional<Cause> btsUnavailable();

    /** A sink that checks the order of calls and keeps copies of everything. */
    protected static final class CollectingSink implements RecordSink {
        public RecordingInfo info;
        public final List<byte[]> records = new ArrayList<>();
        public long auxBytes;
        private boolean recordBeforeBegin;

        @Override
        public void begin(RecordingInfo i) {
            assertTrue(info == null, "begin() called twice");
            info = i;
        }

        @Override
        public void record(MemorySegment record) {
            if (info == null) {
                recordBeforeBegin = true;
            }
            records.add(record.toArray(ValueLayout.JAVA_BYTE));
        }

        @Override
        public void auxtrace(long auxOffset, int cpu, int tid, MemorySegment data) {
            assertTrue(info != null, "auxtrace before begin");
            auxBytes += data.byteSize();
        }

        /** Every record, parsed with the first event's format. */
        public List<PerfRecord> parsed() {
            assertFalse(recordBeforeBegin, "a record reached the sink before begin()");
            PerfRecordFormat format = PerfRecordFormat.of(info.events().getFirst().attr());
            List<PerfRecord> out = new ArrayList<>();
            for (byte[] r : records) {
                int size = ByteBuffer.wrap(r).order(ByteOrder.LITTLE_ENDIAN).getShort(6) & 0xFFFF;
                assertEquals(r.length, size, "a record's segment must be exactly header.size long");
                out.addAll(PerfRecordParser.parseAll(format, MemorySegment.ofArray(r)));
            }
            return out;
        }

        public List<PerfRecord.Sample> samples() {
            return parsed().stream().filter(PerfRecord.Sample.class::isInstance).map(PerfRecord.Sample.class::cast)
                    .toList();
        }
    }

    private RecordingSummary record(RecordRequest request, CollectingSink sink) {
        return SinkRecorder.of(recorder()).record(request, busyTarget(), sink);
    }

    @Test
    void aForeignTargetIsBadInputAndRecordsNothing() {
        CollectingSink sink = new CollectingSink();
        HwException e = assertThrows(HwException.class,
                () -> SinkRecorder.of(recorder()).record(workingSampling(), foreignTarget(), sink));
        assertEquals(Cause.BAD_INPUT, e.cause());
        assertTrue(sink.info == null && sink.records.isEmpty(), "nothing may reach the sink");
        assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
    }

    /**
     * The contract's file form: a perf.data file (perf's magic, PERFILE2) whose samples are the
     * summary's; a refused request writes no file, and leaves no temporary one beside it.
     */
    @Test
    void aRecordingToAFileIsPerfDataAndARefusalWritesNothing(@TempDir Path dir) throws java.io.IOException {
        Path file = dir.resolve("perf.data");
        RecordingSummary s = recorder().record(workingSampling(), busyTarget(), file);
        byte[] head = java.util.Arrays.copyOf(Files.readAllBytes(file), 8);
        assertEquals("PERFILE2", new String(head, java.nio.charset.StandardCharsets.US_ASCII));
        assertTrue(s.samples() > 0, "samples: " + s);
        Path refused = dir.resolve("refused.data");
        assertThrows(HwException.class, () -> recorder().record(workingSampling(), foreignTarget(), refused));
        try (var left = Files.list(dir)) {
            assertEquals(List.of(file.getFileName()), left.map(Path::getFileName).toList(), "only the first file");
        }
    }

    @Test
    void samplingGivesWellFormedSamplesThatMatchTheSummary() {
        CollectingSink sink = new CollectingSink();
        RecordingSummary s = record(workingSampling(), sink);
        assertNotNull(sink.info, "begin() must be called");
        assertEquals(0, s.exitStatus());
        List<PerfRecord> records = sink.parsed();
        assertEquals(s.records(), records.size(), "summary.records counts what reached the sink");
        long samples = records.stream().filter(r -> r.type() == PerfRecordType.SAMPLE).count();
        assertEquals(s.samples(), samples);
        assertTrue(samples > 0, "a busy target gives samples");
        long sampleType = sink.info.events().getFirst().attr().sampleType();
        assertTrue((sampleType & PerfSample.IP) != 0 && (sampleType & PerfSample.TID) != 0
                && (sampleType & PerfSample.TIME) != 0, "IP|TID|TIME at least");
        assertEquals(workingSampling().type(), sink.info.events().getFirst().attr().type());
        assertEquals(workingSampling().config(), sink.info.events().getFirst().attr().config());
        // Each CPU's ring is in time order; rings are not merged (perf record does not merge
        // either: perf report sorts), so order is checked per CPU.
        java.util.Map<Integer, Long> lastTime = new java.util.HashMap<>();
        for (PerfRecord.Sample x : sink.samples()) {
            long last = lastTime.getOrDefault(x.cpu(), Long.MIN_VALUE);
            assertTrue(x.time() >= last, "samples of one CPU come in time order");
            lastTime.put(x.cpu(), x.time());
            assertTrue(x.tid() > 0, "the target's tid");
        }
        assertTrue(records.stream().anyMatch(r -> r instanceof PerfRecord.Comm), "a COMM names the target");
    }

    @Test
    void lbrSamplesCarryBranchStacksThatObeyTheRequest() {
        RecordRequest.Lbr req = new RecordRequest.Lbr(RecordRequest.Privilege.USER, BranchFilter.ANY, 1000);
        CollectingSink sink = new CollectingSink();
        Optional<Cause> unavailable = lbrUnavailable();
        if (unavailable.isPresent()) {
            HwException e = assertThrows(HwException.class, () -> record(req, sink));
            assertEquals(unavailable.get(), e.cause(), e.getMessage());
            assertTrue(sink.info == null && sink.records.isEmpty(), "refused before anything is recorded");
            assertTrue(e.remedy().isPresent() || e.getMessage().length() > 20, "says why: " + e.getMessage());
            return;
        }
        record(req, sink);
        long bst = sink.info.events().getFirst().attr().branchSampleType();
        assertTrue((bst & PerfBranchSample.USER) != 0 && (bst & PerfBranchSample.KERNEL) == 0, "user only");
        List<PerfRecord.Sample> samples = sink.samples();
        assertFalse(samples.isEmpty());
        for (PerfRecord.Sample x : samples) {
            PerfRecord.BranchStack stack = x.branchStack().orElseThrow(() -> new AssertionError("no branch stack"));
            assertFalse(stack.entries().isEmpty());
            stack.entries().forEach(b -> assertTrue(b.from() >= 0 && b.to() >= 0,
                    "user-only: no kernel (upper-half) addresses: " + b));
        }
    }

    @Test
    void btsGivesEveryUserBranchOrRefusesCleanly() {
        RecordRequest.Bts req = new RecordRequest.Bts(RecordRequest.Privilege.USER);
        CollectingSink sink = new CollectingSink();
        Optional<Cause> unavailable = btsUnavailable();
        if (unavailable.isPresent()) {
            HwException e = assertThrows(HwException.class, () -> record(req, sink));
            assertEquals(unavailable.get(), e.cause(), e.getMessage());
            assertTrue(sink.info == null && sink.records.isEmpty(), "refused before anything is recorded");
            return;
        }
        RecordingSummary s = record(req, sink);
        if (s.auxBytes() > 0) {
            // intel_bts delivers the branches as AUX data, not samples (its decoding is checked
            // by the backend's own tests); the contract is that something was recorded.
            assertTrue(sink.info != null, "a recording with " + s.auxBytes() + " AUX bytes has its info");
            return;
        }
        List<PerfRecord.Sample> samples = sink.samples();
        assertTrue(samples.size() > 100, "period 1: one sample per taken branch, got " + samples.size());
        for (PerfRecord.Sample x : samples) {
            assertTrue(x.ip() >= 0 && x.addr() >= 0, "user-space branch ip=from, addr=to: " + x);
            assertTrue(x.ip() != 0 && x.addr() != 0);
        }
    }
}
