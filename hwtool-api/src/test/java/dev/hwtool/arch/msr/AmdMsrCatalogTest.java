package dev.hwtool.arch.msr;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** AMD's registers: addresses and bits as msr-index.h and the AMD APM/PPR give them, and where each exists. */
class AmdMsrCatalogTest {

    private static MsrDef reg(String name) {
        return MsrCatalog.byName(name).orElseThrow(() -> new AssertionError(name + " not catalogued"));
    }

    private static boolean on(String name, CpuContext ctx) {
        return reg(name).existsOn(ctx);
    }

    private static Set<String> names(CpuContext c) {
        return MsrCatalog.forCpu(c).stream().map(MsrDef::name).collect(Collectors.toSet());
    }

    @Test
    void addressesAreTheKernelsAndTheApms() {
        Map<String, Long> expected = Map.ofEntries(
                // msr-index.h
                Map.entry("MSR_K7_HWCR", 0xC001_0015L), Map.entry("MSR_AMD_PERF_CTL", 0xC001_0062L),
                Map.entry("MSR_AMD_PERF_STATUS", 0xC001_0063L), Map.entry("MSR_AMD_PSTATE_DEF_0", 0xC001_0064L),
                Map.entry("MSR_AMD_PSTATE_DEF_7", 0xC001_006BL), Map.entry("MSR_F17H_IRPERF", 0xC000_00E9L),
                Map.entry("MSR_K7_EVNTSEL0", 0xC001_0000L), Map.entry("MSR_K7_EVNTSEL3", 0xC001_0003L),
                Map.entry("MSR_K7_PERFCTR0", 0xC001_0004L), Map.entry("MSR_K7_PERFCTR3", 0xC001_0007L),
                Map.entry("MSR_F15H_PERF_CTL0", 0xC001_0200L), Map.entry("MSR_F15H_PERF_CTR0", 0xC001_0201L),
                Map.entry("MSR_F15H_PERF_CTL5", 0xC001_020AL), Map.entry("MSR_F15H_PERF_CTR5", 0xC001_020BL),
                Map.entry("MSR_AMD_RAPL_POWER_UNIT", 0xC001_0299L), Map.entry("MSR_AMD_CORE_ENERGY_STATUS", 0xC001_029AL),
                Map.entry("MSR_AMD_PKG_ENERGY_STATUS", 0xC001_029BL), Map.entry("MSR_AMD64_LBR_SELECT", 0xC000_010EL),
                Map.entry("MSR_AMD_DBG_EXTN_CFG", 0xC000_010FL), Map.entry("MSR_AMD_SAMP_BR_FROM_0", 0xC001_0300L),
                Map.entry("MSR_AMD_SAMP_BR_TO_0", 0xC001_0301L), Map.entry("MSR_AMD_SAMP_BR_FROM_15", 0xC001_031EL),
                Map.entry("MSR_AMD_SAMP_BR_TO_15", 0xC001_031FL),
                Map.entry("MSR_IA32_LASTBRANCHFROMIP", 0x1DBL), Map.entry("MSR_IA32_LASTBRANCHTOIP", 0x1DCL),
                Map.entry("MSR_IA32_LASTINTFROMIP", 0x1DDL), Map.entry("MSR_IA32_LASTINTTOIP", 0x1DEL),
                // APM / PPR names, canonical or alias
                Map.entry("PStateCurLim", 0xC001_0061L), Map.entry("PStateCtl", 0xC001_0062L),
                Map.entry("PStateStat", 0xC001_0063L), Map.entry("PStateDef3", 0xC001_0067L),
                Map.entry("HWCR", 0xC001_0015L), Map.entry("MPerfReadOnly", 0xC000_00E7L),
                Map.entry("APerfReadOnly", 0xC000_00E8L), Map.entry("IRPerfCount", 0xC000_00E9L),
                Map.entry("RAPL_PWR_UNIT", 0xC001_0299L), Map.entry("CORE_ENERGY_STAT", 0xC001_029AL),
                Map.entry("PKG_ENERGY_STAT", 0xC001_029BL), Map.entry("LastExceptionToIP", 0x1DEL));
        expected.forEach((name, address) -> assertEquals(address, reg(name).address(), name));
    }

