package dev.hwtool.sim.cpu;

import dev.hwtool.api.BranchType;
import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.hwtool.sim.cpu.Machines.BUF;
import static dev.hwtool.sim.cpu.Machines.R;
import static dev.hwtool.sim.cpu.Machines.btsBuffer;
import static dev.hwtool.sim.cpu.Machines.btsIndex;
import static dev.hwtool.sim.cpu.Machines.cpu;
import static dev.hwtool.sim.cpu.Machines.msr;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The units of a simulated CPU against the SDM rules they model (each test names its rule). */
class LogicalProcessorTest {

    static final long LBR = 1;
    static final long BTF = 2;
    static final long TR = 1 << 6;
    static final long BTS = 1 << 7;
    static final long BTINT = 1 << 8;
    static final long BTS_OFF_OS = 1 << 9;
    static final long BTS_OFF_USR = 1 << 10;
    static final long FREEZE_LBRS = 1 << 11;
    static final long FREEZE_PERFMON = 1 << 12;
    static final long USR_OS_EN = (1L << 16) | (1L << 17) | (1L << 22);
    static final long INT = 1L << 20;
    static final long LBR_FRZ = 1L << 58;
    static final long CTR_FRZ = 1L << 59;

    private static void jcc(LogicalProcessor c, long from, long to) {
        c.branch(from, to, BranchType.JCC, 3, false);
    }

    @Test
    void core2LbrHasFourEntriesAt40hAnd60hAndTosIsIncrementedBeforeEachWrite() {
        LogicalProcessor c = cpu("core2");
        c.wrmsr(msr("IA32_DEBUGCTL"), LBR);
        jcc(c, 0x1000, 0x2000);
        assertEquals(1, c.rdmsr(msr("MSR_LASTBRANCH_TOS")), "TOS moved from 0 to 1 before the write");
        assertEquals(0x1000, c.rdmsr(0x41));
        assertEquals(0x2000, c.rdmsr(0x61));
        assertEquals(0, c.rdmsr(0x40), "entry 0 not written yet");
        for (int i = 1; i <= 4; i++) {
            jcc(c, 0x1000 + i, 0x2000 + i);
        }
        assertEquals(1, c.rdmsr(msr("MSR_LASTBRANCH_TOS")), "five records in four entries wrap to 1");
        assertEquals(0x1004, c.rdmsr(0x41));
        assertEquals(4, c.lbrDepth());
        assertEquals(5, c.stats().lbrRecords());
    }

    @Test
    void lbrSelectSuppressesByCplAndTypeAndCallStackModePops() {
        LogicalProcessor c = cpu("skylake");
        c.wrmsr(msr("IA32_DEBUGCTL"), LBR);
        c.wrmsr(msr("MSR_LBR_SELECT"), 1 | 1 << BranchType.JCC.lbrSelectBit()); // CPL_EQ_0, JCC
        c.branch(0x10, 0x20, BranchType.NEAR_REL_CALL, 0, false);
        c.branch(0x30, 0x40, BranchType.JCC, 3, false);
        c.branch(0x50, 0x60, BranchType.NEAR_REL_CALL, 3, false);
        assertEquals(List.of(0x50L), c.lbr().stream().map(LbrEntry::from).toList());

        c.wrmsr(msr("MSR_LBR_SELECT"), 1L << 9); // EN_CALLSTACK
        c.branch(0x70, 0x80, BranchType.NEAR_REL_CALL, 3, false);
        c.branch(0x85, 0x75, BranchType.NEAR_RET, 3, false);
        assertEquals(List.of(0x50L), c.lbr().stream().map(LbrEntry::from).toList(), "the return popped its call");
        assertEquals(2, c.stats().lbrRecords());
    }

