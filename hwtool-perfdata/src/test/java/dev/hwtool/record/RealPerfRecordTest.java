package dev.hwtool.record;

import dev.hwtool.arch.perf.abi.RecordBytes;
import dev.hwtool.arch.branch.BranchKind;
import dev.hwtool.arch.perf.abi.PerfRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Files written by the real perf record, read by PerfDataFile and symbolized, compared with perf script. */
class RealPerfRecordTest {

    /**
     * Every test here opens perf events of this process: a host must let a process count itself
     * (perf_event_paranoid 2 or less, or CAP_PERFMON) and no seccomp filter may refuse the call
     * (Docker's default profile does). Fixable: skipped locally with the reason, failed in CI.
     */
    @org.junit.jupiter.api.BeforeEach
    void perfEventOpenAllowed() {
        dev.hwtool.testing.Preconditions.perfCountsOwnProcesses();
    }

    @TempDir
    Path dir;

    @Test
    void samplesAndIpsMatchPerfScript() throws Exception {
        Tools.require(Tools.PERF);
        Path f = dir.resolve("dd.data");
        Tools.run(dir, List.of(Tools.PERF, "record", "-q", "-e", "cpu-clock", "-c", "100000", "-o", f.toString(), "--",
                "dd", "if=/dev/zero", "of=/dev/null", "count=200000"));
        // perf script sorts by time across the per-CPU buffers; the file keeps flush order: compare as multisets
        List<String> expected = Tools.run(dir, List.of(Tools.PERF, "script", "-i", f.toString(), "-F", "ip")).lines()
                .map(String::strip).filter(l -> !l.isEmpty()).sorted().toList();
        List<String> ours = new ArrayList<>();
        try (PerfDataFile file = PerfDataFile.open(f)) {
            assertEquals(RecordingCmdline.FOREIGN_BACKEND, file.info().backend());
            assertTrue(file.info().target().contains("dd if=/dev/zero"), file.info().target());
            // perf names the event as asked, with ":u" where it had to exclude the kernel (a user
            // under perf_event_paranoid 2): the modifier is the host's, the event the law.
            assertEquals("cpu-clock", file.info().events().get(0).name().replaceFirst(":u$", ""));
            assertTrue(!file.info().events().get(0).ids().isEmpty());
            file.forEach(c -> {
                if (c.isSample()) {
                    ours.add(Long.toHexString(c.ip()));
                }
            });
        }
        assertTrue(expected.size() > 10, "perf recorded only " + expected.size() + " samples");
        assertEquals(expected, ours.stream().sorted().toList());
    }

    @Test
    void symbolizerAgreesWithPerfOnASpinningProgram() throws Exception {
        Tools.require(Tools.PERF);
        Path exe = Tools.compileSpin(dir, "spin");
        Path f = dir.resolve("spin.data");
        Tools.run(dir, List.of(Tools.PERF, "record", "-q", "-e", "cpu-clock:u", "-c", "100000", "-o", f.toString(), "--",
                exe.toString(), "100000000"));
        List<String> perfSyms = Tools.run(dir, List.of(Tools.PERF, "script", "-i", f.toString(), "-F", "ip,sym"))
                .lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
        List<String> ourSyms = new ArrayList<>();
        try (PerfDataFile file = PerfDataFile.open(f);
             Symbolizer sym = Symbolizer.of(file.records())) {
            for (PerfRecord r : file.records()) {
                if (r instanceof PerfRecord.Sample s) {
                    ourSyms.add(Long.toHexString(s.ip()) + " " + sym.resolve(s.pid(), s.ip()).map(Symbolized::function)
                            .orElse("[unknown]"));
                }
            }
        }
        assertEquals(perfSyms.size(), ourSyms.size());
        perfSyms = perfSyms.stream().map(l -> l.replaceAll("\\s+", " ")).sorted().toList();
        ourSyms = ourSyms.stream().sorted().toList();
        long spin = ourSyms.stream().filter(l -> l.endsWith(" hwtool_spin")).count();
        assertTrue(spin * 10 >= ourSyms.size() * 8, spin + " of " + ourSyms.size() + " samples in hwtool_spin");
        assertEquals(perfSyms.stream().filter(l -> l.endsWith(" hwtool_spin")).toList(),
                ourSyms.stream().filter(l -> l.endsWith(" hwtool_spin")).toList());
    }