    @Test
    void bitsAreTheKernelsAndTheApms() {
        assertEquals(0, reg("MSR_K7_HWCR").field("SMMLOCK").orElseThrow().lo(), "MSR_K7_HWCR_SMMLOCK_BIT");
        assertEquals(30, reg("MSR_K7_HWCR").field("IRPERFEN").orElseThrow().lo(), "MSR_K7_HWCR_IRPERF_EN_BIT");
        assertEquals(25, reg("MSR_K7_HWCR").field("CPBDIS").orElseThrow().lo(), "MSR_K7_HWCR_CPB_DIS_BIT");
        assertEquals(24, reg("MSR_K7_HWCR").field("TSCFREQSEL").orElseThrow().lo(), "amd.c BIT(24)");
        assertEquals(6, reg("MSR_AMD_DBG_EXTN_CFG").field("LBRV2EN").orElseThrow().lo(), "DBG_EXTN_CFG_LBRV2EN");
        MsrField brsmen = reg("MSR_AMD_DBG_EXTN_CFG").field("BRSMEN").orElseThrow();
        MsrField msroff = reg("MSR_AMD_DBG_EXTN_CFG").field("MSROFF").orElseThrow();
        MsrField pmc = reg("MSR_AMD_DBG_EXTN_CFG").field("PMC").orElseThrow();
        // brs.c union amd_debug_extn_cfg: rsvd0:2, brsmen:1, rsvd4_3:2, vb:1, rsvd2:10, msroff:4, rsvd3:4, pmc:3
        assertEquals(List.of(2, 2, 19, 16, 26, 24), List.of(brsmen.hi(), brsmen.lo(), msroff.hi(), msroff.lo(),
                pmc.hi(), pmc.lo()));
        assertEquals(0x1FFL, reg("MSR_AMD64_LBR_SELECT").fields().stream().mapToLong(MsrField::mask)
                .reduce(0, (a, b) -> a | b), "lbr.c LBR_SELECT_MASK");
        MsrField esu = reg("MSR_AMD_RAPL_POWER_UNIT").field("ENERGY_STATUS_UNITS").orElseThrow();
        assertEquals(List.of(12, 8), List.of(esu.hi(), esu.lo()), "rapl.c (msr >> 8) & 0x1F");
        MsrDef sel = reg("MSR_F15H_PERF_CTL0");
        assertEquals(0xF_0000_0000L | 0xFF, sel.field("EVENTSELECT").orElseThrow().mask()
                | sel.field("EVENTSELECT_HI").orElseThrow().mask(), "AMD64_EVENTSEL_EVENT");
        assertEquals(1L << 40, sel.field("GUESTONLY").orElseThrow().mask(), "AMD64_EVENTSEL_GUESTONLY");
        assertEquals(1L << 41, sel.field("HOSTONLY").orElseThrow().mask(), "AMD64_EVENTSEL_HOSTONLY");
        assertEquals(0xFFFF_0000_0000_0000L, reg("MSR_F15H_PERF_CTR2").reservedMask(AmdCpus.zen4()), "48-bit counters");
    }

