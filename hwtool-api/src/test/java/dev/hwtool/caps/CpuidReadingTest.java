package dev.hwtool.caps;

import dev.hwtool.api.Cause;
import dev.hwtool.api.CpuidResult;
import dev.hwtool.api.CpuidSource;
import dev.hwtool.api.HwException;
import dev.hwtool.arch.cpuid.CpuidRegs;
import dev.hwtool.arch.decode.CpuDecoder;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A user's CpuidSource, which answers in the contract's CpuidResult only, read by hwtool's decoders. */
class CpuidReadingTest {

    /** Two CPUs answering leaf 0 (max leaf 1, "GenuineIntel") and leaf 1 (a Skylake signature, 0x506E3). */
    static final class UsersSource implements CpuidSource {
        @Override public String name() { return "users"; }
        @Override public String description() { return "a user's source"; }
        @Override public List<Integer> cpus() { return List.of(0, 1); }
        @Override public CpuidResult cpuid(int cpu, int leaf, int subleaf) {
            if (!cpus().contains(cpu)) {
                throw new HwException(Cause.NO_SUCH_CPU, "CPU " + cpu + " does not exist");
            }
            return switch (leaf) {
                case 0 -> new CpuidResult(1, 0x756E6547, 0x6C65746E, 0x49656E69);
                case 1 -> new CpuidResult(0x506E3, cpu << 24, 0, 0);
                default -> new CpuidResult(0, 0, 0, 0);
            };
        }
    }

    @Test
    void aUsersSourceIsReadThroughItsOwnAnswers() {
        CpuidReading r = CpuidReading.of(new UsersSource());
        assertEquals(new CpuidRegs(0x506E3, 1 << 24, 0, 0), r.regs(1, 1, 0));
        assertEquals(new CpuidResult(0x506E3, 1 << 24, 0, 0), r.cpuid(1, 1, 0));
        assertEquals(r.reader(1).cpuid(1), r.onCpu(1, reader -> reader.cpuid(1)));
        assertEquals(List.of(0, 1), r.reachableCpus());
        assertEquals("users", r.pathOf(0));
        var cpu = r.onCpu(0, CpuDecoder::decode);
        assertEquals("GenuineIntel", cpu.identity().vendor());
        assertEquals(6, cpu.identity().family());
        assertEquals(0x5E, cpu.identity().model());
        assertEquals("Skylake", CapabilityReport.identity(cpu).microarchitecture());
        HwException e = assertThrows(HwException.class, () -> r.regs(7, 0, 0));
        assertEquals(Cause.NO_SUCH_CPU, e.cause());
    }

    @Test
    void aResultNamesItsBits() {
        CpuidResult r = new CpuidResult(0, 0, 1 << 31, 1);
        assertTrue(r.bit("ecx", 31) && r.bit("EDX", 0) && !r.bit("eax", 0));
        assertThrows(IllegalArgumentException.class, () -> r.bit("esi", 0));
        assertThrows(IllegalArgumentException.class, () -> r.bit("eax", 32));
        assertEquals("eax=0x00000000 ebx=0x00000000 ecx=0x80000000 edx=0x00000001", r.toString());
    }
}
