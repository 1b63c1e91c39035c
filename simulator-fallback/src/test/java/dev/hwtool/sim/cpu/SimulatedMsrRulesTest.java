package dev.hwtool.sim.cpu;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.MsrAccess;
import dev.hwtool.arch.msr.Access;
import dev.hwtool.arch.msr.MsrCatalog;
import dev.hwtool.arch.msr.MsrDef;
import dev.hwtool.msr.MsrMachine;
import dev.hwtool.sim.Profiles;
import dev.hwtool.sim.SimulatedPlatform;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The simulator's register rules, one test per SDM rule (or per documented choice), named after it. */
class SimulatedMsrRulesTest {

    @TempDir
    Path tmp;

    /** The MSR index of a catalogued register. */
    private static int msr(String name) {
        long a = MsrCatalog.byName(name).map(MsrDef::address)
                .orElseThrow(() -> new AssertionError("catalog has no " + name));
        return (int) a;
    }

    private static MsrAccess msrOf(String profile) {
        return SimulatedPlatform.of(profile).msr();
    }

    /** RDMSR on the profile's first CPU (dumps number their CPUs from 0 or from 1). */
    private static long readFirst(String profile, int msr) {
        MsrAccess m = msrOf(profile);
        return m.read(m.cpus().getFirst(), msr);
    }

    private static HwException assertGp(Executable e) {
        HwException ex = assertThrows(HwException.class, e);
        assertEquals(Cause.REGISTER_FAULT, ex.cause(), ex.getMessage());
        assertTrue(ex.getMessage().contains("#GP"), ex.getMessage());
        return ex;
    }

    /** A built-in profile's dump with one CPUID answer changed on every CPU, loaded as a user's file. */
    private MsrAccess msrOfEdited(String profile, String from, String to) throws IOException {
        String text;
        try (InputStream in = Profiles.class.getResourceAsStream("/dev/hwtool/sim/profiles/" + profile + ".txt")) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertTrue(text.contains(from), profile + " has " + from);
        Path p = tmp.resolve(profile + "-edited.txt");
        Files.writeString(p, text.replace(from, to));
        return SimulatedPlatform.of(p.toString()).msr();
    }

    // ---- registers that do not exist -------------------------------------------------------

    @Test
    void thermalLogBitsAreClearedByWritingZeroAndUnchangedByWritingOne() {
        // SDM Vol. 4 Table 2-2, IA32_THERM_STATUS: log bits are R/WC0 (sticky; software clears them
        // with 0 and cannot set them), status bits and the readout RO.
        LogicalProcessor cpu = SimulatedPlatform.of("skylake").machine().cpu(0);
        int therm = msr("IA32_THERM_STATUS");
        long boot = cpu.rdmsr(therm);
        assertEquals(1L << 31 | 1L << 27 | 55L << 16, boot, "READING_VALID, 1 degree resolution, readout 55");
        long logs = 1L << 1 | 1L << 3; // THERMAL_STATUS_LOG, PROCHOT_EVENT_LOG
        cpu.setPlatformValue(therm, boot | 1 | logs);
        cpu.wrmsr(therm, logs);          // 1s to the logs, 0 to the status bit (RO)
        assertEquals(boot | 1 | logs, cpu.rdmsr(therm), "writing 1 leaves a log bit set; RO bits keep theirs");
        cpu.wrmsr(therm, 1L << 3);       // 0 to THERMAL_STATUS_LOG
        assertEquals(boot | 1 | 1L << 3, cpu.rdmsr(therm), "writing 0 clears it");
        cpu.wrmsr(therm, 0);
        cpu.wrmsr(therm, logs);          // a 1 never sets a log bit
        assertEquals(boot | 1, cpu.rdmsr(therm));
        assertGp(() -> cpu.wrmsr(therm, 1L << 24)); // reserved
    }

