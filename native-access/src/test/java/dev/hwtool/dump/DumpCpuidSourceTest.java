package dev.hwtool.dump;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.arch.cpuid.CpuidDumpParser;
import dev.hwtool.arch.cpuid.CpuidRegs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DumpCpuidSourceTest {

    private static final Path DUMPS = Path.of(System.getProperty("hwtool.cpuid.dumps", "../simulator-fallback/src/main/resources/dev/hwtool/sim/profiles"));
    private static final Path AMD = DUMPS.resolve("amd-epyc-kvm-guest.cpuid-r.txt");

    private static HwException fails(Cause cause, Executable e) {
        HwException x = assertThrows(HwException.class, e);
        assertEquals(cause, x.cause(), x.getMessage());
        assertTrue(!x.getMessage().contains("\n"), "one line: " + x.getMessage());
        return x;
    }

    @Test
    void loadsACpuidRawDump() {
        DumpCpuidSource s = DumpCpuidSource.load(AMD);
        assertEquals("dump", s.name());
        assertEquals(List.of(0, 1), s.cpus());
        assertEquals(new CpuidRegs(0x0000001c, 0x68747541, 0x444d4163, 0x69746e65), s.regs(1, 0, 0));
        assertEquals(0x00020800, s.regs(0, 1, 0).ebx());
        assertEquals(0x01020800, s.reader(1).cpuid(1).ebx());
        assertEquals("CPUID dump " + AMD + " (CPUs 0-1)", s.description());
        assertEquals(AMD.toString(), s.dump().origin());
    }

    @Test
    void anUnrecordedLeafAnswersZeros() {
        DumpCpuidSource s = DumpCpuidSource.load(AMD);
        assertEquals(CpuidRegs.ZERO, s.regs(0, 0x1f, 0));
        assertEquals(CpuidRegs.ZERO, s.regs(0, 7, 5));
    }

    @Test
    void cpusAreAscendingAndListedAsRanges() {
        DumpCpuidSource s = DumpCpuidSource.load(DUMPS.resolve("nehalem.txt"));
        assertEquals(List.of(1, 2, 3, 4, 5, 6, 7, 8), s.cpus());
        HwException e = fails(Cause.NO_SUCH_CPU, () -> s.regs(0, 0, 0));
        assertEquals("CPU 0 is not in dump " + DUMPS.resolve("nehalem.txt") + " (CPUs 1-8)", e.getMessage());

        String gappy = "CPU 5:\n   0x00000000 0x00: eax=0x00000001 ebx=0x00000000 ecx=0x00000000 edx=0x00000000\n"
                + "CPU 0:\n   0x00000000 0x00: eax=0x00000001 ebx=0x00000000 ecx=0x00000000 edx=0x00000000\n"
                + "CPU 1:\n   0x00000000 0x00: eax=0x00000001 ebx=0x00000000 ecx=0x00000000 edx=0x00000000\n";
        DumpCpuidSource g = new DumpCpuidSource(CpuidDumpParser.parse("gappy", gappy));
        assertEquals(List.of(0, 1, 5), g.cpus());
        assertEquals("CPUID dump gappy (CPUs 0-1,5)", g.description());
    }

    @Test
    void aCpuNotInTheDump() {
        DumpCpuidSource s = DumpCpuidSource.load(AMD);
        HwException e = fails(Cause.NO_SUCH_CPU, () -> s.regs(5, 0, 0));
        assertEquals("CPU 5 is not in dump " + AMD + " (CPUs 0-1)", e.getMessage());
        fails(Cause.NO_SUCH_CPU, () -> s.reader(2));
        fails(Cause.NO_SUCH_CPU, () -> s.regs(-1, 0, 0));
    }

    @Test
    void aDirectoryIsUnreadable(@TempDir Path tmp) {
        HwException e = fails(Cause.BAD_INPUT, () -> DumpCpuidSource.load(tmp));
        assertEquals("cannot read " + tmp + ": is a directory", e.getMessage());
    }

    @Test
    void aMissingFileIsUnreadable(@TempDir Path tmp) {
        Path f = tmp.resolve("nope.txt");
        HwException e = fails(Cause.BAD_INPUT, () -> DumpCpuidSource.load(f));
        assertEquals("cannot read " + f + ": no such file", e.getMessage());
    }

    @Test
    void aTruncatedLineNamesFileAndLine(@TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("cut.txt");
        String whole = Files.readString(AMD);
        Files.writeString(f, whole.substring(0, whole.indexOf("0x00000003 0x00") + 40));
        HwException e = fails(Cause.BAD_INPUT, () -> DumpCpuidSource.load(f));
        assertEquals(f + ":5: truncated leaf line: ebx has 2 of 8 hex digits", e.getMessage());
    }

    @Test
    void garbageHex(@TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("hex.txt");
        Files.writeString(f, "------[ Logical CPU #0 ]------\nCPUID 00000000: 0000000A-756E6547-6C65746E-4965NOPE\n");
        HwException e = fails(Cause.BAD_INPUT, () -> DumpCpuidSource.load(f));
        assertEquals(f + ":2: bad hex '4965NOPE' for edx (expected 8 hex digits)", e.getMessage());
    }

    @Test
    void anEmptyFile(@TempDir Path tmp) throws Exception {
        Path f = Files.createFile(tmp.resolve("empty.txt"));
        HwException e = fails(Cause.BAD_INPUT, () -> DumpCpuidSource.load(f));
        assertEquals(f + ": empty dump: no CPUID leaves", e.getMessage());
    }

    @Test
    void theParserMessageIsKeptAsTheCause(@TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("what.txt");
        Files.writeString(f, "hello\n");
        HwException e = fails(Cause.BAD_INPUT, () -> DumpCpuidSource.load(f));
        assertTrue(e.getMessage().startsWith(f + ":1: unrecognised format"), e.getMessage());
        assertSame(e.getCause().getMessage(), e.getMessage());
    }
}