    @Test
    void lbrFormatsStoreMispredictAndCyclesWhereTheFormatHasThem() {
        LogicalProcessor skl = cpu("skylake"); // LBR_FMT 5: MSR_LBR_INFO
        skl.wrmsr(msr("IA32_DEBUGCTL"), LBR);
        skl.instructions(9, 3);
        skl.branch(0x1000, 0x2000, BranchType.JCC, 3, true);
        long info = skl.rdmsr(msr("MSR_LBR_INFO_1"));
        assertEquals(1L << 63 | 10, info, "MISPRED and 10 cycles since the start");

        LogicalProcessor glm = cpu("goldmont"); // LBR_FMT 6: FROM[63] MISPRED, TO[63:48] cycles
        glm.wrmsr(msr("IA32_DEBUGCTL"), LBR);
        glm.instructions(4, 3);
        glm.branch(0x1000, 0x2000, BranchType.JCC, 3, true);
        assertEquals(1L << 63 | 0x1000, glm.rdmsr(0x681));
        assertEquals(5L << 48 | 0x2000, glm.rdmsr(0x6C1));

        LogicalProcessor hsw = cpu("haswell"); // LBR_FMT 4: FROM[63] MISPRED, address in [60:0]
        hsw.wrmsr(msr("IA32_DEBUGCTL"), LBR);
        hsw.branch(0xFFFF_FFFF_8100_0000L, 0x2000, BranchType.INTERRUPT, 0, true);
        long from = hsw.rdmsr(0x681);
        assertEquals(1L << 63 | 0xFFFF_FFFF_8100_0000L & ((1L << 61) - 1), from);
        assertEquals(0xFFFF_FFFF_8100_0000L, hsw.lbr().getFirst().from(), "decoded by sign-extending bit 60");
    }

    @Test
    void debugExceptionClearsLbrAndBtfAfterTheBranchIsRecorded() {
        LogicalProcessor c = cpu("skylake");
        c.wrmsr(msr("IA32_DEBUGCTL"), LBR | BTF);
        c.setTrapFlag(true);
        c.instructions(3, 3);
        assertEquals(0, c.stats().debugExceptions(), "BTF: no #DB for non-branches");
        jcc(c, 0x1000, 0x2000);
        assertEquals(1, c.stats().debugExceptions());
        assertEquals(0, c.rdmsr(msr("IA32_DEBUGCTL")), "#DB cleared LBR and BTF");
        assertEquals(1, c.lbr().size(), "the trapping branch was recorded first");
        c.instructions(3, 3);
        assertEquals(4, c.stats().debugExceptions(), "BTF clear, TF set: a #DB after every instruction");
    }

    @Test
    void archLbrCtlEnablesDepthWriteClearsAndInfoHasTheBranchType() {
        LogicalProcessor c = cpu("alderlake");
        long ctl = 1 | 1 << 2 | 1L << BranchType.NEAR_IND_CALL.lbrCtlBit();  // LBREn, USR, NEAR_IND_CALL
        c.wrmsr(msr("IA32_LBR_CTL"), ctl);
        c.branch(0x10, 0x20, BranchType.JCC, 3, false);
        c.branch(0x30, 0x40, BranchType.NEAR_IND_CALL, 0, false);
        c.branch(0x50, 0x60, BranchType.NEAR_IND_CALL, 3, true);
        assertEquals(0x50, c.rdmsr(msr("IA32_LBR_0_FROM_IP")));
        assertEquals(0, c.rdmsr(msr("IA32_LBR_1_FROM_IP")));
        long info = c.rdmsr(msr("IA32_LBR_0_INFO"));
        assertEquals(3, info >>> 56 & 0xF, "BR_TYPE 3 = NEAR_IND_CALL");
        assertTrue(info < 0, "MISPRED");
        c.wrmsr(msr("IA32_LBR_DEPTH"), 16);
        assertEquals(0, c.rdmsr(msr("IA32_LBR_0_FROM_IP")), "a depth write clears the entries");
        HwException gp = assertThrows(HwException.class, () -> c.wrmsr(msr("IA32_LBR_DEPTH"), 12));
        assertEquals(Cause.REGISTER_FAULT, gp.cause());
    }

    @Test
    void btsWrapsWithBtintClearAndStopsAndCountsDropsWithBtintSet() {
        LogicalProcessor c = cpu("skylake");
        btsBuffer(c, 3, 100);
        c.wrmsr(msr("IA32_DEBUGCTL"), TR | BTS);
        for (int i = 0; i < 4; i++) {
            jcc(c, 0x100 + i, 0x200 + i);
        }
        assertEquals(BUF + R, btsIndex(c), "the fourth record wrapped to the base");
        assertEquals(0x103, c.memory().read64(BUF));

        LogicalProcessor d = cpu("skylake");
        btsBuffer(d, 3, 100);
        d.wrmsr(msr("IA32_DEBUGCTL"), TR | BTS | BTINT);
        for (int i = 0; i < 5; i++) {
            jcc(d, 0x100 + i, 0x200 + i);
        }
        assertEquals(BUF + 3 * R, btsIndex(d));
        assertEquals(3, d.stats().btsStored());
        assertEquals(2, d.stats().btsDropped());
        assertEquals(5, d.stats().btmGenerated());
    }

