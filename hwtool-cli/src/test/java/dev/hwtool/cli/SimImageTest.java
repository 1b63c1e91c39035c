package dev.hwtool.cli;

import dev.hwtool.api.Cause;
import dev.hwtool.elf.ElfFile;
import dev.hwtool.sim.workload.ProgramImage;
import dev.hwtool.sim.workload.Workloads;
import dev.hwtool.testing.Preconditions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code hwtool sim image}: the workload's program written where the user names it, and nowhere
 * else; and the names it gives reach the reports of a simulated recording without any file.
 */
class SimImageTest {

    @TempDir
    Path dir;

    static final String SPEC = "calltree seed=2 depth=3 fanout=2 calls=300";

    @Test
    void writesTheWorkloadsElfWhereNamed() throws Exception {
        Path elf = dir.resolve("prog");
        Run r = Run.of("sim", "image", "-o", elf.toString(), "--", SPEC);
        assertEquals(0, r.exit(), r.toString());
        assertEquals("", r.out());
        ProgramImage image = ProgramImage.of(Workloads.parse(SPEC, dir)).orElseThrow();
        assertArrayEquals(image.elf(), Files.readAllBytes(elf));
        assertEquals("hwtool: sim image: " + image.functions().size() + " functions, " + image.text().length
                + " bytes of code at 0x401000-0x" + Long.toHexString(image.end()) + ", " + image.elf().length
                + " bytes written to " + elf + "\n", r.err());
        try (ElfFile f = ElfFile.open(elf)) {
            assertEquals("main", f.symbolAt(0x401000).orElseThrow().name());
            assertEquals(ElfFile.Type.EXEC, f.type());
        }
        assertEquals(List.of("prog"), List.of(dir.toFile().list()), "nothing else written");
        Preconditions.tool("/usr/bin/objdump", "binutils");
        Process p = new ProcessBuilder("/usr/bin/objdump", "-d", elf.toString()).redirectErrorStream(true).start();
        String dump = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), dump);
        assertTrue(dump.contains("0000000000401000 <main>:"), dump);
        assertTrue(dump.contains("call   *0x8(%r12)"), dump);
        assertTrue(dump.matches("(?s).*\tcall   [0-9a-f]+ <f2_[0-3]>.*"), dump);
    }

    /** A trace file's image is the program its branches imply; one no program can retire, and stdin, write nothing. */
    @Test
    void aTracesImageAndTheTracesWithout() throws IOException {
        Path trace = Files.writeString(dir.resolve("t.trace"), "0x401000 0x402000 call\n0x402010 0x401005 ret\n");
        Path elf = dir.resolve("prog");
        Run r = Run.of("sim", "image", "-o", elf.toString(), "--", "trace", trace.toString());
        assertEquals(0, r.exit(), r.toString());
        try (ElfFile f = ElfFile.open(elf)) {
            assertEquals(List.of("main", "fn_402000"), f.symbols().stream().map(s -> s.name()).toList());
            assertArrayEquals(new byte[] {(byte) 0xE8, (byte) 0xFB, 0x0F, 0, 0}, f.bytesAt(0x401000, 5).orElseThrow());
            assertArrayEquals(new byte[] {(byte) 0xC3}, f.bytesAt(0x402010, 1).orElseThrow());
        }
        Path bad = Files.writeString(dir.resolve("bad.trace"), "0x401000 0x402000 call\n0x401000 0x402000 ret\n");
        Path none = dir.resolve("none");
        Run refused = Run.of("sim", "image", "-o", none.toString(), "--", "trace", bad.toString());
        assertEquals(Cause.BAD_INPUT.exitCode(), refused.exit(), refused.toString());
        assertEquals("hwtool: trace " + bad + ": no program can retire it: 0x401000 is retired as both call and ret\n",
                refused.err());
        Run stdin = Run.of("sim", "image", "-o", none.toString(), "--", "trace", "-");
        assertEquals(Cause.BAD_INPUT.exitCode(), stdin.exit(), stdin.toString());
        assertEquals("hwtool: sim image: 'trace -' has no program image: a trace on standard input is read once, when"
                + " it runs\n", stdin.err());
        assertEquals(List.of("bad.trace", "prog", "t.trace"), java.util.Arrays.stream(dir.toFile().list()).sorted().toList(),
                "no temporary file left");
        assertFalse(Files.exists(none));
    }

    @Test
    void noOutputIsAUsageErrorAndAMissingDirectoryCannotBeWritten() {
        Run none = Run.of("sim", "image", "--", SPEC);
        assertEquals(2, none.exit(), none.toString());
        Run missing = Run.of("sim", "image", "-o", dir.resolve("no/such/prog").toString(), "--", SPEC);
        assertEquals(Cause.OS_ERROR.exitCode(), missing.exit(), missing.toString());
        assertTrue(missing.err().startsWith("hwtool: cannot write "), missing.toString());
        assertFalse(Files.exists(dir.resolve("no")));
        Run bad = Run.of("sim", "image", "-o", dir.resolve("p").toString(), "--", "calltree", "depth=0");
        assertEquals(Cause.BAD_INPUT.exitCode(), bad.exit(), bad.toString());
        assertFalse(Files.exists(dir.resolve("p")));
    }

    /**
     * An LBR recording of the workload names every branch's source and target by the image's
     * functions, with no image file anywhere: the report rebuilt it from the recording's spec.
     */
    @Test
    void lbrReportNamesTheSimulatedFunctions() throws IOException {
        Path data = dir.resolve("lbr.data");
        Run rec = Run.of("lbr", "record", "--backend", "sim", "--profile", "skylake", "-c", "7", "-o", data.toString(),
                "--", SPEC);
        assertEquals(0, rec.exit(), rec.toString());
        Run rep = Run.of("lbr", "report", "-n", "0", "--json", data.toString());
        assertEquals(0, rep.exit(), rep.toString());
        int rows = 0;
        for (Map<String, Object> row : SimRecordingTest.jsonLines(rep.out())) {
            if (!"branch".equals(row.get("type"))) {
                continue;
            }
            rows++;
            for (String end : List.of("from", "to")) {
                long addr = Long.decode((String) row.get(end));
                String fn = SimRecordingTest.function(SPEC, addr);
                String sym = (String) row.get(end + "_symbol");
                assertTrue(sym.equals(fn) || sym.startsWith(fn + "+0x"), row.toString());
            }
        }
        assertTrue(rows > 10, rep.out());
        assertEquals(List.of("lbr.data"), List.of(dir.toFile().list()), "no image file was needed or written");
    }

    /**
     * --image FILE on a simulated recording: the workload's ELF written to FILE, and the recording's
     * MMAP2 names it, so perf report (which reads FILE's .symtab) names the functions, and counts
     * what hwtool counts: the samples times the period outside branch mode, the entries in it.
     */
    @Test
    void recordWithImageLetsPerfNameTheFunctions() throws Exception {
        Preconditions.tool("/usr/bin/perf", "linux-perf");
        Path data = dir.resolve("lbr.data");
        Path prog = dir.resolve("prog");
        Run rec = Run.of("lbr", "record", "--backend", "sim", "--profile", "skylake", "-c", "7", "--image",
                prog.toString(), "-o", data.toString(), "--", SPEC);
        assertEquals(0, rec.exit(), rec.toString());
        assertArrayEquals(ProgramImage.of(Workloads.parse(SPEC, dir)).orElseThrow().elf(), Files.readAllBytes(prog));
        Run json = Run.of("lbr", "report", "--json", data.toString());
        assertEquals(0, json.exit(), json.toString());
        Map<String, Object> head = SimRecordingTest.jsonLines(json.out()).getFirst();
        long samples = ((Number) head.get("samples")).longValue();
        long entries = ((Number) head.get("entries")).longValue();
        assertTrue(samples > 10, head.toString());
        // perf 6.1 crashes under symbol_* sort keys on LBR files with cycle counts (README): symbol outside branch mode
        String bySymbol = perf("report", "--stdio", "--no-branch-stack", "--sort", "symbol", "-i", data.toString());
        assertTrue(bySymbol.contains("[.] main"), bySymbol);
        assertTrue(bySymbol.matches("(?s).*\\[\\.\\] f1_[01]\\b.*"), bySymbol);
        assertFalse(bySymbol.contains("[.] 0x0000000000401"), "every address named: " + bySymbol);
        assertEquals(7 * samples, SimRecordingTest.perfEventCount(data, "report", "--stdio", "--no-branch-stack",
                "--sort", "symbol"));
        String byDso = perf("report", "--stdio", "--branch-stack", "--sort", "dso_from", "-i", data.toString());
        assertTrue(byDso.contains(" prog"), byDso);
        assertEquals(entries, SimRecordingTest.perfEventCount(data, "report", "--stdio", "--branch-stack", "--sort",
                "dso_from"));
        assertEquals(List.of("lbr.data", "prog"), java.util.Arrays.stream(dir.toFile().list()).sorted().toList());
    }

    /** --image needs a program: none for a trace on stdin (BAD_INPUT), none on the hardware (usage); nothing written. */
    @Test
    void imageIsRefusedWithoutAProgram() {
        Path prog = dir.resolve("prog");
        Path data = dir.resolve("d.data");
        Run stdin = Run.of("bts", "record", "--backend", "sim", "--profile", "skylake", "--image", prog.toString(),
                "-o", data.toString(), "--", "trace", "-");
        assertEquals(Cause.BAD_INPUT.exitCode(), stdin.exit(), stdin.toString());
        assertEquals("hwtool: bts record: --image: 'trace -' has no program image: a trace on standard input is read"
                + " once, when it runs\n", stdin.err());
        Run hw = Run.of("record", "--backend", "hw", "--image", prog.toString(), "-o", data.toString(), "--", "true");
        assertEquals(2, hw.exit(), hw.toString());
        assertTrue(hw.err().contains("--image") && hw.err().contains("--backend sim"), hw.toString());
        assertEquals(0, dir.toFile().list().length, "nothing written");
    }

    private static String perf(String... args) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of("/usr/bin/perf"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), () -> cmd + "\n" + out);
        return out;
    }
}