    @Test
    void raplEnergyCountsTheSimulatedClockAtAFixedPowerAndIsReadOnly() {
        // SDM Vol. 3B 14.9: 32-bit TOTAL_ENERGY_CONSUMED in MSR_RAPL_POWER_UNIT's energy units.
        SimulatedPlatform p = SimulatedPlatform.of("skylake");
        LogicalProcessor cpu = p.machine().cpu(0);
        assertEquals(0xA0E03L, cpu.rdmsr(msr("MSR_RAPL_POWER_UNIT")));
        assertEquals(100L << 16, cpu.rdmsr(msr("MSR_TEMPERATURE_TARGET")));
        int pkg = msr("MSR_PKG_ENERGY_STATUS");
        long before = cpu.rdmsr(pkg);
        p.clock().advance(1_000_000_000L);
        long after = cpu.rdmsr(pkg);
        assertEquals(10 * 16384, after - before, 1, "10 W for one second, in 2^-14 J");
        assertGp(() -> cpu.wrmsr(pkg, 0));
        assertTrue(RaplModel.energyUnits(Long.MAX_VALUE, 10_000) <= 0xFFFF_FFFFL);
    }

    @Test
    void rdmsrAndWrmsrOfAnUnimplementedMsrRaiseGp() {
        MsrAccess m = msrOf("skylake");
        HwException r = assertGp(() -> m.read(0, 0x1234_5678));
        assertTrue(r.getMessage().contains("CPU 0"), r.getMessage());
        assertGp(() -> m.write(0, 0x1234_5678, 0));
    }

    @Test
    void aCataloguedMsrTheCpuLacksRaisesGpAndSaysWhy() {
        // IA32_PERF_CAPABILITIES needs PDCM (CPUID.01H:ECX[15]); the AMD guest has none.
        MsrAccess amd = msrOf("amd-epyc-kvm-guest");
        HwException e = assertGp(() -> amd.read(0, msr("IA32_PERF_CAPABILITIES")));
        assertTrue(e.getMessage().contains("CPUID.01H:ECX[15]"), e.getMessage());
        // IA32_MISC_ENABLE is an Intel register.
        assertGp(() -> amd.read(0, msr("IA32_MISC_ENABLE")));
    }

    // ---- reserved bits -----------------------------------------------------------------------

    @Test
    void debugctlBusLockDetectIsReservedWithoutCpuid7Ecx24() throws IOException {
        // SDM 17.4.1: DEBUGCTL bit 2 exists only with CPUID.(07H,0):ECX[24].
        MsrAccess skl = msrOf("skylake");
        int debugctl = msr("IA32_DEBUGCTL");
        assertGp(() -> skl.write(0, debugctl, 1L << 2));
        assertEquals(0, skl.read(0, debugctl), "nothing changed");
        skl.write(0, debugctl, 1L); // LBR is fine
        assertEquals(1L, skl.read(0, debugctl));

        MsrAccess withBld = msrOfEdited("skylake",
                "CPUID 00000007: 00000000-029C6FBF-00000000-9C002400",
                "CPUID 00000007: 00000000-029C6FBF-01000000-9C002400");
        withBld.write(0, debugctl, 1L << 2);
        assertEquals(1L << 2, withBld.read(0, debugctl));
    }

    @Test
    void debugctlBtsOffOsIsReservedWithoutDsCpl() throws IOException {
        // SDM 17.4.6: BTS_OFF_OS (9) / BTS_OFF_USR (10) exist iff CPUID.01H:ECX[4] (DS-CPL). Every
        // shipped Intel dump has DS-CPL, so the rule is shown on Core 2 with the flag cleared.
        int debugctl = msr("IA32_DEBUGCTL");
        long btsOffOs = 1L << 9;
        MsrAccess core2 = msrOf("core2");
        core2.write(0, debugctl, btsOffOs);
        assertEquals(btsOffOs, core2.read(0, debugctl));

        MsrAccess noDsCpl = msrOfEdited("core2", "-0000E3FD-BFEBFBFF", "-0000E3ED-BFEBFBFF");
        assertGp(() -> noDsCpl.write(1, debugctl, btsOffOs));
        assertGp(() -> noDsCpl.write(1, debugctl, 1L << 10));
        assertEquals(0, noDsCpl.read(1, debugctl));
    }