    @Test
    void zen4HasItsCountersRaplPstatesAndLbrV2() {
        CpuContext c = AmdCpus.zen4();
        Set<String> n = names(c);
        assertTrue(n.containsAll(List.of("MSR_K7_HWCR", "PStateCurLim", "MSR_AMD_PERF_CTL", "MSR_AMD_PERF_STATUS",
                "MSR_AMD_PSTATE_DEF_0", "MSR_AMD_PSTATE_DEF_7", "MPerfReadOnly", "APerfReadOnly", "MSR_F17H_IRPERF",
                "MSR_K7_EVNTSEL0", "MSR_K7_PERFCTR3", "MSR_F15H_PERF_CTL5", "MSR_F15H_PERF_CTR5",
                "MSR_AMD_RAPL_POWER_UNIT", "MSR_AMD_CORE_ENERGY_STATUS", "MSR_AMD_PKG_ENERGY_STATUS",
                "MSR_AMD64_LBR_SELECT", "MSR_AMD_DBG_EXTN_CFG", "MSR_AMD_SAMP_BR_FROM_15", "MSR_AMD_SAMP_BR_TO_15",
                "IA32_MPERF", "IA32_APERF", "IA32_DEBUGCTL", "MSR_IA32_LASTBRANCHFROMIP")), n.toString());
        MsrDef dbg = reg("MSR_AMD_DBG_EXTN_CFG");
        assertEquals(~(1L << 6), dbg.reservedMask(c), "Zen 4: LBRV2EN only, no BRS bits");
        assertEquals(0, reg("IA32_DEBUGCTL").reservedMask(c) & (1L << 11), "LbrAndPmcFreeze → FREEZE_LBRS_ON_PMI");
        assertEquals(~0x3L & ~(1L << 11), reg("IA32_DEBUGCTL").reservedMask(c), "no BTS/TR/freeze-perfmon on AMD");
    }

    @Test
    void lbrV2DepthAndCounterCountFollowLeaf80000022() {
        CpuContext eight = AmdCpus.zen4(0b011, 4 | 8 << 4);
        assertTrue(on("MSR_AMD_SAMP_BR_FROM_7", eight) && on("MSR_AMD_SAMP_BR_TO_7", eight));
        assertFalse(on("MSR_AMD_SAMP_BR_FROM_8", eight) || on("MSR_AMD_SAMP_BR_TO_8", eight));
        assertTrue(on("MSR_F15H_PERF_CTL3", eight) && on("MSR_F15H_PERF_CTR3", eight));
        assertFalse(on("MSR_F15H_PERF_CTL4", eight), "NumPerfCtrCore 4");
        assertNotEquals(0, reg("IA32_DEBUGCTL").reservedMask(eight) & (1L << 11), "no LbrAndPmcFreeze");
        CpuContext noLbr = AmdCpus.zen4(0b001, 6);
        assertFalse(on("MSR_AMD64_LBR_SELECT", noLbr) || on("MSR_AMD_DBG_EXTN_CFG", noLbr)
                || on("MSR_AMD_SAMP_BR_FROM_0", noLbr), "PerfMonV2 without LbrExtV2");
        assertTrue(on("MSR_F15H_PERF_CTL5", noLbr));
    }

    @Test
    void zen3HasBrsSixteenDeepAndNoLbrSelect() {
        CpuContext c = AmdCpus.zen3();
        assertTrue(on("MSR_AMD_SAMP_BR_FROM_15", c) && on("MSR_AMD_SAMP_BR_TO_15", c), "brs.c lbr_nr = 16");
        assertFalse(on("MSR_AMD64_LBR_SELECT", c), "BRS has no hardware filter (brs.c lbr_sel_map = NULL)");
        MsrDef dbg = reg("MSR_AMD_DBG_EXTN_CFG");
        long defined = ~dbg.reservedMask(c);
        assertEquals((1L << 2) | (3L << 3) | (1L << 5) | (0xFL << 16) | (7L << 24), defined);
        assertTrue(on("MSR_F15H_PERF_CTL5", c), "PerfCtrExtCore without PerfMonV2: six counters");
        assertFalse(WriteCheck.check(dbg, 0, 1L << 6, c).isEmpty(), "LBRV2EN is reserved on Zen 3");
        assertTrue(WriteCheck.check(dbg, 0, (1L << 2) | (3L << 3), c).isEmpty(), "brs.c amd_brs_enable's value");
    }

    @Test
    void brsNeedsFamily19h() {
        CpuContext fam1a = AmdCpus.build(0x00B0_0F21, 1 << 31, 0, 0);
        assertEquals(0x1A, fam1a.capabilities().identity().family());
        assertFalse(on("MSR_AMD_SAMP_BR_FROM_0", fam1a), "amd_brs_detect: family 19h only");
    }

