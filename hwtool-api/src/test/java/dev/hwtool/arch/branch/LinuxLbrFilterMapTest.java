package dev.hwtool.arch.branch;

import dev.hwtool.api.BranchFilter;
import dev.hwtool.api.BranchType;
import dev.hwtool.arch.perf.PerfBranchSample;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.OptionalLong;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LinuxLbrFilterMapTest {

    @Test
    void anyUserOnHaswellSuppressesOnlyRing0() {
        // perf record -b -j any,u: mask = LBR_ANY|LBR_USER, written inverted: only CPL_EQ_0 suppressed.
        assertEquals(OptionalLong.of(LinuxLbrFilterMap.Legacy.KERNEL),
                LinuxLbrFilterMap.HSW.register(PerfBranchSample.ANY | PerfBranchSample.USER));
    }

    @Test
    void callStackKeepsItsEnableBitUninverted() {
        long v = LinuxLbrFilterMap.HSW.register(PerfBranchSample.CALL_STACK | PerfBranchSample.USER).orElseThrow();
        assertEquals(LinuxLbrFilterMap.Legacy.CALL_STACK, v & LinuxLbrFilterMap.Legacy.CALL_STACK);
        assertEquals(0x3C5, v, "kernel, jcc, jmps and far suppressed; calls and returns kept; EN_CALLSTACK");
    }

    @Test
    void callStackIsNotSupportedBeforeHaswell() {
        assertTrue(LinuxLbrFilterMap.SNB.register(PerfBranchSample.CALL_STACK).isEmpty());
        assertTrue(LinuxLbrFilterMap.NHM.register(PerfBranchSample.CALL_STACK).isEmpty());
        assertTrue(LinuxLbrFilterMap.ARCH.register(PerfBranchSample.CALL_STACK).isPresent());
        assertFalse(LinuxLbrFilterMap.NONE.hasHardwareFilter());
    }

    @Test
    void nehalemErrataWidenTheCallFilter() {
        assertEquals(LinuxLbrFilterMap.Legacy.IND_CALL | LinuxLbrFilterMap.Legacy.IND_JMP,
                LinuxLbrFilterMap.NHM.mask(PerfBranchSample.IND_CALL).orElseThrow());
    }

    @Test
    void archLbrEnablesWhatTheFilterAsksFor() {
        assertEquals(LinuxLbrFilterMap.Arch.ANY | LinuxLbrFilterMap.Arch.USER,
                LinuxLbrFilterMap.ARCH.register(PerfBranchSample.ANY | PerfBranchSample.USER).orElseThrow());
    }

    /** Each filter on the Haswell map lets exactly the branch types the filter names through. */
    @Test
    void legacyRegisterSuppressesExactlyTheOtherTypes() {
        record Case(BranchFilter filter, Set<BranchType> kept) {
        }
        for (Case c : new Case[] {
                new Case(BranchFilter.ANY, EnumSet.allOf(BranchType.class)),
                new Case(BranchFilter.COND, EnumSet.of(BranchType.JCC)),
                new Case(BranchFilter.IND_CALL, EnumSet.of(BranchType.NEAR_IND_CALL)),
                new Case(BranchFilter.CALL, EnumSet.of(BranchType.NEAR_REL_CALL, BranchType.NEAR_IND_CALL,
                        BranchType.FAR, BranchType.INTERRUPT)),
                new Case(BranchFilter.RETURN, EnumSet.of(BranchType.NEAR_RET, BranchType.FAR, BranchType.INTERRUPT))}) {
            long sel = LinuxLbrFilterMap.HSW.register(c.filter().branchSampleType() | PerfBranchSample.USER).orElseThrow();
            for (BranchType t : BranchType.values()) {
                boolean kept = (sel >>> t.lbrSelectBit() & 1) == 0;
                assertEquals(c.kept().contains(t), kept, c.filter() + " " + t);
            }
            long ctl = LinuxLbrFilterMap.ARCH.register(c.filter().branchSampleType()).orElseThrow();
            for (BranchType t : BranchType.values()) {
                assertEquals(c.kept().contains(t), (ctl >>> t.lbrCtlBit() & 1) != 0, "arch " + c.filter() + " " + t);
            }
        }
    }
}