    @Test
    void theBtsThresholdRaisesAPmiEvenWithBtintClearButFreezesNothing() {
        LogicalProcessor c = cpu("skylake");
        btsBuffer(c, 8, 2);
        c.wrmsr(msr("IA32_DEBUGCTL"), LBR | TR | BTS | FREEZE_LBRS | FREEZE_PERFMON);
        jcc(c, 1, 2);
        assertEquals(0, c.stats().pmis());
        jcc(c, 3, 4);
        assertEquals(1, c.stats().pmis(), "seed 001: clearing BTINT alone does not prevent the interrupt");
        Pmi pmi = c.pmis().getFirst();
        assertTrue(pmi.btsThreshold());
        assertEquals("none", pmi.froze());
        assertEquals(0, c.rdmsr(msr("IA32_PERF_GLOBAL_STATUS")) & (LBR_FRZ | CTR_FRZ));

        LogicalProcessor quiet = cpu("skylake");
        btsBuffer(quiet, 8, 9); // threshold beyond the absolute maximum
        quiet.wrmsr(msr("IA32_DEBUGCTL"), TR | BTS);
        for (int i = 0; i < 20; i++) {
            jcc(quiet, i, i + 1);
        }
        assertEquals(0, quiet.stats().pmis());
    }

    @Test
    void table17_6CplQualificationAndUnavailableAndTooSmallBuffers() {
        LogicalProcessor c = cpu("skylake");
        btsBuffer(c, 100, 200);
        c.wrmsr(msr("IA32_DEBUGCTL"), TR | BTS | BTS_OFF_OS);
        c.branch(1, 2, BranchType.JCC, 0, false);
        c.branch(3, 4, BranchType.JCC, 3, false);
        c.wrmsr(msr("IA32_DEBUGCTL"), TR | BTS | BTS_OFF_USR);
        c.branch(5, 6, BranchType.JCC, 0, false);
        c.branch(7, 8, BranchType.JCC, 3, false);
        c.wrmsr(msr("IA32_DEBUGCTL"), TR | BTS | BTS_OFF_OS | BTS_OFF_USR);
        c.branch(9, 10, BranchType.JCC, 3, false);
        c.wrmsr(msr("IA32_DEBUGCTL"), TR);
        c.branch(11, 12, BranchType.JCC, 3, false);
        assertEquals(List.of(3L, 5L), c.btsRecords().stream().map(BtsRecord::from).toList());
        assertEquals(6, c.stats().btmGenerated());

        LogicalProcessor kvm = cpu("skylake");
        btsBuffer(kvm, 100, 200);
        kvm.setPlatformValue(msr("IA32_MISC_ENABLE"), kvm.rdmsr(msr("IA32_MISC_ENABLE")) | 1L << 11);
        kvm.wrmsr(msr("IA32_DEBUGCTL"), TR | BTS);
        jcc(kvm, 1, 2);
        assertEquals(0, kvm.stats().btsStored(), "BTS_UNAVAILABLE: nothing stored");

        LogicalProcessor small = cpu("skylake");
        btsBuffer(small, 1, 5); // absolute maximum = base + 24 < base + 1 + 24
        small.wrmsr(msr("IA32_DEBUGCTL"), TR | BTS);
        jcc(small, 1, 2);
        assertEquals("bts-buffer-too-small", small.diagnostics().getFirst().code());
        assertEquals(0, small.stats().btsStored());

        LogicalProcessor noDsCpl = cpu("bonnell");
        if (!noDsCpl.context().guardedCpuid().flag(dev.hwtool.arch.decode.CpuidBit.DS_CPL)) {
            assertThrows(HwException.class, () -> noDsCpl.wrmsr(msr("IA32_DEBUGCTL"), TR | BTS | BTS_OFF_OS));
        }
    }

    @Test
    void predictedFlagIsBit4ExceptOnCore2() {
        LogicalProcessor skl = cpu("skylake");
        btsBuffer(skl, 10, 20);
        skl.wrmsr(msr("IA32_DEBUGCTL"), TR | BTS);
        skl.branch(1, 2, BranchType.JCC, 3, false);
        skl.branch(3, 4, BranchType.JCC, 3, true);
        assertEquals(List.of(0x10L, 0L), skl.btsRecords().stream().map(BtsRecord::flags).toList());
        LogicalProcessor core2 = cpu("core2");
        btsBuffer(core2, 10, 20);
        core2.wrmsr(msr("IA32_DEBUGCTL"), TR | BTS);
        core2.branch(1, 2, BranchType.JCC, 3, false);
        assertEquals(0, core2.btsRecords().getFirst().flags());
    }