    @Test
    void theKvmGuestHasOnlyWhatItsCpuidAdvertises() {
        CpuContext c = ShippedCpus.cpu("amd-epyc-kvm-guest.cpuid-r.txt");
        Set<String> n = names(c);
        assertTrue(n.containsAll(List.of("MSR_K7_HWCR", "MSR_K7_EVNTSEL0", "MSR_K7_PERFCTR3",
                "MSR_IA32_LASTBRANCHFROMIP", "MSR_IA32_LASTINTTOIP")), n.toString());
        for (String absent : List.of("PStateCurLim", "MSR_AMD_PERF_CTL", "MSR_AMD_PSTATE_DEF_0", "MPerfReadOnly",
                "APerfReadOnly", "MSR_F17H_IRPERF", "MSR_F15H_PERF_CTL0", "MSR_AMD_RAPL_POWER_UNIT",
                "MSR_AMD_PKG_ENERGY_STATUS", "MSR_AMD64_LBR_SELECT", "MSR_AMD_DBG_EXTN_CFG", "MSR_AMD_SAMP_BR_FROM_0",
                "IA32_MPERF", "IA32_APERF")) {
            assertFalse(n.contains(absent), absent + ": the guest's CPUID does not advertise it");
        }
        assertNotEquals(0, reg("MSR_K7_HWCR").reservedMask(c) & (1L << 30), "IRPERFEN needs 80000008H:EBX[1]");
    }

    @Test
    void noAmdRegisterOnAnyIntelDump() {
        ShippedCpus.all().forEach((label, c) -> {
            if (!c.capabilities().identity().isIntel()) {
                return;
            }
            for (MsrDef d : AmdMsrs.defs()) {
                assertFalse(d.existsOn(c), label + " " + d.name());
            }
        });
    }

    /**
     * A Zen 4 with every AMD flag this catalog knows still lists no Intel-only register: only the
     * architectural ones AMD also implements (APM Vol. 2) beside its own.
     */
    @Test
    void noIntelOnlyRegisterOnZen() {
        Set<String> shared = Set.of("IA32_TIME_STAMP_COUNTER", "IA32_APIC_BASE", "IA32_MPERF", "IA32_APERF",
                "IA32_PAT", "IA32_EFER", "IA32_TSC_AUX", "IA32_X2APIC_LVT_PMI", "IA32_DEBUGCTL");
        Set<String> amd = AmdMsrs.defs().stream().map(MsrDef::name).collect(Collectors.toSet());
        for (CpuContext c : List.of(AmdCpus.zen4(), AmdCpus.zen3())) {
            for (String n : names(c)) {
                assertTrue(amd.contains(n) || shared.contains(n), n + " listed on Zen");
            }
        }
    }

    @Test
    void decodesAmdsPerfmonFlagsAndNothingOnIntel() {
        assertEquals(new dev.hwtool.arch.decode.AmdPerf(true, true, true, 0, false, true, true, true, 6, 16),
                AmdCpus.zen4().capabilities().amd(), "leaf 8000001BH is absent in the guest's range");
        assertEquals(new dev.hwtool.arch.decode.AmdPerf(true, true, true, 0, true, false, false, false, 6, 0),
                AmdCpus.zen3().capabilities().amd());
        assertEquals(new dev.hwtool.arch.decode.AmdPerf(true, false, false, 0, false, false, false, false, 4, 0),
                ShippedCpus.cpu("amd-epyc-kvm-guest.cpuid-r.txt").capabilities().amd(), "legacy four counters");
        ShippedCpus.all().forEach((label, c) -> {
            if (c.capabilities().identity().isIntel()) {
                assertEquals(dev.hwtool.arch.decode.AmdPerf.NONE, c.capabilities().amd(), label);
            }
        });
    }

    @Test
    void describesAmdConditionsInApmTerms() {
        assertEquals("CPUID.0 vendor AuthenticAMD and CPUID.80000007H:EDX[14]", reg("MSR_AMD_PKG_ENERGY_STATUS").exists().describe());
        assertEquals("CPUID.0 vendor AuthenticAMD and CPUID.80000022H:EAX[1] and CPUID.80000022H:EBX[9:4] > 3",
                ((Condition.Or) reg("MSR_AMD_SAMP_BR_FROM_3").exists()).any().get(0).describe());
    }
}
