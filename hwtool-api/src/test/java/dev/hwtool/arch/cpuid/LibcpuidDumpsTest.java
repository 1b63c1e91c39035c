package dev.hwtool.arch.cpuid;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Real AIDA64 dumps from libcpuid's test corpus in the layouts the parser learned from it (the
 * resources' README names each file's source): affinity-mask headers, "Virtual" CPU headers,
 * empty CPU sections, a leaf line repeated verbatim.
 */
class LibcpuidDumpsTest {

    private static CpuidDump parse(String name) {
        try (InputStream in = LibcpuidDumpsTest.class.getResourceAsStream("libcpuid/" + name)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource libcpuid/" + name);
            }
            return CpuidDumpParser.parse(name, new String(in.readAllBytes(), StandardCharsets.US_ASCII));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** CPU counts and leaf counts taken with grep from the files (leaf lines, minus the repeated ones). */
    @ParameterizedTest(name = "{0}: CPUs {1}..{2} step {3}, {4} leaves")
    @CsvSource({
            "intel-celeron-cpu-g1610.txt, 0, 1, 1, 54",
            "amd-athlon-ii-x2-280-processor.txt, 0, 1, 1, 68",
            "amd-ryzen-3-7320u-with-radeon-graphics.txt, 0, 7, 1, 464",
            "amd-ryzen-7-5800x3d-8-core-processor.txt, 0, 45, 3, 944",
            "amd-a10-pro-7350b-r6-10-compute-cores-4c+6g.txt, 0, 3, 1, 184"})
    void readsTheDump(String file, int firstCpu, int lastCpu, int step, int leaves) {
        CpuidDump d = parse(file);
        List<Integer> expected = IntStream.iterate(firstCpu, c -> c <= lastCpu, c -> c + step).boxed().toList();
        assertEquals(expected, d.cpus().stream().map(CpuidSnapshot::cpu).toList());
        assertEquals(leaves, d.cpus().stream().mapToInt(s -> s.leaves().size()).sum());
    }

    @Test
    void theAffinityMaskNamesTheCpuWhenTheNumberRepeats() {
        CpuidDump d = parse("intel-celeron-cpu-g1610.txt");
        // Both sections say CPU#000; the second's mask 0x2 makes it CPU 1, whose initial APIC ID
        // (CPUID.01H:EBX[31:24]) is 2 on this two-core part, as the dump records.
        assertEquals(0x00, d.cpus().get(0).cpuid(1, 0).ebx() >>> 24);
        assertEquals(0x02, d.cpus().get(1).cpuid(1, 0).ebx() >>> 24);
    }

    @Test
    void aRepeatedIdenticalLineIsReadOnce() {
        CpuidSnapshot cpu0 = parse("amd-a10-pro-7350b-r6-10-compute-cores-4c+6g.txt").cpus().getFirst();
        assertEquals(1, cpu0.leaves().stream().filter(l -> l.leaf() == 0xd && l.subleaf() == 0x3e).count());
        assertEquals(new CpuidRegs(0x80, 0x340, 0, 0), cpu0.cpuid(0xd, 0x3e));
    }
}
