package dev.hwtool.arch.cpuid;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CpuidRawFormatTest {

    @Test
    void formatsLikeCpuidOneCpuRawOnThisMachine() throws Exception {
        String out = CpuidTool.oneCpuRaw();
        CpuidSnapshot cpu = CpuidDumpParser.parse("cpuid -1 -r", out).cpus().getFirst();
        assertEquals(out, CpuidRawFormat.formatOne(cpu));
    }

    @Test
    void formatsLikeCpuidRawForAllCpusOnThisMachine() throws Exception {
        CpuidTool.Result r = CpuidTool.run("-r");
        assertEquals(0, r.exitCode(), r.stderr());
        assertEquals(r.stdout(), CpuidRawFormat.format(CpuidDumpParser.parse("cpuid -r", r.stdout()).cpus()));
    }

    @Test
    void reformatsTheShippedCpuidRawDumpByteForByte() {
        String text = ShippedDumps.text(ShippedDumps.CPUID_R);
        assertEquals(text, CpuidRawFormat.format(CpuidDumpParser.parse("f", text).cpus()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.hwtool.arch.cpuid.ShippedDumps#all")
    void everyShippedDumpSurvivesParseFormatParse(Path file) {
        CpuidDump first = CpuidDumpParser.parse(file.toString(), ShippedDumps.text(file));
        CpuidDump again = CpuidDumpParser.parse("again", CpuidRawFormat.format(first.cpus()));
        assertEquals(first.cpus(), again.cpus());
    }

    @Test
    void subleavesAbove0xffAreWidened() {
        CpuidSnapshot s = new CpuidSnapshot(7, List.of(new CpuidLeaf(0x1f, 0x123, new CpuidRegs(-1, 0, 1, 0x10))));
        assertEquals("CPU 7:\n   0x0000001f 0x123: eax=0xffffffff ebx=0x00000000 ecx=0x00000001 edx=0x00000010\n",
                CpuidRawFormat.format(List.of(s)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("replayable")
    void cpuidReplaysWhatFormatOneWrites(String file, String vendor, @TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("one.txt");
        Files.writeString(f, CpuidRawFormat.formatOne(ShippedDumps.parse(file).cpus().getFirst()));
        CpuidTool.Result r = CpuidTool.run("-1", "-f", f.toString());
        assertEquals(0, r.exitCode(), r.stderr());
        assertTrue(r.stdout().startsWith("CPU:\n"), r.stdout());
        assertTrue(r.stdout().contains("vendor_id = \"" + vendor + "\""), r.stdout());
    }

    static List<org.junit.jupiter.params.provider.Arguments> replayable() {
        return List.of(
                org.junit.jupiter.params.provider.Arguments.of(ShippedDumps.CPUID_R, "AuthenticAMD"),
                org.junit.jupiter.params.provider.Arguments.of("skylake.txt", "GenuineIntel"),
                org.junit.jupiter.params.provider.Arguments.of("nehalem.txt", "GenuineIntel"));
    }
}