    // ---- read-only registers and fields ------------------------------------------------------

    @Test
    void wrmsrToAReadOnlyRegisterRaisesGp() {
        MsrAccess skl = msrOf("skylake");
        int status = msr("IA32_PERF_GLOBAL_STATUS");
        int caps = msr("IA32_PERF_CAPABILITIES");
        long before = skl.read(0, caps);
        assertGp(() -> skl.write(0, status, 0));
        assertGp(() -> skl.write(0, caps, before)); // even the same value
        assertEquals(before, skl.read(0, caps));
    }

    @Test
    void readOnlyFieldsOfAWritableRegisterKeepTheirValue() {
        // Simulator choice (RegisterFile): IA32_MISC_ENABLE.BTS_UNAVAILABLE is RO; a write that
        // differs there is accepted and the bit keeps its value, while RW bits take the write.
        MsrAccess skl = msrOf("skylake");
        int misc = msr("IA32_MISC_ENABLE");
        long old = skl.read(0, misc);
        long btsUnavailable = 1L << 11;
        long fastStrings = 1L;
        skl.write(0, misc, (old | btsUnavailable) & ~fastStrings);
        assertEquals(old & ~fastStrings, skl.read(0, misc));
    }

    @Test
    void eferLmaIsReadOnlyAndStaysSetUnderA64BitOs() {
        MsrAccess skl = msrOf("skylake");
        int efer = msr("IA32_EFER");
        long v = skl.read(0, efer);
        skl.write(0, efer, v & ~BootState.EFER_LMA);
        assertEquals(v, skl.read(0, efer));
    }

    // ---- global status: reset (W1C through 390H) and set (v4+) -------------------------------

    @Test
    void globalStatusResetClearsTheStatusBitsWrittenAsOne() {
        MsrAccess skl = msrOf("skylake"); // perfmon v4
        int status = msr("IA32_PERF_GLOBAL_STATUS");
        int set = msr("IA32_PERF_GLOBAL_STATUS_SET");
        int reset = msr("IA32_PERF_GLOBAL_STATUS_RESET");
        long pmc0 = 1L, fixed0 = 1L << 32, lbrFrz = 1L << 58;
        skl.write(2, set, pmc0 | fixed0 | lbrFrz);
        assertEquals(pmc0 | fixed0 | lbrFrz, skl.read(2, status));
        skl.write(2, reset, pmc0 | lbrFrz);
        assertEquals(fixed0, skl.read(2, status));
        assertEquals(0, skl.read(3, status), "status is per CPU");
    }

    @Test
    void globalStatusSetAndResetReadAsZero() {
        // Write-only in effect: the SDM defines only writes; KVM reads 390H as 0 (intel_pmu_get_msr).
        MsrAccess skl = msrOf("skylake");
        int set = msr("IA32_PERF_GLOBAL_STATUS_SET");
        int reset = msr("IA32_PERF_GLOBAL_OVF_CTRL");
        skl.write(0, set, 1L);
        assertEquals(0, skl.read(0, set));
        skl.write(0, reset, 1L);
        assertEquals(0, skl.read(0, reset));
    }

    @Test
    void globalStatusSetExistsOnlyFromPerfmonVersion4() {
        MsrAccess hsw = msrOf("haswell"); // perfmon v3
        int set = msr("IA32_PERF_GLOBAL_STATUS_SET");
        assertGp(() -> hsw.write(0, set, 1L));
        assertGp(() -> hsw.read(0, set));
        hsw.write(0, msr("IA32_PERF_GLOBAL_OVF_CTRL"), 1L); // OVF_CTRL exists from v2
    }