    @Test
    void countersCountArchitecturalEventsByCplUnderGlobalCtrl() {
        LogicalProcessor c = cpu("skylake");
        c.wrmsr(msr("IA32_PERFEVTSEL0"), USR_OS_EN | 0xC0);
        c.wrmsr(msr("IA32_PERFEVTSEL1"), USR_OS_EN | 0xC4);
        c.wrmsr(msr("IA32_PERFEVTSEL2"), USR_OS_EN | 0xC5);
        c.wrmsr(msr("IA32_PERFEVTSEL3"), (1L << 16) | (1L << 22) | 0x3C); // USR only
        c.wrmsr(msr("IA32_PERF_GLOBAL_CTRL"), 0xF);
        c.instructions(10, 3);
        c.branch(1, 2, BranchType.JCC, 3, true);
        c.instructions(5, 0);
        c.cycles(7);
        assertEquals(16, c.rdmsr(msr("IA32_PMC0")));
        assertEquals(1, c.rdmsr(msr("IA32_PMC1")));
        assertEquals(1, c.rdmsr(msr("IA32_PMC2")));
        assertEquals(11, c.rdmsr(msr("IA32_PMC3")), "ring 0 cycles (5 + 7 stalled at CPL 0) not counted");
        c.wrmsr(msr("IA32_PERF_GLOBAL_CTRL"), 0xE);
        c.instructions(4, 3);
        assertEquals(16, c.rdmsr(msr("IA32_PMC0")), "GLOBAL_CTRL bit 0 clear gates counter 0");
    }

    @Test
    void cmaskAndInvCountCyclesByTheirCondition() {
        LogicalProcessor c = cpu("skylake");
        // Instructions retired, CMASK 1, INV: cycles in which no instruction retired.
        c.wrmsr(msr("IA32_PERFEVTSEL0"), USR_OS_EN | 1L << 23 | 1L << 24 | 0xC0);
        // The same with E: stall periods.
        c.wrmsr(msr("IA32_PERFEVTSEL1"), USR_OS_EN | 1L << 23 | 1L << 24 | 1L << 18 | 0xC0);
        c.wrmsr(msr("IA32_PERF_GLOBAL_CTRL"), 0x3);
        c.instructions(5, 3);
        c.cycles(4);
        c.instructions(2, 3);
        c.cycles(3);
        assertEquals(7, c.rdmsr(msr("IA32_PMC0")));
        assertEquals(2, c.rdmsr(msr("IA32_PMC1")));
    }

    @Test
    void legacyWritesSignExtendAndFullWidthWritesDoNot() {
        LogicalProcessor c = cpu("skylake"); // 48-bit counters, FW_WRITE
        c.wrmsr(msr("IA32_PMC0"), 0xDEAD_0000_8000_0000L);
        assertEquals(0xFFFF_8000_0000L, c.rdmsr(msr("IA32_PMC0")), "EAX sign-extended, EDX ignored");
        c.wrmsr(msr("IA32_A_PMC0"), 0x1234_8000_0000L);
        assertEquals(0x1234_8000_0000L, c.rdmsr(msr("IA32_PMC0")));
        assertThrows(HwException.class, () -> cpu("core2").wrmsr(0x4C1, 1), "no FW_WRITE on Core 2");
    }

    @Test
    void overflowSetsStatusAndThePmiFollowsTheCausingInstruction() {
        LogicalProcessor c = cpu("skylake");
        c.wrmsr(msr("IA32_PERFEVTSEL0"), USR_OS_EN | INT | 0xC0);
        c.wrmsr(msr("IA32_A_PMC0"), (1L << 48) - 10);
        c.wrmsr(msr("IA32_PERF_GLOBAL_CTRL"), 1);
        c.instructions(25, 3);
        assertEquals(1, c.stats().pmis());
        assertEquals(10, c.pmis().getFirst().instruction(), "taken after the 10th instruction");
        assertEquals(15, c.rdmsr(msr("IA32_PMC0")), "wrapped to 0 at the 10th, then counted 15 (no freeze)");
        assertEquals(1, c.rdmsr(msr("IA32_PERF_GLOBAL_STATUS")) & 1);
        c.wrmsr(msr("IA32_PERF_GLOBAL_OVF_CTRL"), 1);
        assertEquals(0, c.rdmsr(msr("IA32_PERF_GLOBAL_STATUS")));
    }

