package dev.hwtool.record;

import dev.hwtool.arch.perf.abi.RecordBytes;
import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.record.RecordingInfo;
import dev.hwtool.arch.perf.abi.PerfEventAttr;
import dev.hwtool.arch.perf.abi.PerfRecord;
import dev.hwtool.arch.perf.PerfType;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** PerfDataWriter then PerfDataFile gives back what was written; bad files and paths fail with BAD_INPUT. */
class PerfDataRoundTripTest {

    @TempDir
    Path dir;

    /** A recording of synthetic records, needing no executable: the mapping names /bin/sh, never opened. */
    private static final Path EXE = Path.of("/bin/sh");

    private static Fixture fixture() {
        return new Fixture(EXE, PerfType.SOFTWARE, 0, true, 5);
    }

    private static RecordingInfo info(Fixture f) {
        return f.info("simulated (profile test)", "cpu-clock:u", List.of(5L), Optional.empty());
    }

    private static List<byte[]> records(Fixture f) {
        RecordBytes b = new RecordBytes();
        f.comm(b, "spin");
        f.mmap2(b);
        for (int i = 0; i < 5; i++) {
            f.sample(b, 0x555555555000L + i, 100 + i, 1000);
        }
        return b.records();
    }

    @Test
    void roundTripGivesBackInfoRecordsAndAuxData() throws IOException {
        Fixture f = fixture();
        List<byte[]> recs = records(f);
        byte[] aux = new byte[37]; // padded to 40 in the file
        Arrays.fill(aux, (byte) 0x5A);
        RecordingInfo.AuxPmu pmu = new RecordingInfo.AuxPmu("intel_bts", 9, 11, 123456789L, 42L, true);
        PerfEventAttr second = f.attr.toBuilder().config(2).build();
        RecordingInfo info = new RecordingInfo("simulated (profile skylake)", "loop 100 body 3",
                List.of(new RecordingInfo.Event("cpu-clock:u", f.attr, List.of(5L, 6L)),
                        new RecordingInfo.Event("page-faults:u", second, List.of(7L))), Optional.of(pmu));
        Path file = dir.resolve("rt.data");
        try (PerfDataWriter w = PerfDataWriter.create(file)) {
            w.begin(info);
            recs.forEach(r -> w.record(MemorySegment.ofArray(r)));
            w.auxtrace(4096, 1, 77, MemorySegment.ofArray(aux));
            w.commit();
        }
        byte[] bytes = Files.readAllBytes(file);
        try (PerfDataFile back = PerfDataFile.open(file)) {
            RecordingInfo got = back.info();
            assertEquals(info.backend(), got.backend());
            assertEquals(info.target(), got.target());
            assertEquals(info.auxPmu(), got.auxPmu());
            assertEquals(2, got.events().size());
            for (int i = 0; i < 2; i++) {
                RecordingInfo.Event want = info.events().get(i);
                RecordingInfo.Event have = got.events().get(i);
                assertEquals(want.name(), have.name());
                assertEquals(want.ids(), have.ids());
                // the file keeps the smallest attr size holding every field set; the fields are the same
                assertEquals(want.attr().minimumSize(), have.attr().size());
                assertArrayEquals(want.attr().encode(have.attr().size()), have.attr().encode());
            }
            List<byte[]> seen = new ArrayList<>();
            List<byte[]> auxSeen = new ArrayList<>();
            long n = back.forEach(new RecordVisitor() {
                @Override
                public void record(dev.hwtool.arch.perf.abi.PerfRecordCursor c) {
                    seen.add(Arrays.copyOfRange(bytes, (int) c.offset(), (int) c.offset() + c.size()));
                }

                @Override
                public void auxtrace(long offset, int cpu, int tid, MemorySegment data) {
                    assertEquals(4096, offset);
                    assertEquals(1, cpu);
                    assertEquals(77, tid);
                    auxSeen.add(data.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
                }
            });
            assertEquals(recs.size(), n);
            for (int i = 0; i < recs.size(); i++) {
                assertArrayEquals(recs.get(i), seen.get(i), "record " + i);
            }
            assertArrayEquals(Arrays.copyOf(aux, 40), auxSeen.get(0));
            List<PerfRecord> values = back.records();
            assertTrue(values.get(0) instanceof PerfRecord.Comm c && c.comm().equals("spin") && c.exec());
            assertTrue(values.get(1) instanceof PerfRecord.Mmap2 m && m.filename().equals(EXE.toString()));
            assertEquals(5, values.stream().filter(r -> r instanceof PerfRecord.Sample).count());
        }
    }

    @Test
    void anExistingTargetBecomesDotOldAndNoTempFileRemains() throws IOException {
        Path file = dir.resolve("perf.data");
        Files.writeString(file, "previous");
        try (PerfDataWriter w = PerfDataWriter.create(file)) {
            w.begin(info(fixture()));
            w.commit();
            assertThrows(IllegalStateException.class, w::commit, "commit twice");
        }
        assertEquals("previous", Files.readString(dir.resolve("perf.data.old")));
        try (PerfDataFile back = PerfDataFile.open(file)) {
            assertEquals(0, back.forEach(c -> { }));
        }
        try (var s = Files.list(dir)) {
            assertEquals(List.of("perf.data", "perf.data.old"), s.map(p -> p.getFileName().toString()).sorted().toList());
        }
    }

    @Test
    void closeWithoutCommitLeavesNothing() throws IOException {
        Path file = dir.resolve("never.data");
        try (PerfDataWriter w = PerfDataWriter.create(file)) {
            w.begin(info(fixture()));
            records(fixture()).forEach(r -> w.record(MemorySegment.ofArray(r)));
        }
        try (var s = Files.list(dir)) {
            assertEquals(0, s.count());
        }
    }

    @Test
    void anUnwritableDirectoryCannotBeWrittenAndLeavesNothing() throws IOException {
        Path ro = Files.createDirectory(dir.resolve("ro"));
        Path missing = dir.resolve("no/such/dir/perf.data");
        HwException e = assertThrows(HwException.class, () -> PerfDataWriter.create(missing));
        assertEquals(Cause.OS_ERROR, e.cause());
        assertTrue(e.getMessage().startsWith("cannot write " + missing), e.getMessage());
        assertFalse(Files.exists(dir.resolve("no")), "a missing directory is never created");
        assertFalse(e.getMessage().contains("\n"));
        // root ignores mode bits, so the read-only case is a file where the directory should be
        Path notADir = Files.writeString(ro.resolve("file"), "x");
        HwException e2 = assertThrows(HwException.class, () -> PerfDataWriter.create(notADir.resolve("perf.data")));
        assertEquals(Cause.OS_ERROR, e2.cause());
        try (var s = Files.list(ro)) {
            assertEquals(List.of(notADir), s.toList());
        }
    }

    @Test
    void badMagicAndTruncationAreOneLineBadInput() throws IOException {
        Path file = dir.resolve("good.data");
        try (PerfDataWriter w = PerfDataWriter.create(file)) {
            Fixture f = fixture();
            w.begin(info(f));
            records(f).forEach(r -> w.record(MemorySegment.ofArray(r)));
            w.commit();
        }
        byte[] good = Files.readAllBytes(file);
        byte[] magic = good.clone();
        magic[0] = 'X';
        assertBad(magic, "not a perf.data file");
        assertBad(Arrays.copyOf(good, 50), "truncated");
        assertBad(new byte[0], "truncated");
        // cut inside the data section: the header is intact, the last record is not
        long dataOff = java.nio.ByteBuffer.wrap(good, 40, 16).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
        long dataSize = java.nio.ByteBuffer.wrap(good, 48, 8).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
        byte[] cut = good.clone();
        java.nio.ByteBuffer.wrap(cut).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(48, dataSize + 4);
        assertBad(Arrays.copyOf(cut, (int) (dataOff + dataSize + 4)), "truncated: the feature table");
        // a record whose size runs past the data section
        byte[] longRecord = good.clone();
        java.nio.ByteBuffer.wrap(longRecord).order(java.nio.ByteOrder.LITTLE_ENDIAN).putShort((int) dataOff + 6, (short) 0x7FF8);
        assertBad(longRecord, "run past the end of the data section");
        HwException missing = assertThrows(HwException.class, () -> PerfDataFile.open(dir.resolve("absent.data")));
        assertEquals(Cause.BAD_INPUT, missing.cause());
    }

    /** Every prefix of a recording is refused in one line: the feature sections end the file, so any cut shows. */
    @Test
    void everyPrefixIsRefusedInOneLine() throws IOException {
        Path file = dir.resolve("whole.data");
        try (PerfDataWriter w = PerfDataWriter.create(file)) {
            Fixture f = fixture();
            w.begin(info(f));
            records(f).forEach(r -> w.record(MemorySegment.ofArray(r)));
            w.auxtrace(0, 0, 1, MemorySegment.ofArray(new byte[24]));
            w.commit();
        }
        byte[] whole = Files.readAllBytes(file);
        Path cut = dir.resolve("cut.data");
        for (int n = 0; n < whole.length; n++) {
            Files.write(cut, Arrays.copyOf(whole, n));
            int at = n;
            HwException e = assertThrows(HwException.class, () -> {
                try (PerfDataFile p = PerfDataFile.open(cut)) {
                    p.forEach(new RecordVisitor() {
                        @Override
                        public void record(dev.hwtool.arch.perf.abi.PerfRecordCursor c) {
                            c.toRecord();
                        }
                    });
                    p.info();
                }
            }, "cut at " + at);
            assertEquals(Cause.BAD_INPUT, e.cause(), e.getMessage());
            assertEquals(1, e.getMessage().lines().count(), e.getMessage());
            assertTrue(e.getMessage().startsWith(cut + ": "), e.getMessage());
        }
    }

    private void assertBad(byte[] bytes, String why) throws IOException {
        Path f = Files.write(dir.resolve("bad.data"), bytes);
        HwException e = assertThrows(HwException.class, () -> {
            try (PerfDataFile p = PerfDataFile.open(f)) {
                p.forEach(c -> c.toRecord());
            }
        });
        assertEquals(Cause.BAD_INPUT, e.cause());
        assertTrue(e.getMessage().startsWith(f + ": ") && e.getMessage().contains(why), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
    }

    /** Arbitrary damage to a valid file: opening and walking it fails only with a one-line BAD_INPUT. */
    @Property(tries = 400)
    void damagedFilesFailOnlyWithBadInput(@ForAll @IntRange(min = 0, max = 4000) int at, @ForAll byte value,
                                          @ForAll @IntRange(min = 0, max = 4000) int cut,
                                          @ForAll boolean truncate) throws IOException {
        Path tmp = Files.createTempDirectory("perfdata-fuzz");
        try {
            Path file = tmp.resolve("f.data");
            try (PerfDataWriter w = PerfDataWriter.create(file)) {
                Fixture f = fixture();
                w.begin(info(f));
                records(f).forEach(r -> w.record(MemorySegment.ofArray(r)));
                w.auxtrace(0, 0, 1, MemorySegment.ofArray(new byte[24]));
                w.commit();
            }
            byte[] b = Files.readAllBytes(file);
            if (truncate) {
                b = Arrays.copyOf(b, Math.min(cut, b.length));
            }
            if (b.length > 0) {
                b[at % b.length] = value;
            }
            Files.write(file, b);
            try (PerfDataFile p = PerfDataFile.open(file)) {
                p.forEach(new RecordVisitor() {
                    @Override
                    public void record(dev.hwtool.arch.perf.abi.PerfRecordCursor c) {
                        c.toRecord();
                    }
                });
            } catch (HwException e) {
                assertEquals(Cause.BAD_INPUT, e.cause());
                assertFalse(e.getMessage().contains("\n"), e.getMessage());
            }
        } finally {
            try (var s = Files.walk(tmp)) {
                s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
