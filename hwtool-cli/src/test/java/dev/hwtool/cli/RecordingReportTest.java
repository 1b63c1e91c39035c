package dev.hwtool.cli;

import com.fasterxml.jackson.jr.ob.JSON;
import dev.hwtool.api.Cause;
import dev.hwtool.record.RecordingInfo;
import dev.hwtool.arch.branch.BranchKind;
import dev.hwtool.arch.perf.abi.BtsRecord;
import dev.hwtool.arch.perf.abi.PerfBranchEntry;
import dev.hwtool.arch.perf.PerfBranchSample;
import dev.hwtool.arch.perf.PerfCount;
import dev.hwtool.arch.perf.abi.PerfEventAttr;
import dev.hwtool.arch.perf.abi.PerfRecordEncoder;
import dev.hwtool.arch.perf.abi.PerfSample;
import dev.hwtool.arch.perf.PerfType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * hwtool lbr/bts report on recordings of the hardware kinds this machine cannot make (branch
 * stacks, intel_bts AUX data), written byte for byte as the kernel and perf write them, with the
 * real C library mapped: names and instruction kinds come from its ELF file.
 */
class RecordingReportTest {

    @TempDir
    Path dir;

    Recordings.Libc libc;

    @BeforeEach
    void libc() {
        Require.that(Recordings.libcPresent(), "libc.so.6 is not in ldconfig -p, or " + Recordings.LIBC + " is missing");
    }

    static final int TYPE_COND = 1;
    static final int TYPE_CALL = 4;

    static PerfEventAttr lbrAttr(long filterBits) {
        return PerfEventAttr.builder().type(PerfType.HARDWARE).config(PerfCount.HW_CPU_CYCLES).samplePeriod(1000)
                .sampleType(PerfSample.IP | PerfSample.TID | PerfSample.BRANCH_STACK)
                .branchSampleType(filterBits | PerfBranchSample.USER).build();
    }

    static RecordingInfo info(String event, PerfEventAttr attr, Optional<RecordingInfo.AuxPmu> aux) {
        return new RecordingInfo("hardware", "./prog", List.of(new RecordingInfo.Event(event, attr, List.of(7L))), aux);
    }