    @Test
    void globalStatusResetOfAReservedBitRaisesGp() {
        // Haswell has 4 GP counters per thread (CPUID.0AH:EAX[15:8]): bit 7 clears nothing that exists.
        MsrAccess hsw = msrOf("haswell");
        assertGp(() -> hsw.write(0, msr("IA32_PERF_GLOBAL_OVF_CTRL"), 1L << 7));
    }

    // ---- performance counters ----------------------------------------------------------------

    @Test
    void legacyPmcWriteSignExtendsFromBit31ToTheCounterWidth() {
        // SDM "Full-Width Writes to Performance Counter Registers": through IA32_PMCx only EAX
        // is written, sign-extended; EDX is ignored. Skylake counters are 48 bits wide.
        MsrAccess skl = msrOf("skylake");
        int pmc0 = msr("IA32_PMC0");
        skl.write(0, pmc0, 0x8000_0000L);
        assertEquals(0xFFFF_8000_0000L, skl.read(0, pmc0));
        skl.write(0, pmc0, 0x1234_7FFF_FFFFL);
        assertEquals(0x7FFF_FFFFL, skl.read(0, pmc0), "EDX ignored, bit 31 clear");
    }

    @Test
    void fullWidthWriteThroughAPmcAliasesTheSameCounter() {
        MsrAccess skl = msrOf("skylake");
        int pmc1 = msr("IA32_PMC1");
        int aPmc1 = msr("IA32_A_PMC1");
        skl.write(0, aPmc1, 0x1234_5678_9ABCL);
        assertEquals(0x1234_5678_9ABCL, skl.read(0, pmc1));
        assertEquals(0x1234_5678_9ABCL, skl.read(0, aPmc1));
        skl.write(0, pmc1, -2L);
        assertEquals(0xFFFF_FFFF_FFFEL, skl.read(0, aPmc1));
    }

    @Test
    void fullWidthWriteBeyondTheCounterWidthRaisesGp() {
        MsrAccess skl = msrOf("skylake");
        int aPmc0 = msr("IA32_A_PMC0");
        assertGp(() -> skl.write(0, aPmc0, 1L << 48));
        assertEquals(0, skl.read(0, aPmc0));
    }

    @Test
    void counterValuesAreTruncatedToTheCpuid0AhWidth() {
        // Core 2: CPUID.0AH:EAX[23:16] = 28H, 40-bit counters; no FW_WRITE, so no IA32_A_PMCx.
        MsrAccess core2 = msrOf("core2");
        int pmc0 = msr("IA32_PMC0");
        core2.write(0, pmc0, 0xFFFF_FFFFL);
        assertEquals(0xFF_FFFF_FFFFL, core2.read(0, pmc0));
        assertGp(() -> core2.read(0, msr("IA32_A_PMC0")));
        int fixed0 = msr("IA32_FIXED_CTR0");
        assertGp(() -> core2.write(0, fixed0, 1L << 40));
        core2.write(0, fixed0, (1L << 40) - 1);
        assertEquals((1L << 40) - 1, core2.read(0, fixed0));
    }

    // ---- initial values per microarchitecture ------------------------------------------------

    @Test
    void miscEnableReportsBtsAndPebsAvailableWithDsAndPerfmonAvailable() {
        int misc = msr("IA32_MISC_ENABLE");
        for (String p : new String[]{"core2", "bonnell", "nehalem", "skylake", "goldmont-plus", "alderlake"}) {
            long v = readFirst(p, misc);
            assertEquals(BootState.MISC_FAST_STRING | BootState.MISC_EMON, v, p + ": 0x" + Long.toHexString(v));
        }
    }

