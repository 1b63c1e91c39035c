package dev.hwtool.sim.record;

import dev.hwtool.api.BranchType;
import dev.hwtool.api.RecordRequest.Privilege;
import dev.hwtool.arch.perf.PerfCount;
import dev.hwtool.arch.perf.PerfType;
import dev.hwtool.sim.SimulatedPlatform;
import dev.hwtool.sim.cpu.DsInterruptRoutine;
import dev.hwtool.sim.cpu.LbrSnapshot;
import dev.hwtool.sim.cpu.LogicalProcessor;
import dev.hwtool.sim.cpu.Pmi;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class LinuxPerfDriverTest {

    /**
     * A period above x86_pmu.max_period runs in chunks (x86_perf_event_set_period): the first
     * overflow after max_period events is no sample; the one that completes the period is.
     */
    @Test
    void longPeriodsRunInMaxPeriodChunks() {
        LogicalProcessor cpu = SimulatedPlatform.of("skylake").machine().cpus().getFirst();
        LinuxPerfDriver d = new LinuxPerfDriver(cpu, "skylake");
        long period = LinuxPerfDriver.MAX_PERIOD + 10;
        LinuxPerfDriver.Armed a = d.place(EventCode.of(PerfType.HARDWARE, PerfCount.HW_BRANCH_INSTRUCTIONS, "branches"),
                Privilege.USER, period, true);
        List<Boolean> samples = new ArrayList<>();
        cpu.setPmiHandler(new DsInterruptRoutine(new DsInterruptRoutine.Listener() {
            @Override
            public void overflow(LogicalProcessor c, Pmi pmi, long status, LbrSnapshot lbr) {
                samples.add(d.saveAndRestart(a));
            }
        }));
        d.enable(a);
        assertEquals(-LinuxPerfDriver.MAX_PERIOD & a.mask, d.read(a), "programmed with -max_period");
        d.write(a, -6); // as if max_period - 6 branches had passed
        for (int i = 0; i < 6; i++) {
            cpu.branch(0x1000, 0x2000, BranchType.JCC, 3, false);
        }
        assertEquals(List.of(false), samples, "max_period events: the period is not over yet");
        assertEquals(-10 & a.mask, d.read(a), "the remaining 10");
        for (int i = 0; i < 10; i++) {
            cpu.branch(0x1000, 0x2000, BranchType.JCC, 3, false);
        }
        assertEquals(List.of(false, true), samples);
        assertEquals(-LinuxPerfDriver.MAX_PERIOD & a.mask, d.read(a), "the next period starts with a chunk again");
    }
}
