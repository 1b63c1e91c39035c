package dev.hwtool.record;

import dev.hwtool.record.RecordingInfo;
import dev.hwtool.arch.perf.abi.PerfRecord;
import dev.hwtool.arch.perf.abi.PerfRecordCursor;
import dev.hwtool.arch.perf.PerfType;
import dev.hwtool.arch.perf.abi.RecordBytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * PerfDataFile visits records in perf's order (util/ordered-events.c, util/session.c), not the
 * file's: an MMAP2 that perf record wrote after a sample from another CPU's buffer, but that is
 * older than it, is visited first when a FINISHED_ROUND flush takes both; one that comes in a
 * round after the flush that took the sample is not, for perf either. perf script on the same
 * files is the oracle for the names.
 */
class RecordOrderTest {

    private static final int FINISHED_ROUND = 68;
    private static final Path EXE = Path.of("/bin/sh");

    @TempDir
    Path dir;

    private final Fixture f = new Fixture(EXE, PerfType.SOFTWARE, 0, true, 0);

    private long ip() {
        return f.runtime(f.text.vaddr() + 16);
    }

    private static RecordBytes round(RecordBytes b) {
        return b.begin(FINISHED_ROUND, 0).end();
    }

    /** Round 1 drains CPU 0's buffer (COMM, a sample at 30) then CPU 1's (the MMAP2 at 20). */
    private List<byte[]> mmapAfterItsSampleInTheSameRound() {
        RecordBytes b = new RecordBytes();
        f.comm(b, "spin");
        f.sample(b, ip(), 30, 1);
        f.mmap2(b, 20);
        round(b);
        f.sample(b, ip() + 1, 40, 1);
        round(b);
        return b.records();
    }

    /**
     * The MMAP2 at 20 comes two rounds late: the second FINISHED_ROUND flushed up to 30 (the first
     * round's largest time) and took the sample at 30 before perf saw the MMAP2.
     */
    private List<byte[]> mmapAfterTheFlushOfItsSample() {
        RecordBytes b = new RecordBytes();
        f.comm(b, "spin");
        f.sample(b, ip(), 30, 1);
        round(b);
        f.sample(b, ip() + 1, 40, 1);
        round(b);
        f.mmap2(b, 20);
        round(b);
        return b.records();
    }

    private Path write(String name, List<byte[]> records) {
        Path file = dir.resolve(name);
        RecordingInfo info = f.info("perf record", "cpu-clock:u", List.of(), Optional.empty());
        try (PerfDataWriter w = PerfDataWriter.create(file)) {
            w.begin(info);
            records.forEach(r -> w.record(MemorySegment.ofArray(r)));
            w.commit();
        }
        return file;
    }

    /** Each sample's dso as perf script -F dso names it, in the order visited. */
    private static List<String> dsos(Path file) {
        List<String> out = new ArrayList<>();
        try (PerfDataFile data = PerfDataFile.open(file); Symbolizer s = new Symbolizer()) {
            for (PerfRecord r : data.records()) {
                s.add(r);
                if (r instanceof PerfRecord.Sample sample) {
                    out.add(s.locate(sample.pid(), sample.ip(), sample.cpumode()).scriptDso());
                }
            }
        }
        return out;
    }

    private static List<Long> times(Path file) {
        List<Long> out = new ArrayList<>();
        try (PerfDataFile data = PerfDataFile.open(file)) {
            data.forEach((PerfRecordCursor c) -> out.add(c.time()));
        }
        return out;
    }

    @Test
    void anOlderMmapInTheSameRoundComesFirst() {
        Path file = write("same-round.data", mmapAfterItsSampleInTheSameRound());
        assertEquals(List.of(10L, 20L, 30L, 40L), times(file));
        assertEquals(List.of(EXE.toString(), EXE.toString()), dsos(file));
    }

    @Test
    void anMmapPastTheFlushLimitDoesNotOvertake() {
        Path file = write("late.data", mmapAfterTheFlushOfItsSample());
        assertEquals(List.of(10L, 30L, 20L, 40L), times(file));
        assertEquals(List.of("[unknown]", EXE.toString()), dsos(file));
    }

    /** Without sample_id_all perf falls back to file order (session.c perf_session__new), and so does the reader. */
    @Test
    void withoutSampleIdAllFileOrder() {
        Fixture plain = f;
        RecordBytes b = new RecordBytes();
        plain.sample(b, ip(), 30, 1);
        plain.sample(b, ip(), 20, 1);
        round(b);
        Path file = dir.resolve("no-sample-id-all.data");
        var attr = plain.attr.toBuilder().set(dev.hwtool.arch.perf.abi.PerfAttrFlag.SAMPLE_ID_ALL, false).build();
        RecordingInfo info = new RecordingInfo("perf record", "x", List.of(new RecordingInfo.Event("cpu-clock:u", attr,
                List.of())), Optional.empty());
        try (PerfDataWriter w = PerfDataWriter.create(file)) {
            w.begin(info);
            b.records().forEach(r -> w.record(MemorySegment.ofArray(r)));
            w.commit();
        }
        assertEquals(List.of(30L, 20L), times(file));
    }

    /** perf script names the samples of both files as the reader does, in the same order. */
    @Test
    void perfScriptAgrees() throws Exception {
        Tools.require(Tools.PERF);
        for (var c : List.of(mmapAfterItsSampleInTheSameRound(), mmapAfterTheFlushOfItsSample())) {
            Path file = write("perf-" + c.hashCode() + ".data", c);
            String out = Tools.run(dir, List.of(Tools.PERF, "script", "-i", file.toString(), "-F", "time,ip,dso", "--ns"));
            List<String> perf = Arrays.stream(out.split("\n")).map(String::strip).filter(l -> !l.isEmpty())
                    .map(l -> l.contains("(") ? l.substring(l.indexOf('(') + 1, l.lastIndexOf(')')) : l).toList();
            assertEquals(perf, dsos(file), out);
        }
    }
}