    @Test
    void miscEnableSetsBtsUnavailableAndPebsUnavailableWithoutDs() throws IOException {
        // CPUID.01H:EDX[21] (DS) cleared on Core 2: bits 11 and 12 say BTS and PEBS are absent.
        MsrAccess noDs = msrOfEdited("core2", "-0000E3FD-BFEBFBFF", "-0000E3FD-BFCBFBFF");
        long v = noDs.read(0, msr("IA32_MISC_ENABLE"));
        assertEquals(BootState.MISC_BTS_UNAVAILABLE | BootState.MISC_PEBS_UNAVAILABLE,
                v & (BootState.MISC_BTS_UNAVAILABLE | BootState.MISC_PEBS_UNAVAILABLE));
        assertGp(() -> noDs.read(0, msr("IA32_DS_AREA")));
    }

    @Test
    void perfCapabilitiesLbrFormatFollowsTheLegacyLbrModelTable() {
        int caps = msr("IA32_PERF_CAPABILITIES");
        String[][] expected = {
                {"nehalem", "3"}, {"sandybridge", "3"}, {"haswell", "4"}, {"skylake", "5"},
                {"icelake", "5"}, {"goldmont", "6"}, {"goldmont-plus", "7"}};
        for (String[] e : expected) {
            long v = readFirst(e[0], caps);
            assertEquals(Integer.parseInt(e[1]), v & PerfCapabilitiesModel.LBR_FMT_MASK, e[0]);
        }
    }

    @Test
    void perfCapabilitiesLbrFormatIsLipWhereTheModelTableDoesNotKnowIt() {
        // Simulator choice (PerfCapabilitiesModel): Core 2, Bonnell and Silvermont report 1 (64-bit LIP).
        int caps = msr("IA32_PERF_CAPABILITIES");
        for (String p : new String[]{"core2", "bonnell", "silvermont"}) {
            assertEquals(1, readFirst(p, caps) & PerfCapabilitiesModel.LBR_FMT_MASK, p);
        }
    }

    @Test
    void perfCapabilitiesLbrFormatIs3FhOnArchitecturalLbrPartsUnconfirmed() {
        // docs/facts.md §1.3: 3FH meaning "no legacy LBR" is UNCONFIRMED; the simulator chooses it
        // for CPUID.(07H,0):EDX[19] parts, on both core types of Alder Lake.
        MsrAccess adl = msrOf("alderlake");
        int caps = msr("IA32_PERF_CAPABILITIES");
        assertEquals(0x3F, adl.read(0, caps) & PerfCapabilitiesModel.LBR_FMT_MASK, "P-core");
        assertEquals(0x3F, adl.read(16, caps) & PerfCapabilitiesModel.LBR_FMT_MASK, "E-core");
    }

    @Test
    void perfCapabilitiesFullWidthWriteFromSandyBridgeWithPerfmonVersion2() {
        int caps = msr("IA32_PERF_CAPABILITIES");
        long fw = 1L << PerfCapabilitiesModel.FW_WRITE_BIT;
        for (String p : new String[]{"sandybridge", "haswell", "skylake", "silvermont", "goldmont", "alderlake"}) {
            assertEquals(fw, readFirst(p, caps) & fw, p);
        }
        for (String p : new String[]{"core2", "bonnell", "nehalem"}) {
            assertEquals(0, readFirst(p, caps) & fw, p);
            assertGp(() -> readFirst(p, msr("IA32_A_PMC0")));
        }
    }

    @Test
    void apicBaseHasTheBspFlagOnCpu0OnlyTheDefaultBaseAndX2apicModeWhereCpuidHasIt() {
        MsrAccess adl = msrOf("alderlake");
        int apic = msr("IA32_APIC_BASE");
        long extd = 1L << 10; // CPUID.01H:ECX[21] on Alder Lake: Linux runs it in x2APIC mode
        assertEquals(0xFEE0_0000L | 1L << 11 | extd | 1L << 8, adl.read(0, apic));
        for (int cpu = 1; cpu < 24; cpu++) {
            assertEquals(0xFEE0_0000L | 1L << 11 | extd, adl.read(cpu, apic), "CPU " + cpu);
        }
        assertEquals(0xFEE0_0000L | 1L << 11 | 1L << 8, readFirst("core2", apic), "Core 2 has no x2APIC");
    }

