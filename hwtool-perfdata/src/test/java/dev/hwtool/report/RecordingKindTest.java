package dev.hwtool.report;

import dev.hwtool.record.RecordingInfo;
import dev.hwtool.arch.perf.abi.PerfAttrFlag;
import dev.hwtool.arch.perf.PerfBranchSample;
import dev.hwtool.arch.perf.PerfCount;
import dev.hwtool.arch.perf.abi.PerfEventAttr;
import dev.hwtool.arch.perf.abi.PerfSample;
import dev.hwtool.arch.perf.PerfType;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RecordingKindTest {

    static RecordingInfo info(String name, PerfEventAttr attr, Optional<RecordingInfo.AuxPmu> aux) {
        return new RecordingInfo("hardware", "true", List.of(new RecordingInfo.Event(name, attr, List.of(1L))), aux);
    }

    static final long IP_TID = PerfSample.IP | PerfSample.TID;

    @Test
    void branchStackSamplesAreLbr() {
        PerfEventAttr a = PerfEventAttr.builder().type(PerfType.HARDWARE).config(PerfCount.HW_CPU_CYCLES)
                .samplePeriod(1000).sampleType(IP_TID | PerfSample.BRANCH_STACK)
                .branchSampleType(PerfBranchSample.CALL_STACK | PerfBranchSample.USER).build();
        RecordingInfo i = info("cycles:u", a, Optional.empty());
        assertEquals(RecordingKind.LBR, RecordingKind.of(i));
        assertTrue(RecordingKind.callStack(i));
    }

    @Test
    void branchesAtPeriodOneWithAddrAreBts() {
        PerfEventAttr a = PerfEventAttr.builder().type(PerfType.HARDWARE).config(PerfCount.HW_BRANCH_INSTRUCTIONS)
                .samplePeriod(1).sampleType(IP_TID | PerfSample.ADDR).build();
        assertEquals(RecordingKind.BTS_SAMPLES, RecordingKind.of(info("branches:u", a, Optional.empty())));
        PerfEventAttr noAddr = a.toBuilder().sampleType(IP_TID).build();
        assertEquals(RecordingKind.OTHER, RecordingKind.of(info("branches:u", noAddr, Optional.empty())));
        PerfEventAttr freq = a.toBuilder().flag(PerfAttrFlag.FREQ).build();
        assertEquals(RecordingKind.OTHER, RecordingKind.of(info("branches:u", freq, Optional.empty())));
    }

    @Test
    void intelBtsAuxIsBts() {
        PerfEventAttr a = PerfEventAttr.builder().type(9).sampleType(IP_TID).build();
        RecordingInfo i = info("intel_bts//u", a,
                Optional.of(new RecordingInfo.AuxPmu(RecordingKind.INTEL_BTS, 9, 0, 0, 0, false)));
        assertEquals(RecordingKind.BTS_AUX, RecordingKind.of(i));
        assertTrue(RecordingKind.BTS_AUX.bts());
    }

    @Test
    void cpuClockSamplesAreOther() {
        PerfEventAttr a = PerfEventAttr.builder().type(PerfType.SOFTWARE).config(PerfCount.SW_CPU_CLOCK)
                .samplePeriod(4000).flag(PerfAttrFlag.FREQ).sampleType(IP_TID | PerfSample.PERIOD).build();
        RecordingInfo i = info("cpu-clock:u", a, Optional.empty());
        assertEquals(RecordingKind.OTHER, RecordingKind.of(i));
        assertFalse(RecordingKind.OTHER.bts());
        assertEquals("cpu-clock:u", RecordingKind.events(i));
    }
}
