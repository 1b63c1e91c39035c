package dev.hwtool.record;

import dev.hwtool.api.HwException;
import dev.hwtool.arch.perf.abi.PerfAttrFlag;
import dev.hwtool.arch.perf.PerfCount;
import dev.hwtool.arch.perf.abi.PerfEventAttr;
import dev.hwtool.arch.perf.abi.PerfRecordType;
import dev.hwtool.arch.perf.abi.PerfSample;
import dev.hwtool.arch.perf.PerfType;
import io.airlift.compress.v3.zstd.ZstdJavaCompressor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * PERF_RECORD_COMPRESSED (81) and COMPRESSED2 (83) in pipe-mode files built here byte by byte
 * (tools/lib/perf/include/perf/event.h): whole zstd frames, split across records at arbitrary
 * points so that both frames and sample records span them. perf 6.1's own -z files (one frame
 * never ended) are PerfCorpusTest's, made by perf in the test.
 */
class CompressedRecordsTest {

    @TempDir
    Path dir;

    static final int SAMPLES = 3000;

    /** IP | TID | PERIOD, with the period from the attr for none: 24 bytes after the header. */
    static byte[] samples() {
        ByteBuffer b = ByteBuffer.allocate(SAMPLES * 32).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < SAMPLES; i++) {
            b.putInt(PerfRecordType.SAMPLE).putShort((short) 2).putShort((short) 32);
            b.putLong(0x401000L + 16 * (i % 7)).putInt(42).putInt(42).putLong(i + 1);
        }
        return b.array();
    }

    static byte[] pipeFile(int recordType, byte[][] chunks) {
        PerfEventAttr attr = PerfEventAttr.builder().type(PerfType.SOFTWARE).config(PerfCount.SW_CPU_CLOCK)
                .samplePeriod(1000).sampleType(PerfSample.IP | PerfSample.TID | PerfSample.PERIOD)
                .flag(PerfAttrFlag.EXCLUDE_GUEST).build();
        byte[] a = attr.encode(PerfEventAttr.SIZE_VER5);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuffer h = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
        h.putLong(PerfFileFormat.MAGIC).putLong(PerfFileFormat.PIPE_HEADER_SIZE);
        out.writeBytes(h.array());
        ByteBuffer r = ByteBuffer.allocate(8 + a.length + 8).order(ByteOrder.LITTLE_ENDIAN);
        r.putInt(PerfFileFormat.RECORD_HEADER_ATTR).putShort((short) 0).putShort((short) (8 + a.length + 8)).put(a).putLong(7);
        out.writeBytes(r.array());
        for (byte[] c : chunks) {
            boolean two = recordType == PerfFileFormat.RECORD_COMPRESSED2;
            int head = two ? 16 : 8;
            int size = two ? (head + c.length + 7) & ~7 : head + c.length;
            ByteBuffer cr = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
            cr.putInt(recordType).putShort((short) 0).putShort((short) size);
            if (two) {
                cr.putLong(c.length);
            }
            cr.put(c);
            out.writeBytes(cr.array());
            // perf writes a FINISHED_ROUND between flushes
            ByteBuffer fr = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            fr.putInt(PerfFileFormat.RECORD_FINISHED_ROUND).putShort((short) 0).putShort((short) 8);
            out.writeBytes(fr.array());
        }
        return out.toByteArray();
    }

    /** Two zstd frames of the samples' halves (cut inside a record), split into records at odd points. */
    static byte[][] chunks() {
        byte[] raw = samples();
        int cut = raw.length / 2 + 5;
        ByteArrayOutputStream z = new ByteArrayOutputStream();
        for (byte[] part : new byte[][] {Arrays.copyOfRange(raw, 0, cut), Arrays.copyOfRange(raw, cut, raw.length)}) {
            ZstdJavaCompressor c = new ZstdJavaCompressor();
            byte[] out = new byte[c.maxCompressedLength(part.length)];
            int n = c.compress(part, 0, part.length, out, 0, out.length);
            z.writeBytes(Arrays.copyOf(out, n));
        }
        byte[] all = z.toByteArray();
        int[] at = {0, 3, all.length / 3, all.length / 2 + 1, all.length};
        byte[][] chunks = new byte[at.length - 1][];
        for (int i = 0; i + 1 < at.length; i++) {
            chunks[i] = Arrays.copyOfRange(all, at[i], at[i + 1]);
        }
        return chunks;
    }

    private void readsEverySample(int recordType) throws Exception {
        Path f = dir.resolve("z.data");
        Files.write(f, pipeFile(recordType, chunks()));
        long[] n = new long[2];
        try (PerfDataFile data = PerfDataFile.open(f)) {
            assertTrue(data.pipe());
            // no HEADER_EVENT_DESC: perf's name of the attr (evsel__name; exclude_guest, as perf
            // record sets it, is no modifier)
            assertEquals("cpu-clock", data.info().events().getFirst().name());
            data.forEach(c -> {
                if (c.isSample()) {
                    n[0]++;
                    n[1] += c.period();
                    assertEquals(0x401000L + 16 * ((c.period() - 1) % 7), c.ip());
                }
            });
            assertEquals(4, data.compressedRecords());
        }
        assertEquals(SAMPLES, n[0]);
        assertEquals((long) SAMPLES * (SAMPLES + 1) / 2, n[1]);
    }

    @Test
    void compressedRecordsSpanningFramesAndRecordsAreRead() throws Exception {
        readsEverySample(PerfFileFormat.RECORD_COMPRESSED);
    }

    @Test
    void compressed2RecordsWithTheirDataSizeAndPaddingAreRead() throws Exception {
        readsEverySample(PerfFileFormat.RECORD_COMPRESSED2);
    }

    @Test
    void corruptZstdDataIsBadInputNotAnotherException() throws Exception {
        byte[][] chunks = chunks();
        chunks[1] = chunks[1].clone();
        Arrays.fill(chunks[1], (byte) 0x5a);
        Path f = dir.resolve("bad.data");
        Files.write(f, pipeFile(PerfFileFormat.RECORD_COMPRESSED, chunks));
        try (PerfDataFile data = PerfDataFile.open(f)) {
            HwException e = assertThrows(HwException.class, () -> data.forEach(c -> { }));
            assertTrue(e.getMessage().contains("compressed"), e.getMessage());
        }
    }

    @Test
    void theAttrsPeriodStandsForSamplesWithoutOne() throws Exception {
        // the same samples without PERIOD in sample_type: 16 bytes after the header, period 1000 each
        PerfEventAttr attr = PerfEventAttr.builder().type(PerfType.SOFTWARE).config(PerfCount.SW_CPU_CLOCK)
                .samplePeriod(1000).sampleType(PerfSample.IP | PerfSample.TID).build();
        byte[] a = attr.encode(PerfEventAttr.SIZE_VER5);
        ByteBuffer b = ByteBuffer.allocate(16 + 8 + a.length + 10 * 24).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(PerfFileFormat.MAGIC).putLong(PerfFileFormat.PIPE_HEADER_SIZE);
        b.putInt(PerfFileFormat.RECORD_HEADER_ATTR).putShort((short) 0).putShort((short) (8 + a.length)).put(a);
        for (int i = 0; i < 10; i++) {
            b.putInt(PerfRecordType.SAMPLE).putShort((short) 2).putShort((short) 24).putLong(0x401000L).putInt(1).putInt(1);
        }
        Path f = dir.resolve("c.data");
        Files.write(f, b.array());
        long[] sum = new long[1];
        try (PerfDataFile data = PerfDataFile.open(f)) {
            data.forEach(c -> sum[0] += c.period());
        }
        assertEquals(10_000, sum[0]);
    }
}