    @Test
    void patHoldsItsPowerUpValue() {
        assertEquals(0x0007_0406_0007_0406L, msrOf("haswell").read(3, msr("IA32_PAT")));
    }

    @Test
    void eferHasLongModeAndNxAsA64BitOsLeavesThem() {
        int efer = msr("IA32_EFER");
        long lmeLmaNxe = BootState.EFER_LME | BootState.EFER_LMA | BootState.EFER_NXE;
        // The Intel dumps report SYSCALL (CPUID.80000001H:EDX[11]) clear, as Intel does outside
        // 64-bit mode; the catalog then has no SCE field, so SCE stays 0 there.
        assertEquals(lmeLmaNxe, msrOf("skylake").read(0, efer));
        assertEquals(lmeLmaNxe | BootState.EFER_SCE, msrOf("amd-epyc-kvm-guest").read(1, efer));
    }

    @Test
    void tscAuxHoldsTheCpuNumberAsLinuxSetsIt() {
        MsrAccess adl = msrOf("alderlake");
        int aux = msr("IA32_TSC_AUX");
        for (int cpu : adl.cpus()) {
            assertEquals(cpu, adl.read(cpu, aux));
        }
    }

    @Test
    void amdTscAuxIgnoresBits63To32() {
        MsrAccess amd = msrOf("amd-epyc-kvm-guest");
        int aux = msr("IA32_TSC_AUX");
        amd.write(1, aux, 0xDEAD_0000_0042L);
        assertEquals(0x42L, amd.read(1, aux));
    }

    @Test
    void registersWithoutABootValueResetToZero() {
        // SDM Vol. 3A power-up/reset state: DEBUGCTL, LBR_SELECT, DS_AREA, counters are 0.
        MsrAccess skl = msrOf("skylake");
        for (String r : new String[]{"IA32_DEBUGCTL", "MSR_LBR_SELECT", "IA32_DS_AREA", "IA32_PMC0",
                "IA32_PERFEVTSEL0", "IA32_FIXED_CTR_CTRL", "IA32_PERF_GLOBAL_STATUS"}) {
            assertEquals(0, skl.read(1, msr(r)), r);
        }
        // IA32_PERF_GLOBAL_CTRL's RESET value sets the general-purpose enables (n-1:0), so that
        // version-1 software counting with PERFEVTSELx.EN alone still counts (SDM Vol. 4 Table 2-2;
        // KVM emulates the same at vCPU RESET). Skylake has 4 GP counters per thread.
        assertEquals(0xF, skl.read(1, msr("IA32_PERF_GLOBAL_CTRL")));
    }

    @Test
    void everyBootValueCanBeWrittenBackUnchanged() {
        // Read-modify-write safety: no initial value has a bit the catalog calls reserved there.
        for (Profiles.Entry e : Profiles.builtIn()) {
            SimulatedPlatform p = SimulatedPlatform.of(e.name());
            MsrAccess m = p.msr();
            for (int cpu : m.cpus()) {
                for (MsrDef d : MsrCatalog.forCpu(((MsrMachine) m).context(cpu))) {
                    int a = (int) d.address();
                    if (d.access() == Access.RO || d.name().equals("IA32_TIME_STAMP_COUNTER")) {
                        continue;
                    }
                    long v = m.read(cpu, a);
                    m.write(cpu, a, v);
                    assertEquals(v, m.read(cpu, a), e.name() + " CPU " + cpu + " " + d.name());
                }
            }
        }
    }