    @Test
    void streamlinedFreezeSetsFrzBitsAndLeavesDebugctlAndGlobalCtrl() {
        LogicalProcessor c = cpu("skylake"); // perfmon v4
        c.wrmsr(msr("IA32_PERFEVTSEL0"), USR_OS_EN | INT | 0xC4);
        c.wrmsr(msr("IA32_A_PMC0"), (1L << 48) - 2);
        c.wrmsr(msr("IA32_PERF_GLOBAL_CTRL"), 1);
        c.wrmsr(msr("IA32_DEBUGCTL"), LBR | FREEZE_LBRS | FREEZE_PERFMON);
        jcc(c, 1, 2);
        jcc(c, 3, 4); // overflows: recorded, then the PMI freezes
        jcc(c, 5, 6);
        assertEquals(List.of(3L, 1L), c.lbr().stream().map(LbrEntry::from).toList());
        assertEquals(0, c.rdmsr(msr("IA32_PMC0")));
        long status = c.rdmsr(msr("IA32_PERF_GLOBAL_STATUS"));
        assertEquals(LBR_FRZ | CTR_FRZ | 1, status);
        assertEquals(LBR | FREEZE_LBRS | FREEZE_PERFMON, c.rdmsr(msr("IA32_DEBUGCTL")));
        assertEquals(1, c.rdmsr(msr("IA32_PERF_GLOBAL_CTRL")));
        c.wrmsr(msr("IA32_PERF_GLOBAL_OVF_CTRL"), LBR_FRZ | CTR_FRZ | 1);
        jcc(c, 7, 8);
        assertEquals(7, c.lbr().getFirst().from(), "unfrozen");
        assertEquals(1, c.rdmsr(msr("IA32_PMC0")));
    }

    @Test
    void legacyFreezeClearsDebugctlLbrAndGlobalCtrl() {
        LogicalProcessor c = cpu("sandybridge"); // perfmon v3
        assertEquals(3, c.perfmonVersion());
        c.wrmsr(msr("IA32_PERFEVTSEL0"), USR_OS_EN | INT | 0xC4);
        c.wrmsr(msr("IA32_PMC0"), -1L); // sign-extended: one branch to overflow
        c.wrmsr(msr("IA32_PERF_GLOBAL_CTRL"), 1);
        c.wrmsr(msr("IA32_DEBUGCTL"), LBR | FREEZE_LBRS | FREEZE_PERFMON);
        jcc(c, 1, 2);
        jcc(c, 3, 4);
        assertEquals(List.of(1L), c.lbr().stream().map(LbrEntry::from).toList());
        assertEquals(FREEZE_LBRS | FREEZE_PERFMON, c.rdmsr(msr("IA32_DEBUGCTL")), "LBR cleared");
        assertEquals(0, c.rdmsr(msr("IA32_PERF_GLOBAL_CTRL")), "GLOBAL_CTRL cleared");
        assertEquals("legacy", c.pmis().getFirst().froze());
    }

