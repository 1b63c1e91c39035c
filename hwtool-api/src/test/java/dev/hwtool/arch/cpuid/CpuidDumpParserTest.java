package dev.hwtool.arch.cpuid;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CpuidDumpParserTest {

    private static final String AMD_0 =
            "   0x00000000 0x00: eax=0x0000001c ebx=0x68747541 ecx=0x444d4163 edx=0x69746e65";

    // ---- every shipped dump -----------------------------------------------------------------

    /** Counts taken with grep from the files themselves (headers; leaf lines). */
    @ParameterizedTest(name = "{0}: {1} CPUs, {2} leaves")
    @CsvSource({
            "alderlake.txt, 24, 1600, 0",
            "amd-epyc-kvm-guest.cpuid-r.txt, 2, 170, 0",
            "bonnell.txt, 2, 44, 0",
            "core2.txt, 2, 40, 0",
            "goldmont-plus.txt, 4, 184, 0",
            "goldmont.txt, 4, 156, 0",
            "haswell.txt, 8, 232, 0",
            "icelake.txt, 8, 488, 0",
            "nehalem.txt, 8, 200, 1",
            "sandybridge.txt, 8, 224, 0",
            "silvermont.txt, 4, 96, 0",
            "skylake.txt, 8, 360, 0"})
    void shippedDumpHasItsCpusAndLeaves(String file, int cpus, int leaves, int firstCpu) {
        CpuidDump d = ShippedDumps.parse(file);
        assertEquals(cpus, d.cpus().size());
        assertEquals(leaves, d.cpus().stream().mapToInt(s -> s.leaves().size()).sum());
        assertEquals(firstCpu, d.cpus().getFirst().cpu());
        assertEquals(file, d.origin());
    }

    /** Each CPU's leaf count and registers, against a line scan that does not use the parser. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.hwtool.arch.cpuid.ShippedDumps#all")
    void everyShippedDumpParsesLineForLine(Path file) {
        Map<Integer, List<CpuidRegs>> expected = scan(ShippedDumps.text(file));
        CpuidDump d = CpuidDumpParser.parse(file.toString(), ShippedDumps.text(file));
        assertEquals(List.copyOf(expected.keySet()), d.cpuNumbers());
        for (CpuidSnapshot s : d.cpus()) {
            assertEquals(expected.get(s.cpu()), s.leaves().stream().map(CpuidLeaf::regs).toList(), "CPU " + s.cpu());
        }
    }

    private static final Pattern HEADER = Pattern.compile("(?:CPU (\\d+):|.*CPU #(\\d+).*)");
    private static final Pattern HEX8 = Pattern.compile("\\b(?:eax=0x)?([0-9a-fA-F]{8})[- ](?:ebx=0x)?([0-9a-fA-F]{8})[- ]"
            + "(?:ecx=0x)?([0-9a-fA-F]{8})[- ](?:edx=0x)?([0-9a-fA-F]{8})");

    private static Map<Integer, List<CpuidRegs>> scan(String text) {
        Map<Integer, List<CpuidRegs>> m = new LinkedHashMap<>();
        List<CpuidRegs> cur = null;
        for (String line : text.split("\n")) {
            Matcher h = HEADER.matcher(line.strip());
            if (h.matches()) {
                cur = new ArrayList<>();
                m.put(Integer.parseInt(h.group(1) != null ? h.group(1) : h.group(2)), cur);
                continue;
            }
            Matcher r = HEX8.matcher(line);
            if (r.find()) {
                cur.add(new CpuidRegs(Integer.parseUnsignedInt(r.group(1), 16), Integer.parseUnsignedInt(r.group(2), 16),
                        Integer.parseUnsignedInt(r.group(3), 16), Integer.parseUnsignedInt(r.group(4), 16)));
            }
        }
        return m;
    }

    // ---- what the layouts mean ----------------------------------------------------------------

    @Test
    void cpuidRawGivesLeafSubleafAndRegisters() {
        CpuidSnapshot cpu1 = ShippedDumps.parse(ShippedDumps.CPUID_R).cpu(1).orElseThrow();
        assertEquals(new CpuidRegs(0x000000e7, 0x00000980, 0x00000980, 0), cpu1.cpuid(0xd, 0));
        assertEquals(new CpuidRegs(0x00000018, 0, 1, 0), cpu1.cpuid(0xd, 0xc));
        assertEquals(new CpuidRegs(0x00004163, 0x03c0003f, 0x00007fff, 1), cpu1.cpuid(0x8000001d, 3));
        assertEquals(0x80000021, cpu1.cpuid(0x80000000).eax());
    }

    @Test
    void aidaSubleafTagsAndCommentsAreRead() {
        CpuidSnapshot cpu0 = ShippedDumps.parse("alderlake.txt").cpu(0).orElseThrow();
        assertEquals(new CpuidRegs(0xFC1FC163, 0x02C0003F, 0x00009FFF, 0x00000004), cpu0.cpuid(4, 3));
        assertEquals(new CpuidRegs(0x00000328, 0, 1, 0), cpu0.cpuid(0xd, 0x0f));
        assertEquals(0x00000020, cpu0.cpuid(0).eax());
        assertFalse(cpu0.has(0xd, 3), "0xD lists subleaves 0,1,2,8,9,B,C,F,10 only");
    }

    @Test
    void aidaRepeatedLeafWithoutTagIsTheNextSubleaf() {
        CpuidSnapshot bonnell = ShippedDumps.parse("bonnell.txt").cpu(1).orElseThrow();
        assertEquals(0x00004121, bonnell.cpuid(4, 0).eax());
        assertEquals(0x00004122, bonnell.cpuid(4, 1).eax());
        assertEquals(0x00004143, bonnell.cpuid(4, 2).eax());
        assertFalse(bonnell.has(4, 3));
    }

    @Test
    void olderAidaLayoutWithTabsAndVirtualCpus() {
        CpuidDump d = ShippedDumps.parse("nehalem.txt");
        assertEquals(List.of(1, 2, 3, 4, 5, 6, 7, 8), d.cpuNumbers());
        CpuidSnapshot cpu2 = d.cpu(2).orElseThrow();
        assertEquals(0x01100800, cpu2.cpuid(1).ebx());
        assertEquals(0x1C03C163, cpu2.cpuid(4, 3).eax());
        assertEquals(0x00000004, cpu2.cpuid(0xb, 1).eax());
    }

    @Test
    void oneCpuHeaderIsCpuZero() {
        CpuidDump d = CpuidDumpParser.parse("one", "CPU:\n" + AMD_0 + "\n");
        assertEquals(List.of(0), d.cpuNumbers());
    }

    @Test
    void blankDecorativeAndCrlfLinesAreIgnored() {
        String text = "\r\n=====\r\nCPU 3:\r\n" + AMD_0 + "  \r\n\r\n-----\r\n";
        CpuidDump d = CpuidDumpParser.parse("crlf", text);
        assertEquals(List.of(3), d.cpuNumbers());
        assertEquals(1, d.cpus().getFirst().leaves().size());
    }

    @Test
    void legacyCpuidLinesWithoutSubleafCountRepeats() {
        String text = """
                CPU 0:
                   0x00000004: eax=0x1c004121 ebx=0x01c0003f ecx=0x0000003f edx=0x00000000
                   0x00000004: eax=0x1c004122 ebx=0x01c0003f ecx=0x0000003f edx=0x00000000
                   0x00000005: eax=0x00000040 ebx=0x00000040 ecx=0x00000003 edx=0x00001120
                """;
        CpuidSnapshot s = CpuidDumpParser.parse("legacy", text).cpus().getFirst();
        assertEquals(List.of(4, 4, 5), s.leaves().stream().map(CpuidLeaf::leaf).toList());
        assertEquals(List.of(0, 1, 0), s.leaves().stream().map(CpuidLeaf::subleaf).toList());
    }

    // ---- what is wrong, and where -------------------------------------------------------------

    private static CpuidDumpException bad(String text) {
        return assertThrows(CpuidDumpException.class, () -> CpuidDumpParser.parse("d.txt", text));
    }

    private static void badAt(String text, int line, String problemPart) {
        CpuidDumpException e = bad(text);
        assertEquals(line, e.line(), e.getMessage());
        assertEquals("d.txt", e.origin());
        assertTrue(e.getMessage().startsWith("d.txt:" + line + ": "), e.getMessage());
        assertTrue(e.problem().contains(problemPart), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), "one line");
    }

    @Test
    void emptyDumpIsAnError() {
        for (String text : List.of("", "\n\n", "  \n----\n")) {
            CpuidDumpException e = bad(text);
            assertEquals(0, e.line());
            assertEquals("d.txt: empty dump: no CPUID leaves", e.getMessage());
        }
    }

    @Test
    void truncatedCpuidRawLine() {
        badAt("CPU 0:\n" + AMD_0 + "\n   0x00000001 0x00: eax=0x00b00f21 ebx=0x000", 3,
                "truncated leaf line: ebx has 3 of 8 hex digits");
        badAt("CPU 0:\n   0x00000001 0x00: eax=0x00b00f21 ebx=0x00020800", 2, "truncated leaf line: ecx, edx missing");
        badAt("CPU 0:\n   0x00000001 0x00: eax=0x00b00f21 ebx=0x00020800 ec", 2, "truncated leaf line: ends in 'ec'");
        badAt("CPU 0:\n   0x00000001", 2, "truncated leaf line");
    }

    @Test
    void truncatedAidaLine() {
        badAt("------[ Logical CPU #0 ]------\nCPUID 00000000: 0000000A-756E6547-6C65", 2,
                "truncated leaf line: 3 of 4 registers");
        badAt("------[ Logical CPU #0 ]------\nCPUID 00000000: 0000000A-756E6547-6C65746E-4965", 2,
                "truncated leaf line: edx has 4 of 8 hex digits");
        badAt("------[ Logical CPU #0 ]------\nCPUID 00000000:", 2, "truncated leaf line");
    }

    @Test
    void badHex() {
        badAt("CPU 0:\n   0x00000001 0x00: eax=0x00b00f21 ebx=0x0002zz00 ecx=0xfffa3203 edx=0x178bfbff", 2,
                "bad hex '0002zz00' for ebx");
        badAt("CPU 0:\n   0x0000000g 0x00: eax=0x00b00f21 ebx=0x00020800 ecx=0xfffa3203 edx=0x178bfbff", 2,
                "bad hex '0000000g' for the leaf");
        badAt("------[ Logical CPU #0 ]------\nCPUID 00000004: 0000000A-756E6547-6C6574XE-49656E69", 2,
                "bad hex '6C6574XE' for ecx");
        badAt("------[ Logical CPU #0 ]------\nCPUID 00000004: 0000000A-756E6547-6C65746E-49656E69 [SL q]", 2,
                "bad hex 'q' for the subleaf");
    }

    @Test
    void garbledLines() {
        badAt("CPU 0:\n   0x00000001 0x00: ebx=0x00b00f21 eax=0x00020800 ecx=0xfffa3203 edx=0x178bfbff", 2,
                "expected eax=0x..., found 'ebx=0x00b00f21'");
        badAt("CPU 0:\n" + AMD_0 + " extra", 2, "unexpected text after edx: 'extra'");
        badAt("------[ Logical CPU #0 ]------\nCPUID 00000004: 0000000A-756E6547-6C65746E-49656E69 junk", 2,
                "unexpected text after the registers");
        badAt("------[ Logical CPU #0 ]------\nCPUID 00000004: 0000000A-756E6547-6C65746E-49656E69-00000000", 2,
                "more than 4 registers");
    }

    @Test
    void leafBeforeAnyHeader() {
        badAt(AMD_0 + "\n", 1, "leaf line before any CPU header");
        badAt("\nCPUID 00000000: 0000000A-756E6547-6C65746E-49656E69\n", 2, "leaf line before any CPU header");
    }

    @Test
    void unrecognisedFormat() {
        badAt("\nprocessor\t: 0\nvendor_id\t: AuthenticAMD\n", 2, "unrecognised format");
    }

    @Test
    void strangerLinesAndMixedLayouts() {
        badAt("CPU 0:\n" + AMD_0 + "\nsome remark\n", 3, "unexpected line in a cpuid -r dump: 'some remark'");
        badAt("CPU 0:\n" + AMD_0 + "\nCPUID 00000001: 0000000A-756E6547-6C65746E-49656E69\n", 3,
                "unexpected line in a cpuid -r dump");
    }

    @Test
    void structuralErrors() {
        badAt("CPU 0:\n" + AMD_0 + "\nCPU 0:\n" + AMD_0 + "\n", 3, "CPU 0 appears twice (first at line 1)");
        badAt("CPU:\n" + AMD_0 + "\nCPU 1:\n" + AMD_0, 3, "cannot be combined");
        badAt("CPU 0:\n" + AMD_0 + "\n" + AMD_0.replace("0x0000001c", "0x0000001d") + "\n", 3,
                "leaf 0x00000000 subleaf 0x00 appears twice for CPU 0 (first at line 2)");
        assertTrue(bad("CPU 0:\nCPU 1:\n").getMessage().equals("d.txt: empty dump: no CPUID leaves"));
    }

    /** AIDA64 writes empty sections for CPUs it could not read, and sometimes a line twice (see LibcpuidDumpsTest). */
    @Test
    void emptySectionsAreCpusTheDumpDoesNotHoldAndVerbatimRepeatsAreReadOnce() {
        CpuidDump d = CpuidDumpParser.parse("t", "CPU 0:\nCPU 1:\n" + AMD_0 + "\n" + AMD_0 + "\nCPU 2:\n");
        assertEquals(List.of(1), d.cpus().stream().map(CpuidSnapshot::cpu).toList());
        assertEquals(1, d.cpus().getFirst().leaves().size());
    }

    // ---- round trip ---------------------------------------------------------------------------

    @Property(tries = 200)
    void formatThenParseGivesTheSameSnapshots(@ForAll("dumps") List<CpuidSnapshot> cpus) {
        CpuidDump d = CpuidDumpParser.parse("gen", CpuidRawFormat.format(cpus));
        assertEquals(cpus, d.cpus());
    }

    @Provide
    Arbitrary<List<CpuidSnapshot>> dumps() {
        Arbitrary<CpuidRegs> regs = Combinators.combine(Arbitraries.integers(), Arbitraries.integers(),
                Arbitraries.integers(), Arbitraries.integers()).as(CpuidRegs::new);
        Arbitrary<Long> keys = Arbitraries.longs();   // leaf in the high half, subleaf in the low half
        Arbitrary<List<CpuidLeaf>> leaves = Combinators.combine(keys, regs)
                .as((k, r) -> new CpuidLeaf((int) (k >>> 32), (int) (long) k, r))
                .list().ofMinSize(1).ofMaxSize(30)
                .uniqueElements(l -> ((long) l.leaf() << 32) | Integer.toUnsignedLong(l.subleaf()));
        return Combinators.combine(Arbitraries.integers().between(0, 4096), leaves).as(CpuidSnapshot::new)
                .list().ofMinSize(1).ofMaxSize(4).uniqueElements(CpuidSnapshot::cpu);
    }
}