    @Test
    void hybridCoresGetTheirOwnCatalogContext() {
        MsrMachine adl = (MsrMachine) msrOf("alderlake");
        assertEquals("Core", adl.context(0).capabilities().coreType());
        assertEquals("Atom", adl.context(16).capabilities().coreType());
    }

    @Test
    void archLbrDepthAcceptsOnlyEnumeratedDepthsAndAWriteClearsEveryEntry() {
        // Alder Lake CPUID.1CH:EAX[7:0] = 0BH: depths 8, 16 and 32; Linux leaves 32 programmed.
        MsrAccess adl = msrOf("alderlake");
        int depth = msr("IA32_LBR_DEPTH");
        int from0 = msr("IA32_LBR_0_FROM_IP");
        int info5 = msr("IA32_LBR_5_INFO");
        assertEquals(32, adl.read(16, depth));
        assertGp(() -> adl.write(16, depth, 24));
        assertEquals(32, adl.read(16, depth));
        adl.write(16, from0, 0xFFFF_FFFF_8100_0000L);
        adl.write(16, info5, 1L << 63);
        adl.write(16, depth, 16);
        assertEquals(16, adl.read(16, depth));
        assertEquals(0, adl.read(16, from0));
        assertEquals(0, adl.read(16, info5));
    }

    // ---- time-stamp counter ------------------------------------------------------------------

    @Test
    void timeStampCounterAdvancesWithTheSimulatedClockAndEachAccess() {
        SimulatedPlatform p = SimulatedPlatform.of("skylake");
        int tsc = msr("IA32_TIME_STAMP_COUNTER");
        long first = p.msr().read(0, tsc);
        p.clock().advance(1_000_000);
        long second = p.msr().read(0, tsc);
        assertEquals(1_000_000 + SimClock.ACCESS_COST, second - first);
        assertEquals(second + SimClock.ACCESS_COST, p.msr().read(5, tsc), "one invariant TSC for all CPUs");
    }

    @Test
    void wrmsrToTheTimeStampCounterSetsIt() {
        MsrAccess m = msrOf("skylake");
        int tsc = msr("IA32_TIME_STAMP_COUNTER");
        m.write(1, tsc, 5_000);
        assertEquals(5_000 + SimClock.ACCESS_COST, m.read(1, tsc));
        assertNotEquals(m.read(0, tsc) - m.read(1, tsc), 0L, "only CPU 1 was set");
    }

    @Test
    void theSimulationIsDeterministic() {
        long[] a = run(SimulatedPlatform.of("goldmont").msr());
        long[] b = run(SimulatedPlatform.of("goldmont").msr());
        assertEquals(Arrays.toString(a), Arrays.toString(b));
    }

    private static long[] run(MsrAccess m) {
        int tsc = msr("IA32_TIME_STAMP_COUNTER");
        m.write(2, msr("IA32_PMC0"), 0x8000_0000L);
        return new long[]{m.read(0, tsc), m.read(2, msr("IA32_PMC0")), m.read(3, tsc),
                m.read(1, msr("IA32_PERF_CAPABILITIES"))};
    }

    @Test
    void concurrentReadersSeeStrictlyIncreasingDistinctTimeStamps() throws InterruptedException {
        MsrAccess m = msrOf("skylake");
        int tsc = msr("IA32_TIME_STAMP_COUNTER");
        int threads = 4, reads = 500;
        long[][] seen = new long[threads][reads];
        Thread[] ts = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            int id = t;
            ts[t] = new Thread(() -> {
                for (int i = 0; i < reads; i++) {
                    seen[id][i] = m.read(0, tsc);
                }
            });
            ts[t].start();
        }
        for (Thread t : ts) {
            t.join();
        }
        Set<Long> all = new HashSet<>();
        for (long[] s : seen) {
            for (int i = 1; i < reads; i++) {
                assertTrue(s[i] > s[i - 1]);
            }
            for (long v : s) {
                assertTrue(all.add(v), "duplicate TSC " + v);
            }
        }
    }
}
