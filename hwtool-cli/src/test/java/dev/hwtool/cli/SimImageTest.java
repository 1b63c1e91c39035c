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
}