    static PerfBranchEntry e(long from, long to, boolean mispred, int cycles, int type) {
        return new PerfBranchEntry(from, to, PerfBranchEntry.flags(mispred, !mispred, false, false, cycles, type, 0, 0, 0));
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> jsonLines(String out) throws IOException {
        List<Map<String, Object>> l = new ArrayList<>();
        for (String line : out.lines().toList()) {
            l.add(JSON.std.mapFrom(line));
        }
        return l;
    }

    Path lbrFile(Recordings.Libc c, Recordings.Function f, Recordings.Function g) {
        PerfEventAttr attr = lbrAttr(PerfBranchSample.ANY);
        PerfRecordEncoder enc = Recordings.encoder(attr);
        return Recordings.write(dir.resolve("lbr.data"), info("cycles:u", attr, Optional.empty()), w -> {
            w.record(c.mmap2(enc));
            w.record(enc.sample(2, g.runtime() + 8, Recordings.PID, Recordings.PID, 0, 0, 7, 0, 1000, Recordings.stack(
                    e(f.runtime() + 0x10, g.runtime(), true, 12, TYPE_CALL),
                    e(f.runtime() + 0x20, f.runtime() + 0x8, false, 4, TYPE_COND))));
            w.record(enc.sample(2, g.runtime() + 8, Recordings.PID, Recordings.PID, 0, 0, 7, 0, 1000, Recordings.stack(
                    e(f.runtime() + 0x10, g.runtime(), false, 6, TYPE_CALL),
                    e(f.runtime() + 0x10, g.runtime(), false, 0, TYPE_CALL))));
        });
    }

    @Test
    void lbrReportNamesTheHottestBranchesFromTheElf() throws IOException {
        try (Recordings.Libc c = new Recordings.Libc()) {
            List<Recordings.Function> fs = c.functions(2, 64);
            Recordings.Function f = fs.get(0);
            Recordings.Function g = fs.get(1);
            Path file = lbrFile(c, f, g);

            Run text = Run.of("lbr", "report", file.toString());
            assertEquals(0, text.exit(), text.toString());
            assertTrue(text.out().contains("# backend: hardware\n"), text.out());
            assertTrue(text.out().contains("2 samples, 2 with a branch stack, 4 branch entries"), text.out());
            String top = text.out().lines().filter(l -> !l.startsWith("#")).findFirst().orElseThrow();
            // 3 of 4 entries; 1 of 3 mispredicted; cycles (12 + 6) / 2, the 0 is "not reported"
            assertTrue(top.matches("\\s+75\\.00%\\s+3\\s+33\\.33%\\s+9\\.0\\s+CALL\\s+"
                    + java.util.regex.Pattern.quote(f.name() + "+0x10 -> " + g.name())), top);

            Run json = Run.of("lbr", "report", "--json", file.toString());
            assertEquals(0, json.exit(), json.toString());
            List<Map<String, Object>> lines = jsonLines(json.out());
            Map<String, Object> head = lines.getFirst();
            assertEquals("header", head.get("type"));
            assertEquals("lbr", head.get("report"));
            assertEquals("hardware", head.get("backend"));
            assertEquals(false, head.get("simulated"));
            assertEquals("./prog", head.get("target"));
            assertEquals(List.of("cycles:u"), head.get("events"));
            assertEquals("any", head.get("filter"));
            assertEquals(4, ((Number) head.get("entries")).intValue());
            assertEquals(3, lines.size());
            Map<String, Object> row = lines.get(1);
            assertEquals("branch", row.get("type"));
            assertEquals("0x" + Long.toHexString(f.runtime() + 0x10), row.get("from"));
            assertEquals("0x" + Long.toHexString(g.runtime()), row.get("to"));
            assertEquals(f.name() + "+0x10", row.get("from_symbol"));
            assertEquals(g.name(), row.get("to_symbol"));
            assertEquals("CALL", row.get("branch_type"));
            assertEquals(3, ((Number) row.get("count")).intValue());
            assertEquals(0.75, ((Number) row.get("share")).doubleValue(), 1e-12);
            assertEquals(1.0 / 3, ((Number) row.get("mispredict_rate")).doubleValue(), 1e-12);
            assertEquals(9.0, ((Number) row.get("avg_cycles")).doubleValue(), 1e-12);

            Run limited = Run.of("lbr", "report", "--json", "--limit", "1", "--sort", "from", file.toString());
            List<Map<String, Object>> one = jsonLines(limited.out());
            assertEquals(2, one.size(), limited.toString());
            assertEquals(2, ((Number) one.getFirst().get("branches")).intValue());
            // by source: f+0x10 before f+0x20
            assertEquals(f.name() + "+0x10", one.get(1).get("from_symbol"));
        }
    }

    @Test
    void foldedNeedsACallStackRecordingAndWritesNothingOtherwise() {
        try (Recordings.Libc c = new Recordings.Libc()) {
            List<Recordings.Function> fs = c.functions(2, 64);
            Path file = lbrFile(c, fs.get(0), fs.get(1));
            Path out = dir.resolve("stacks.folded");
            Run r = Run.of("lbr", "report", "--folded", out.toString(), file.toString());
            assertEquals(Cause.BAD_INPUT.exitCode(), r.exit(), r.toString());
            assertTrue(r.err().contains("recorded with --filter any"), r.toString());
            assertEquals("", r.out());
            assertFalse(Files.exists(out));
        }
    }

    @Test
    void foldedStacksOfACallStackRecording() throws IOException {
        try (Recordings.Libc c = new Recordings.Libc()) {
            List<Recordings.Function> fs = c.functions(3, 64);
            Recordings.Function f = fs.get(0);
            Recordings.Function g = fs.get(1);
            Recordings.Function h = fs.get(2);
            PerfEventAttr attr = lbrAttr(PerfBranchSample.CALL_STACK);
            PerfRecordEncoder enc = Recordings.encoder(attr);
            Path file = Recordings.write(dir.resolve("cs.data"), info("cycles:u", attr, Optional.empty()), w -> {
                w.record(c.mmap2(enc));
                for (int i = 0; i < 2; i++) {
                    w.record(enc.sample(2, h.runtime() + 4 + i, Recordings.PID, Recordings.PID, 0, 0, 7, 0, 1000,
                            Recordings.stack(e(g.runtime() + 0x20, h.runtime(), false, 0, TYPE_CALL),
                                    e(f.runtime() + 0x10, g.runtime(), false, 0, TYPE_CALL))));
                }
                w.record(enc.sample(2, g.runtime() + 0x30, Recordings.PID, Recordings.PID, 0, 0, 7, 0, 1000,
                        Recordings.stack(e(f.runtime() + 0x10, g.runtime(), false, 0, TYPE_CALL))));
            });
            Path out = Files.writeString(dir.resolve("out.folded"), "old\n");
            Run r = Run.of("lbr", "report", "--folded", out.toString(), file.toString());
            assertEquals(0, r.exit(), r.toString());
            assertEquals(f.name() + ";" + g.name() + " 1\n" + f.name() + ";" + g.name() + ";" + h.name() + " 2\n",
                    Files.readString(out));
            assertTrue(r.err().contains("2 call stacks written to " + out), r.toString());
            assertTrue(r.out().contains("# filter:  call-stack"), r.out());
        }
    }

    /** A call from f to g and g's return, twice, as intel_bts writes them (with one padding record). */
    Path btsAuxFile(Recordings.Libc c, Recordings.Function f, long callAt, Recordings.Function g, long retAt) {
        PerfEventAttr attr = PerfEventAttr.builder().type(8).sampleType(PerfSample.IP | PerfSample.TID).build();
        PerfRecordEncoder enc = Recordings.encoder(attr);
        long call = f.runtime() + callAt;
        long ret = g.runtime() + retAt;
        return Recordings.write(dir.resolve("bts.data"), info("intel_bts//u", attr,
                Optional.of(new RecordingInfo.AuxPmu("intel_bts", 8, 0, 1, 0, false))), w -> {
            w.record(enc.comm(0, Recordings.PID, Recordings.PID + 1, "prog", 0, 7, 0));
            w.record(c.mmap2(enc));
            w.auxtrace(0, 0, Recordings.PID + 1, Recordings.bts(
                    call, g.runtime(), BtsRecord.MISC_PREDICTED,
                    ret, call + 5, 0,
                    0, 0, 0,
                    call, g.runtime(), BtsRecord.MISC_PREDICTED,
                    ret, call + 5, 0));
        });
    }

    @Test
    void btsReportOfIntelBtsAuxData() throws IOException {
        try (Recordings.Libc c = new Recordings.Libc()) {
            List<Recordings.Function> fs = c.functions(40, 64);
            Recordings.Function f = null;
            Recordings.Function g = null;
            long callAt = -1;
            long retAt = -1;
            for (Recordings.Function x : fs) {
                Optional<Long> o = c.find(x, BranchKind.CALL);
                if (f == null && o.isPresent()) {
                    f = x;
                    callAt = o.get();
                } else if (g == null && x != f && c.find(x, BranchKind.RET).isPresent()) {
                    g = x;
                    retAt = c.find(x, BranchKind.RET).get();
                }
            }
            Require.that(f != null && g != null, "no call and ret found in libc's first functions");
            Path file = btsAuxFile(c, f, callAt, g, retAt);

            Run t = Run.of("bts", "report", "--paths", "2", file.toString());
            assertEquals(0, t.exit(), t.toString());
            assertTrue(t.out().contains("# 4 branches, 50.00% not predicted, 2 distinct"), t.out());

            Run j = Run.of("bts", "report", "--json", "--paths", "2", file.toString());
            List<Map<String, Object>> lines = jsonLines(j.out());
            Map<String, Object> head = lines.getFirst();
            assertEquals("bts", head.get("report"));
            assertEquals(false, head.get("simulated"));
            assertEquals(4, ((Number) head.get("branches")).intValue());
            assertEquals(2, ((Number) head.get("mispredicted")).intValue());
            assertEquals(3, ((Number) head.get("windows")).intValue());
            List<Map<String, Object>> paths = lines.stream().filter(m -> m.get("type").equals("path")).toList();
            assertEquals(2, ((Number) paths.getFirst().get("count")).intValue());
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> hops = (List<Map<String, Object>>) paths.getFirst().get("branches");
            assertEquals(f.name() + "+0x" + Long.toHexString(callAt), hops.getFirst().get("from_symbol"));
            assertEquals(g.name(), hops.getFirst().get("to_symbol"));

            Run trace = Run.of("bts", "report", "--trace", "--json", file.toString());
            List<Map<String, Object>> tl = jsonLines(trace.out());
            assertEquals("bts-trace", tl.getFirst().get("report"));
            assertEquals(5, tl.size(), trace.toString());
            assertEquals(Recordings.PID, ((Number) tl.get(1).get("pid")).intValue(), "pid from the COMM record");
            assertEquals(Recordings.PID + 1, ((Number) tl.get(1).get("tid")).intValue());
            assertEquals(true, tl.get(1).get("predicted"));
            assertEquals(false, tl.get(2).get("predicted"));
            assertEquals("0x" + Long.toHexString(f.runtime() + callAt + 5), tl.get(2).get("to"));
            Run two = Run.of("bts", "report", "--trace", "--limit", "2", file.toString());
            assertEquals(2, two.out().lines().filter(l -> !l.startsWith("#")).count(), two.toString());

            Path out = dir.resolve("bts.folded");
            Run folded = Run.of("bts", "report", "--folded", out.toString(), file.toString());
            assertEquals(0, folded.exit(), folded.toString());
            assertEquals(f.name() + " 2\n" + f.name() + ";" + g.name() + " 2\n", Files.readString(out));
            assertTrue(folded.err().contains("2 calls, 2 returns"), folded.toString());

            Path html = dir.resolve("bts.html");
            Run graph = Run.of("bts", "report", "--flamegraph", html.toString(), file.toString());
            assertEquals(0, graph.exit(), graph.toString());
            assertEquals(Files.readString(out), FlameGraphReportTest.stacksOf(html), "the page's stacks are --folded's");
            String page = Files.readString(html);
            assertTrue(page.contains("<h1>hardware: ./prog · intel_bts//u, calls and returns decoded · 4 branches</h1>"), page);
            assertFalse(page.contains("SIMULATED"));
        }
    }

    @Test
    void btsReportOfBranchesEventSamples() throws IOException {
        PerfEventAttr attr = PerfEventAttr.builder().type(PerfType.HARDWARE).config(PerfCount.HW_BRANCH_INSTRUCTIONS)
                .samplePeriod(1).sampleType(PerfSample.IP | PerfSample.TID | PerfSample.ADDR).build();
        PerfRecordEncoder enc = Recordings.encoder(attr);
        long[][] branches = {{0x401000, 0x401020}, {0x401028, 0x401000}, {0x401000, 0x401020}};
        Path file = Recordings.write(dir.resolve("b.data"), info("branches:u", attr, Optional.empty()), w -> {
            for (long[] b : branches) {
                w.record(enc.sample(2, b[0], 9, 9, 0, b[1], 7, 0, 1, PerfRecordEncoder.NO_BRANCHES));
            }
        });
        Run trace = Run.of("bts", "report", "--trace", "--json", file.toString());
        assertEquals(0, trace.exit(), trace.toString());
        List<Map<String, Object>> tl = jsonLines(trace.out());
        assertEquals(4, tl.size());
        for (int i = 0; i < branches.length; i++) {
            assertEquals("0x" + Long.toHexString(branches[i][0]), tl.get(i + 1).get("from"));
            assertEquals("0x" + Long.toHexString(branches[i][1]), tl.get(i + 1).get("to"));
            assertNull(tl.get(i + 1).get("predicted"), "the branches event carries no prediction");
        }
        Run t = Run.of("bts", "report", file.toString());
        assertTrue(t.out().contains("# 3 branches, 2 distinct"), t.out());
        // nothing mapped: no instruction can be decoded
        Path out = dir.resolve("f.folded");
        Run folded = Run.of("bts", "report", "--folded", out.toString(), file.toString());
        assertEquals(Cause.UNSUPPORTED.exitCode(), folded.exit(), folded.toString());
        assertTrue(folded.err().contains("cannot tell calls from returns"), folded.toString());
        assertFalse(Files.exists(out));
    }

    @Test
    void eachReportRefusesTheOthersKind() {
        try (Recordings.Libc c = new Recordings.Libc()) {
            List<Recordings.Function> fs = c.functions(2, 64);
            Path lbr = lbrFile(c, fs.get(0), fs.get(1));
            Path bts = btsAuxFile(c, fs.get(0), 0, fs.get(1), 0);
            Run a = Run.of("lbr", "report", bts.toString());
            assertEquals(Cause.BAD_INPUT.exitCode(), a.exit(), a.toString());
            assertTrue(a.err().contains("is not a branch-stack (LBR) recording (it holds an intel_bts branch trace"),
                    a.toString());
            assertEquals("", a.out());
            Run b = Run.of("bts", "report", lbr.toString());
            assertEquals(Cause.BAD_INPUT.exitCode(), b.exit(), b.toString());
            assertTrue(b.err().contains("is not a branch-trace (BTS) recording (it holds branch-stack samples"),
                    b.toString());
        }
    }
}