    @Test
    void symbolizerResolvesAndClassifiesInASyntheticPieMapping() throws Exception {
        Path exe = Tools.compileSpin(dir, "spin");
        long spin = Tools.nmAddress(dir, exe, "hwtool_spin");
        long main = Tools.nmAddress(dir, exe, "main");
        Fixture fx = Fixture.cpuClock(exe);
        RecordBytes b = new RecordBytes();
        fx.mmap2(b);
        long call;
        long ret;
        try (dev.hwtool.elf.ElfFile elf = dev.hwtool.elf.ElfFile.open(exe)) {
            call = PerfScriptReadsOurFilesTest.callTo(elf, main, spin);
            ret = PerfScriptReadsOurFilesTest.firstByte(elf, spin, 0xC3);
        }
        List<PerfRecord> recs = dev.hwtool.arch.perf.abi.PerfRecordParser.parseAll(
                dev.hwtool.arch.perf.abi.PerfRecordFormat.of(fx.attr), java.nio.ByteBuffer.wrap(b.records().get(0)));
        try (Symbolizer s = Symbolizer.of(recs)) {
            assertEquals("hwtool_spin+0x3", s.describe(Fixture.PID, fx.runtime(spin + 3)));
            assertEquals("hwtool_spin", s.describe(Fixture.PID, fx.runtime(spin)));
            assertEquals(BranchKind.CALL, s.classify(Fixture.PID, fx.runtime(call)).orElseThrow());
            assertEquals(BranchKind.RET, s.classify(Fixture.PID, fx.runtime(ret)).orElseThrow());
            assertEquals("0x1234", s.describe(Fixture.PID, 0x1234));
            assertTrue(s.resolve(Fixture.PID + 1, fx.runtime(spin)).isEmpty(), "another process");
        }
        // a mapping of a file that is gone: unsymbolized, not an error
        RecordBytes gone = new RecordBytes();
        new Fixture(exe, 1, 0, true, 0).mmap2(gone);
        byte[] rec = gone.records().get(0);
        String missing = dir.resolve("gone").toString();
        List<PerfRecord> recs2 = dev.hwtool.arch.perf.abi.PerfRecordParser.parseAll(
                dev.hwtool.arch.perf.abi.PerfRecordFormat.of(fx.attr), java.nio.ByteBuffer.wrap(rec));
        PerfRecord.Mmap2 m = (PerfRecord.Mmap2) recs2.get(0);
        PerfRecord.Mmap2 moved = new PerfRecord.Mmap2(m.misc(), m.pid(), m.tid(), m.addr(), m.len(), m.pgoff(), m.maj(),
                m.min(), m.ino(), m.inoGeneration(), m.buildId(), m.prot(), m.flags(), missing, m.sampleId());
        try (Symbolizer s = Symbolizer.of(List.of(moved))) {
            assertTrue(s.resolve(Fixture.PID, fx.runtime(spin)).isEmpty());
            assertEquals("0x" + Long.toHexString(fx.runtime(spin)), s.describe(Fixture.PID, fx.runtime(spin)));
            // perf report's names for it: the file's basename, the file offset as 16 hex digits
            dev.hwtool.record.CodeLocation l = s.locate(Fixture.PID, fx.runtime(spin), dev.hwtool.arch.perf.abi.PerfRecordMisc.USER);
            assertEquals("gone", l.dsoName());
            assertEquals("[.] " + String.format("%#018x", l.address()), l.symbolColumn());
            assertEquals("[unknown]", l.scriptSymbol());
            assertTrue(s.classify(Fixture.PID, fx.runtime(call)).isEmpty());
        }
    }
}
