package dev.hwtool.arch.msr;

import dev.hwtool.arch.cpuid.CpuidRegs;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MsrCatalogTest {

    private static MsrDef reg(String name) {
        return MsrCatalog.byName(name).orElseThrow(() -> new AssertionError(name + " not catalogued"));
    }

    private static boolean on(String name, CpuContext ctx) {
        return reg(name).existsOn(ctx);
    }

    private static long bit(int b) {
        return 1L << b;
    }

    @Test
    void everyRegisterIsFoundByItsNameAndAddress() {
        List<MsrDef> all = MsrCatalog.all();
        assertTrue(all.size() > 200, "catalog has " + all.size() + " registers");
        Set<Long> addresses = new HashSet<>();
        Set<String> names = new HashSet<>();
        for (MsrDef d : all) {
            assertTrue(addresses.add(d.address()), "address " + Long.toHexString(d.address()) + " twice");
            assertTrue(names.add(d.name().toUpperCase(Locale.ROOT)), d.name() + " twice");
            assertEquals(d, MsrCatalog.byName(d.name()).orElseThrow());
            assertEquals(d, MsrCatalog.byName(d.name().toLowerCase(Locale.ROOT)).orElseThrow());
            assertEquals(d, MsrCatalog.byAddress(d.address()).orElseThrow());
            assertFalse(d.description().isBlank() || d.source().isBlank(), d.name());
        }
    }

    @Test
    void addressesAndNamesFollowTheSdmAndKernel() {
        Map<String, Long> expected = Map.ofEntries(
                Map.entry("IA32_TIME_STAMP_COUNTER", 0x10L), Map.entry("IA32_APIC_BASE", 0x1BL),
                Map.entry("IA32_PMC0", 0xC1L), Map.entry("IA32_MPERF", 0xE7L), Map.entry("IA32_APERF", 0xE8L),
                Map.entry("IA32_PERFEVTSEL1", 0x187L), Map.entry("IA32_MISC_ENABLE", 0x1A0L),
                Map.entry("MSR_LBR_SELECT", 0x1C8L), Map.entry("MSR_LASTBRANCH_TOS", 0x1C9L),
                Map.entry("IA32_DEBUGCTL", 0x1D9L), Map.entry("IA32_PAT", 0x277L),
                Map.entry("IA32_FIXED_CTR2", 0x30BL), Map.entry("IA32_PERF_CAPABILITIES", 0x345L),
                Map.entry("IA32_FIXED_CTR_CTRL", 0x38DL), Map.entry("IA32_PERF_GLOBAL_STATUS", 0x38EL),
                Map.entry("IA32_PERF_GLOBAL_CTRL", 0x38FL), Map.entry("IA32_PERF_GLOBAL_OVF_CTRL", 0x390L),
                Map.entry("IA32_PERF_GLOBAL_STATUS_RESET", 0x390L), Map.entry("IA32_PERF_GLOBAL_STATUS_SET", 0x391L),
                Map.entry("IA32_PERF_GLOBAL_INUSE", 0x392L), Map.entry("IA32_A_PMC3", 0x4C4L),
                Map.entry("IA32_DS_AREA", 0x600L), Map.entry("MSR_LASTBRANCH_0_FROM_IP", 0x680L),
                Map.entry("MSR_LASTBRANCH_31_TO_IP", 0x6DFL), Map.entry("MSR_LBR_INFO_0", 0xDC0L),
                Map.entry("MSR_LBR_CORE_FROM_0", 0x40L), Map.entry("MSR_LBR_CORE_TO_7", 0x67L),
                Map.entry("IA32_LBR_0_INFO", 0x1200L), Map.entry("IA32_LBR_CTL", 0x14CEL),
                Map.entry("IA32_LBR_DEPTH", 0x14CFL), Map.entry("IA32_LBR_31_FROM_IP", 0x151FL),
                Map.entry("IA32_LBR_5_TO_IP", 0x1605L), Map.entry("IA32_EFER", 0xC0000080L),
                Map.entry("IA32_TSC_AUX", 0xC0000103L));
        expected.forEach((name, address) -> assertEquals(address, reg(name).address(), name));
    }

    @Test
    void core2HasCplQualifiedBtsAndAFourDeepStackAt40H() {
        CpuContext c = ShippedCpus.cpu("core2.txt");
        assertTrue(c.capabilities().features().dsCpl(), "the E6750 dump has CPUID.01H:ECX[4]");
        long reserved = reg("IA32_DEBUGCTL").reservedMask(c);
        assertEquals(0, reserved & (bit(9) | bit(10)), "BTS_OFF_OS/USR defined with DS-CPL");
        assertEquals(0, reserved & (bit(6) | bit(7) | bit(8) | bit(11) | bit(12)));
        assertNotEquals(0, reserved & bit(2), "no bus-lock detect");
        assertNotEquals(0, reserved & bit(13), "no uncore PMI on perfmon v2");
        assertNotEquals(0, reserved & bit(15), "no RTM");
        assertTrue(on("MSR_LBR_CORE_FROM_3", c) && on("MSR_LBR_CORE_TO_3", c));
        assertFalse(on("MSR_LBR_CORE_FROM_4", c));
        assertFalse(on("MSR_LASTBRANCH_0_FROM_IP", c));
        assertFalse(on("MSR_LBR_SELECT", c), "Core 2 has no LBR filter");
        assertTrue(on("MSR_LASTBRANCH_TOS", c));
        assertEquals(1, reg("MSR_LASTBRANCH_TOS").field("TOS").orElseThrow().hi(c), "4 entries: 2-bit TOS");
        assertEquals(0x40, MsrCatalog.byName("MSR_LASTBRANCH_0_FROM_IP", c).orElseThrow().address());
        assertEquals(0x63, MsrCatalog.byName("msr_lastbranch_3_to_ip", c).orElseThrow().address());
        assertTrue(MsrCatalog.byName("MSR_LASTBRANCH_4_FROM_IP", c).isEmpty());
        assertTrue(on("IA32_PERF_GLOBAL_CTRL", c), "perfmon v2");
        assertFalse(on("IA32_PERF_GLOBAL_STATUS_SET", c));
    }

    @Test
    void freezeWhileSmmFollowsPerfCapabilitiesWhenKnown() {
        CpuContext c = ShippedCpus.cpu("core2.txt");
        MsrDef debugctl = reg("IA32_DEBUGCTL");
        assertEquals(0, debugctl.reservedMask(c) & bit(14), "assumed available with PDCM when unread");
        assertNotEquals(0, debugctl.reservedMask(c.withPerfCapabilities(0)) & bit(14));
        assertEquals(0, debugctl.reservedMask(c.withPerfCapabilities(bit(12))) & bit(14));
        assertTrue(on("IA32_A_PMC0", c));
        assertFalse(on("IA32_A_PMC0", c.withPerfCapabilities(0)), "no FW_WRITE");
    }

    @Test
    void skylakeHasA32DeepStackWithInfoAtDc0() {
        CpuContext c = ShippedCpus.cpu("skylake.txt");
        assertTrue(on("MSR_LASTBRANCH_31_FROM_IP", c) && on("MSR_LASTBRANCH_31_TO_IP", c));
        assertEquals(0xDC0, MsrCatalog.byName("MSR_LBR_INFO_0", c).orElseThrow().address());
        assertTrue(on("MSR_LBR_INFO_31", c));
        assertFalse(on("MSR_LBR_CORE_FROM_0", c));
        assertFalse(on("IA32_LBR_CTL", c));
        assertEquals(4, reg("MSR_LASTBRANCH_TOS").field("TOS").orElseThrow().hi(c));
        assertEquals(0, reg("MSR_LBR_SELECT").reservedMask(c) & bit(9), "EN_CALLSTACK on Skylake");
        assertTrue(on("IA32_PMC3", c) && !on("IA32_PMC4", c), "4 counters per thread with HT");
        assertTrue(on("IA32_FIXED_CTR2", c) && !on("IA32_FIXED_CTR3", c));
        assertEquals(0xFFFF_0000_0000_0000L, reg("IA32_PMC0").reservedMask(c), "48-bit counters");
        assertTrue(on("IA32_PERF_GLOBAL_STATUS_SET", c) && on("IA32_PERF_GLOBAL_INUSE", c), "perfmon v4");
    }

    @Test
    void nehalemHasSixteenEntriesWithoutInfoOrCallStack() {
        CpuContext c = ShippedCpus.cpu("nehalem.txt");
        assertTrue(on("MSR_LASTBRANCH_15_FROM_IP", c));
        assertFalse(on("MSR_LASTBRANCH_16_FROM_IP", c));
        assertFalse(on("MSR_LBR_INFO_0", c));
        assertNotEquals(0, reg("MSR_LBR_SELECT").reservedMask(c) & bit(9), "EN_CALLSTACK is Haswell+");
        assertEquals(0, reg("IA32_DEBUGCTL").reservedMask(c) & bit(13), "uncore PMI from Nehalem");
        assertFalse(on("IA32_PERF_GLOBAL_INUSE", c), "perfmon v3");
        assertEquals(0, reg("MSR_LBR_SELECT").reservedMask(ShippedCpus.cpu("haswell.txt")) & bit(9));
    }

    @Test
    void goldmontHasNoInfoButGoldmontPlusHas() {
        assertFalse(on("MSR_LBR_INFO_0", ShippedCpus.cpu("goldmont.txt")));
        assertTrue(on("MSR_LASTBRANCH_31_FROM_IP", ShippedCpus.cpu("goldmont.txt")));
        assertTrue(on("MSR_LBR_INFO_31", ShippedCpus.cpu("goldmont-plus.txt")));
    }

    @Test
    void silvermontHasLbrSelectOverACoreStyleStack() {
        CpuContext c = ShippedCpus.cpu("silvermont.txt");
        assertTrue(on("MSR_LBR_CORE_FROM_7", c));
        assertTrue(on("MSR_LBR_SELECT", c));
        assertFalse(on("MSR_LBR_SELECT", ShippedCpus.cpu("bonnell.txt")));
    }

    @Test
    void alderLakeHasArchitecturalLbrAndPerfmonV5Globals() {
        for (int cpu : new int[] {0, 16}) {
            CpuContext c = ShippedCpus.cpu("alderlake.txt", cpu);
            assertTrue(on("IA32_LBR_CTL", c) && on("IA32_LBR_DEPTH", c));
            assertTrue(on("IA32_LBR_31_FROM_IP", c) && on("IA32_LBR_31_TO_IP", c) && on("IA32_LBR_31_INFO", c),
                    "CPUID.1CH:EAX[3] → depth 32");
            assertFalse(on("MSR_LASTBRANCH_0_FROM_IP", c) || on("MSR_LASTBRANCH_TOS", c) || on("MSR_LBR_SELECT", c));
            assertTrue(on("IA32_PERF_GLOBAL_STATUS_SET", c) && on("IA32_PERF_GLOBAL_INUSE", c));
            assertTrue(on("IA32_PMC5", c) && !on("IA32_PMC6", c));
            assertEquals(0, reg("IA32_LBR_CTL").reservedMask(c) & 0x7F000FL, "all filters enumerated");
            assertNotEquals(0, reg("IA32_PERFEVTSEL0").reservedMask(c) & bit(21), "AnyThread deprecated");
        }
    }

    @Test
    void amdGuestHasNoIntelPerfmonDebugStoreOrLbrStack() {
        CpuContext c = ShippedCpus.cpu("amd-epyc-kvm-guest.cpuid-r.txt");
        List<String> names = MsrCatalog.forCpu(c).stream().map(MsrDef::name).toList();
        for (String absent : List.of("IA32_PERF_GLOBAL_CTRL", "IA32_PERF_GLOBAL_STATUS", "IA32_PERF_GLOBAL_OVF_CTRL",
                "IA32_FIXED_CTR_CTRL", "IA32_PMC0", "IA32_PERFEVTSEL0", "IA32_PERF_CAPABILITIES", "IA32_DS_AREA",
                "IA32_MISC_ENABLE", "MSR_LASTBRANCH_TOS", "IA32_LBR_CTL")) {
            assertFalse(names.contains(absent), absent + " listed for the AMD guest");
        }
        assertTrue(names.containsAll(List.of("IA32_DEBUGCTL", "IA32_TIME_STAMP_COUNTER", "IA32_EFER", "IA32_PAT",
                "IA32_APIC_BASE", "IA32_TSC_AUX")), names.toString());
        assertEquals(~0x3L, reg("IA32_DEBUGCTL").reservedMask(c), "only LBR and BTF");
    }

    @Test
    void debugctlBit2IsReservedExactlyWithoutBusLockDetect() {
        MsrDef d = reg("IA32_DEBUGCTL");
        ShippedCpus.all().forEach((label, c) -> {
            CpuidRegs leaf7 = c.guardedCpuid().read(7, 0);
            boolean bld = ((leaf7.ecx() >>> 24) & 1) != 0;
            assertEquals(!bld, (d.reservedMask(c) & bit(2)) != 0, label);
        });
        CpuContext withBld = CpuContext.of((leaf, sub) -> {
            CpuidRegs r = ShippedCpus.cpu("skylake.txt").cpuid().cpuid(leaf, sub);
            return leaf == 7 && sub == 0 ? new CpuidRegs(r.eax(), r.ebx(), r.ecx() | 1 << 24, r.edx()) : r;
        });
        assertEquals(0, d.reservedMask(withBld) & bit(2));
    }

    @Test
    void forCpuListsExactlyTheRegistersThatExist() {
        ShippedCpus.all().forEach((label, c) -> {
            List<MsrDef> mine = MsrCatalog.forCpu(c);
            for (MsrDef d : MsrCatalog.all()) {
                assertEquals(d.existsOn(c), mine.contains(d), label + " " + d.name());
            }
            int gp = c.capabilities().archPerfmon().gpCounters();
            long pmcs = mine.stream().filter(d -> d.name().matches("IA32_PMC\\d+")).count();
            assertEquals(Math.min(gp, PerfmonMsrs.MAX_GP), pmcs, label);
            int depth = c.capabilities().legacyLbr().depth();
            long froms = mine.stream().filter(d -> d.name().matches("MSR_(LASTBRANCH_\\d+_FROM_IP|LBR_CORE_FROM_\\d+)"))
                    .count();
            assertEquals(depth, froms, label);
        });
    }

    @Test
    void apicBaseIsAsWideAsMaxPhysAddr() {
        CpuContext c = ShippedCpus.cpu("skylake.txt");
        MsrField base = reg("IA32_APIC_BASE").field("APIC_BASE").orElseThrow();
        assertEquals(c.maxPhysAddr() - 1, base.hi(c));
        assertEquals(39, c.maxPhysAddr(), "i7-6700K: CPUID.80000008H:EAX[7:0] = 39");
    }

    @Test
    void conditionsDescribeThemselvesInSdmNotation() {
        MsrDef d = reg("IA32_DEBUGCTL");
        assertEquals("CPUID.(07H,0):ECX[24]", d.field("BUS_LOCK_DETECT").orElseThrow().condition().describe());
        assertEquals("CPUID.01H:ECX[4]", d.field("BTS_OFF_OS").orElseThrow().condition().describe());
        assertEquals("(CPUID.01H:ECX[15] and CPUID.0AH:EAX[7:0] >= 2) or (CPUID.0 vendor AuthenticAMD and"
                        + " CPUID.80000022H:EAX[2])",
                d.field("FREEZE_LBRS_ON_PMI").orElseThrow().condition().describe());
        assertEquals("CPUID.(07H,0):EBX[11]", d.field("RTM_DEBUG").orElseThrow().condition().describe());
    }
}