    @Test
    void theBuiltInRoutineDrainsResetsUnfreezesAndRestores() {
        LogicalProcessor c = cpu("skylake");
        btsBuffer(c, 16, 4);
        List<Long> drained = new ArrayList<>();
        DsInterruptRoutine isr = new DsInterruptRoutine(new DsInterruptRoutine.Listener() {
            @Override
            public void bts(LogicalProcessor cpu, BtsBufferView records) {
                for (int i = 0; i < records.count(); i++) {
                    drained.add(records.from(i));
                }
            }
        });
        c.setPmiHandler(isr);
        c.wrmsr(msr("IA32_PERFEVTSEL0"), USR_OS_EN | INT | 0xC4);
        c.wrmsr(msr("IA32_A_PMC0"), (1L << 48) - 6);
        c.wrmsr(msr("IA32_PERF_GLOBAL_CTRL"), 1);
        long debugctl = LBR | TR | BTS | FREEZE_LBRS | FREEZE_PERFMON;
        c.wrmsr(msr("IA32_DEBUGCTL"), debugctl);
        for (int i = 1; i <= 10; i++) {
            jcc(c, i, i + 100);
        }
        // Threshold PMI at the 4th branch, overflow PMI at the 6th (the routine drains then too),
        // threshold again 4 records after that reset, at the 10th.
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L), drained);
        assertEquals(3, isr.interrupts());
        assertEquals(List.of(4L, 6L, 10L), c.pmis().stream().map(Pmi::instruction).toList());
        assertEquals(BUF, btsIndex(c), "index reset to the base by the last PMI");
        assertEquals(0, c.rdmsr(msr("IA32_PERF_GLOBAL_STATUS")), "overflow and freeze bits cleared");
        assertEquals(debugctl, c.rdmsr(msr("IA32_DEBUGCTL")), "restored on exit");
        assertEquals(10, c.lbr().getFirst().from(), "LBR unfrozen by the routine");
    }

    @Test
    void retirementInsideAPmiHandlerIsRefusedAndBadArgumentsAreRejected() {
        LogicalProcessor c = cpu("skylake");
        c.wrmsr(msr("IA32_PERFEVTSEL0"), USR_OS_EN | INT | 0xC0);
        c.wrmsr(msr("IA32_A_PMC0"), (1L << 48) - 1);
        c.wrmsr(msr("IA32_PERF_GLOBAL_CTRL"), 1);
        c.setPmiHandler((cpu, pmi) -> cpu.instructions(1, 0));
        assertThrows(IllegalStateException.class, () -> c.instructions(1, 3));
        LogicalProcessor d = cpu("skylake");
        assertThrows(IllegalArgumentException.class, () -> d.branch(1, 2, BranchType.JCC, 4, false));
        assertThrows(IllegalArgumentException.class, () -> d.instructions(-1, 3));
        assertThrows(IllegalArgumentException.class, () -> d.branch(1, 2, null, 3, false));
        assertFalse(d.trapFlag());
    }

    @Test
    void eachCpuHasItsOwnDsAreaAndBuffer() {
        var machine = new dev.hwtool.sim.SimulatedPlatform(dev.hwtool.sim.Profiles.resolve("skylake"), 2).machine();
        LogicalProcessor a = machine.cpu(0);
        LogicalProcessor b = machine.cpu(1);
        btsBuffer(a, 10, 20);
        SimMemory m = b.memory();
        long ds2 = 0x30_0000;
        long buf2 = 0x40_0000;
        m.write64(ds2, buf2);
        m.write64(ds2 + 8, buf2);
        m.write64(ds2 + 16, buf2 + 10 * R);
        m.write64(ds2 + 24, buf2 + 20 * R);
        b.wrmsr(msr("IA32_DS_AREA"), ds2);
        a.wrmsr(msr("IA32_DEBUGCTL"), TR | BTS);
        b.wrmsr(msr("IA32_DEBUGCTL"), TR | BTS);
        jcc(a, 0xA, 0xB);
        jcc(b, 0xC, 0xD);
        jcc(b, 0xE, 0xF);
        assertEquals(List.of(0xAL), a.btsRecords().stream().map(BtsRecord::from).toList());
        assertEquals(List.of(0xCL, 0xEL), b.btsRecords().stream().map(BtsRecord::from).toList());
    }

    @Test
    void aWriteOnASiblingEndsTheLbrOnlyPathForItsCore() {
        // CPU 0 retires with only its LBR on (the short path); then CPU 1 sets an AnyThread
        // counter: CPU 0's next branches must count on it (SDM 18.2.3), and its own LBR still records.
        SimulatedMachine sky = new dev.hwtool.sim.SimulatedPlatform(dev.hwtool.sim.Profiles.resolve("skylake")).machine();
        LogicalProcessor a = sky.cpu(0);
        LogicalProcessor b = sky.cpu(1);
        a.wrmsr(msr("IA32_DEBUGCTL"), LBR);
        jcc(a, 1, 2);
        jcc(a, 3, 4);
        b.wrmsr(msr("IA32_PERF_GLOBAL_CTRL"), 1);
        b.wrmsr(msr("IA32_PERFEVTSEL0"), USR_OS_EN | (1L << 21) | 0xC4);
        jcc(a, 5, 6);
        jcc(a, 7, 8);
        assertEquals(2, b.rdmsr(msr("IA32_PMC0")), "the sibling's AnyThread counter saw CPU 0's branches");
        assertEquals(List.of(7L, 5L, 3L, 1L), a.lbr().stream().map(LbrEntry::from).toList());
        b.wrmsr(msr("IA32_PERFEVTSEL0"), 0);
        jcc(a, 9, 10);
        assertEquals(2, b.rdmsr(msr("IA32_PMC0")), "disabled again");
        assertEquals(5, a.lbr().size());
    }

    @Test
    void btsRecordsLandWhereverTheBufferAndTheDsAreaLieEvenAcrossPagesAndUnaligned() {
        // SDM 17.4.9: 24-byte records from the buffer base, the index in the DS area at +08H.
        long[][] layouts = {{0x10_0000, 0x20_0000}, {0x10_0004, 0x20_0FE8}, {0x10_0FF0, 0x20_0FF0}, {0x10_0FFC, 0x20_1FF3}};
        for (long[] layout : layouts) {
            LogicalProcessor c = cpu("skylake");
            SimMemory m = c.memory();
            long area = layout[0];
            long base = layout[1];
            m.write64(area + 0x00, base);
            m.write64(area + 0x08, base);
            m.write64(area + 0x10, base + 8 * R);
            m.write64(area + 0x18, base + 100 * R);
            c.wrmsr(msr("IA32_DS_AREA"), area);
            c.wrmsr(msr("IA32_DEBUGCTL"), TR | BTS);
            for (int i = 0; i < 12; i++) {
                jcc(c, 0x1000 + i, 0x2000 + i);
            }
            String where = "area 0x" + Long.toHexString(area) + ", base 0x" + Long.toHexString(base);
            assertEquals(base + 4 * R, m.read64(area + 0x08), where + ": 12 records in a circular buffer of 8");
            List<Long> from = c.btsRecords().stream().map(BtsRecord::from).toList();
            assertEquals(List.of(0x1008L, 0x1009L, 0x100AL, 0x100BL), from, where);
            for (int i = 0; i < 8; i++) {
                long at = base + (long) i * R;
                long expected = i < 4 ? 0x1008 + i : 0x1000 + i;
                assertEquals(expected, m.read64(at), where + ": record " + i + " from");
                assertEquals(expected + 0x1000, m.read64(at + 8), where + ": record " + i + " to");
            }
        }
    }

    @Test
    void takingPmisAllocatesNothing() {
        // LBR, BTS with a threshold, four counters, one sampling, and the built-in routine (which
        // hands its listener the LBR snapshot and the drained BTS records): after a warm-up that
        // fills the PMI log, retiring branches allocates no memory at all. Not a timing check.
        LogicalProcessor c = cpu("skylake");
        btsBuffer(c, 64, 48);
        long[] seen = new long[2];
        long pmc0 = msr("IA32_A_PMC0");
        c.setPmiHandler(new DsInterruptRoutine(new DsInterruptRoutine.Listener() {
            @Override
            public void bts(LogicalProcessor cpu, BtsBufferView records) {
                seen[0] += records.from(records.count() - 1);
            }

            @Override
            public void overflow(LogicalProcessor cpu, Pmi pmi, long status, LbrSnapshot lbr) {
                seen[1] += lbr.from(0) + pmi.sequence();
                cpu.wrmsr(pmc0, -97 & ((1L << 48) - 1));
            }
        }));
        c.wrmsr(msr("IA32_PERFEVTSEL0"), USR_OS_EN | INT | 0xC0);
        c.wrmsr(msr("IA32_PERFEVTSEL1"), USR_OS_EN | 0xC4);
        c.wrmsr(msr("IA32_PERFEVTSEL2"), USR_OS_EN | 0xC5);
        c.wrmsr(msr("IA32_PERFEVTSEL3"), USR_OS_EN | 0x3C);
        c.wrmsr(msr("IA32_A_PMC0"), -97 & ((1L << 48) - 1));
        c.wrmsr(msr("IA32_PERF_GLOBAL_CTRL"), 0xF);
        c.wrmsr(msr("IA32_DEBUGCTL"), LBR | TR | BTS | FREEZE_LBRS | FREEZE_PERFMON);
        var threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        long allocated = -1;
        for (int round = 0; round < 5 && allocated != 0; round++) {
            retire(c, 200_000);
            long before = threads.getThreadAllocatedBytes(tid);
            retire(c, 200_000);
            allocated = threads.getThreadAllocatedBytes(tid) - before;
        }
        assertTrue(c.stats().pmis() > 2 * LogicalProcessor.PMI_LOG, "PMIs taken: " + c.stats().pmis());
        assertTrue(seen[0] != 0 && seen[1] != 0);
        assertEquals(0, allocated, "bytes allocated by 200 000 branches with PMIs");
    }

    private static void retire(LogicalProcessor c, int n) {
        for (int i = 0; i < n; i++) {
            c.branch(0x1000 + (i & 0xFF0), 0x2000 + (i & 0x7F0), (i & 3) == 0 ? BranchType.NEAR_REL_CALL : BranchType.JCC,
                    (i & 7) == 0 ? 0 : 3, (i & 15) == 0);
        }
    }

    @Test
    void coresComeFromTheX2apicIdAboveTheSmtShiftAndHybridEcoresHaveNoSibling() {
        // SDM Vol. 3A 9.9; CPUID.0BH on each logical processor of the dumps.
        SimulatedMachine sky = new dev.hwtool.sim.SimulatedPlatform(dev.hwtool.sim.Profiles.resolve("skylake")).machine();
        assertEquals(List.of(1), sky.cpu(0).siblings());
        assertEquals(List.of(0), sky.cpu(1).siblings());
        assertEquals(List.of(3), sky.cpu(2).siblings());
        SimulatedMachine adl = new dev.hwtool.sim.SimulatedPlatform(dev.hwtool.sim.Profiles.resolve("alderlake")).machine();
        assertEquals(List.of(1), adl.cpu(0).siblings(), "a Golden Cove P-core has two threads");
        for (int cpu = 16; cpu < 24; cpu++) {
            assertEquals(List.of(), adl.cpu(cpu).siblings(), "Gracemont E-core CPU " + cpu + " has no SMT");
        }
        // Atom 230 (no leaf 0BH): CPUID.01H:EBX[23:16] = 2 logical processors, leaf 4 one core: one SMT pair.
        SimulatedMachine atom = new dev.hwtool.sim.SimulatedPlatform(dev.hwtool.sim.Profiles.resolve("bonnell")).machine();
        assertEquals(1, atom.cpu(0).topology().smtShift());
        assertEquals(List.of(1), atom.cpu(0).siblings());
        SimulatedMachine amd = new dev.hwtool.sim.SimulatedPlatform(dev.hwtool.sim.Profiles.resolve("amd-epyc-kvm-guest")).machine();
        for (LogicalProcessor c : amd.cpus()) {
            assertEquals(0, c.perfmonVersion(), "no Intel architectural perfmon, so no AnyThread");
            assertThrows(HwException.class, () -> c.rdmsr(msr("IA32_PERFEVTSEL0")));
        }
    }

    @Test
    void aFormat3PebsRecordCarriesTheTscAndTheBuiltinRoutineHandsTheRecordsToItsListener() {
        // Skylake "PEBS Record Format" (TSC at C0H); seed 004's ISR draining the PEBS buffer.
        LogicalProcessor c = cpu("skylake");
        SimMemory m = c.memory();
        long ds = Machines.DS;
        long buf = 0x40_0000;
        m.write64(ds + 0x20, buf);
        m.write64(ds + 0x28, buf);
        m.write64(ds + 0x30, buf + 4 * 200);
        m.write64(ds + 0x38, buf + 2 * 200);
        m.write64(ds + 0x40, (1L << 48) - 1);
        List<PebsRecord> seen = new ArrayList<>();
        c.setPmiHandler(new DsInterruptRoutine(new DsInterruptRoutine.Listener() {
            @Override
            public void pebs(LogicalProcessor cpu, PebsBufferView records) {
                for (int i = 0; i < records.count(); i++) {
                    seen.add(records.record(i));
                }
            }
        }));
        c.wrmsr(msr("IA32_DS_AREA"), ds);
        c.wrmsr(msr("IA32_PERF_GLOBAL_CTRL"), 0);
        c.wrmsr(msr("IA32_PERFEVTSEL0"), 0x4300C4);
        c.wrmsr(msr("IA32_PMC0"), 0xFFFF_FFFFL);
        c.wrmsr(msr("IA32_PEBS_ENABLE"), 1);
        c.wrmsr(msr("IA32_PERF_GLOBAL_CTRL"), 1);
        long tscBefore = c.rdmsr(msr("IA32_TIME_STAMP_COUNTER"));
        for (int i = 0; i < 4; i++) {
            jcc(c, 0x1000 + 0x10 * i, 0x2000 + 0x10 * i);
        }
        long tscAfter = c.rdmsr(msr("IA32_TIME_STAMP_COUNTER"));
        assertEquals(2, seen.size(), "the threshold of two records interrupted once");
        assertEquals(List.of(0x1010L, 0x1030L), seen.stream().map(PebsRecord::eventingIp).toList());
        assertEquals(List.of(0x2010L, 0x2030L), seen.stream().map(PebsRecord::ip).toList());
        for (PebsRecord r : seen) {
            assertTrue(r.tsc() > tscBefore && r.tsc() < tscAfter, "TSC 0x" + Long.toHexString(r.tsc()));
            assertEquals(1, r.applicableCounters());
            assertEquals(200, r.size());
        }
        assertTrue(seen.get(0).tsc() < seen.get(1).tsc());
        assertEquals(buf, m.read64(ds + 0x28), "drained");
        assertEquals(2, c.stats().pebsRecords());
    }
}
