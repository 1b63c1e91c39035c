package dev.hwtool.sim.cpu;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.arch.cpuid.CpuidReader;
import dev.hwtool.arch.cpuid.CpuidRegs;
import dev.hwtool.caps.CpuidReading;
import dev.hwtool.sim.SimulatedPlatform;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import static dev.hwtool.sim.cpu.Machines.msr;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The simulated AMD CPUs answer AMD's registers their CPUID advertises, with the values the APM,
 * the PPR or Linux give, and #GP for the others.
 */
class AmdRegistersTest {

    /** The guest's first CPU as the simulated machine reads it. */
    private static final CpuidReader GUEST = guest();

    private static CpuidReader guest() {
        CpuidReading sim = CpuidReading.of(SimulatedPlatform.of("amd-epyc-kvm-guest").cpuid());
        return sim.reader(sim.cpus().getFirst());
    }

    private static RegisterFile regs(CpuidReader cpuid) {
        return new RegisterFile(new RegisterFile.Layout(0, true, cpuid), new SimClock(), "simulated CPU 0 (test)");
    }

    /**
     * A Zen 4 made from the guest's CPUID by setting, per AMD APM Vol. 3 Appendix E: family 19h,
     * no hypervisor bit, 06H:ECX[0] APERFMPERF, 80000001H:ECX[23] PerfCtrExtCore, 80000007H:EDX[7]
     * HwPstate, [10] EffFreqRO, [14] RAPL, 80000008H:EBX[1] IRPERF. Not a dump of a real part.
     */
    static CpuidReader zen4() {
        return (leaf, sub) -> {
            CpuidRegs g = GUEST.cpuid(leaf, sub);
            return switch (leaf) {
                case 0x1 -> new CpuidRegs(0x00A1_0F11, g.ebx(), g.ecx() & ~(1 << 31), g.edx());
                case 0x6 -> new CpuidRegs(g.eax(), g.ebx(), g.ecx() | 1, g.edx());
                case 0x8000_0001 -> new CpuidRegs(0x00A1_0F11, g.ebx(), g.ecx() | 1 << 23, g.edx());
                case 0x8000_0007 -> new CpuidRegs(g.eax(), g.ebx(), g.ecx(), g.edx() | 1 << 7 | 1 << 10 | 1 << 14);
                case 0x8000_0008 -> new CpuidRegs(g.eax(), g.ebx() | 1 << 1, g.ecx(), g.edx());
                default -> g;
            };
        };
    }

    private static void assertGp(Executable e) {
        HwException x = assertThrows(HwException.class, e);
        assertEquals(Cause.REGISTER_FAULT, x.cause(), x.getMessage());
    }

    @Test
    void theGuestAnswersHwcrTheLegacyCountersAndTheLastBranchRecords() {
        RegisterFile r = regs(GUEST);
        long hwcr = msr("MSR_K7_HWCR");
        assertEquals(1L << 24, r.read(hwcr), "TscFreqSel reads 1 (amd.c bsp_init_amd)");
        r.write(hwcr, 1L << 18);
        assertEquals(1L << 18 | 1L << 24, r.read(hwcr), "McStatusWrEn set; the read-only TscFreqSel stays 1");
        assertGp(() -> r.write(hwcr, 1L << 30)); // IRPERFEN: the guest has no CPUID 80000008H:EBX[1]
        for (int i = 0; i < 4; i++) {
            assertEquals(0, r.read(msr("MSR_K7_EVNTSEL" + i)), "RESET value 0");
            r.write(msr("MSR_K7_PERFCTR" + i), 0xFFFF_FFFF_FFFFL);
            assertEquals(0xFFFF_FFFF_FFFFL, r.read(msr("MSR_K7_PERFCTR" + i)));
        }
        assertGp(() -> r.write(msr("MSR_K7_PERFCTR0"), 1L << 48)); // 48-bit counters
        assertEquals(0, r.read(0x1DB));
        assertGp(() -> r.write(0x1DB, 1)); // LastBranchFromIP is read-only
    }

    @Test
    void theGuestFaultsOnWhatItsCpuidDoesNotAdvertise() {
        RegisterFile r = regs(GUEST);
        for (long a : new long[]{0xC001_0061L, 0xC001_0062L, 0xC001_0064L, 0xC000_00E7L, 0xC000_00E9L,
                0xC001_0200L, 0xC001_0299L, 0xC001_029BL, 0xC000_010EL, 0xC000_010FL, 0xC001_0300L}) {
            HwException e = assertThrows(HwException.class, () -> r.read(a), Long.toHexString(a));
            assertTrue(e.getMessage().contains("needs"), e.getMessage());
        }
    }

    @Test
    void aZen4AnswersPstatesEffectiveFrequencyCountersAndRapl() {
        SimClock clock = new SimClock();
        RegisterFile r = new RegisterFile(new RegisterFile.Layout(0, true, zen4()), clock, "simulated CPU 0 (zen4)");
        assertEquals(2L << 4, r.read(msr("PStateCurLim")));
        assertEquals(0, r.read(msr("MSR_AMD_PERF_STATUS")));
        assertEquals(1L << 63 | 8L << 8 | 120, r.read(msr("MSR_AMD_PSTATE_DEF_0")));
        assertEquals(0, r.read(msr("MSR_AMD_PSTATE_DEF_3")), "not enabled");
        assertGp(() -> r.write(msr("MSR_AMD_PERF_STATUS"), 1)); // read-only
        r.write(msr("MSR_AMD_PERF_CTL"), 2);
        assertEquals(2, r.read(msr("MSR_AMD_PERF_CTL")));
        // MPerfReadOnly/APerfReadOnly read IA32_MPERF/IA32_APERF and refuse writes
        r.write(msr("IA32_MPERF"), 12345);
        assertEquals(12345, r.read(msr("MPerfReadOnly")));
        assertEquals(0, r.read(msr("APerfReadOnly")));
        assertGp(() -> r.write(msr("APerfReadOnly"), 0));
        r.write(msr("MSR_K7_HWCR"), 1L << 30 | 1L << 24);
        assertEquals(1L << 30 | 1L << 24, r.read(msr("MSR_K7_HWCR")), "IRPERFEN with CPUID 80000008H:EBX[1]");
        assertEquals(0, r.read(msr("MSR_F15H_PERF_CTR5")));
        assertEquals(RaplModel.AMD_POWER_UNIT, r.read(msr("MSR_AMD_RAPL_POWER_UNIT")));
        long before = r.read(msr("MSR_AMD_PKG_ENERGY_STATUS"));
        clock.advance(1_000_000_000L); // one simulated second at 10 W = 10 J = 10 x 2^16 units
        long after = r.read(msr("MSR_AMD_PKG_ENERGY_STATUS"));
        assertEquals(10.0 * (1 << 16), after - before, 2 * (1 << 16) * 1e-6 * 1000);
        assertGp(() -> r.write(msr("MSR_AMD_PKG_ENERGY_STATUS"), 0));
    }
}
