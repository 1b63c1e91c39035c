package dev.hwtool.sim.cpu;

import dev.hwtool.arch.branch.DsSaveArea;
import dev.hwtool.arch.msr.MsrCatalog;
import dev.hwtool.arch.msr.MsrDef;

/**
 * The simulator's built-in DS interrupt service routine: what seeds 001 and 004 (SDM Vol. 3B
 * 17.4.9.5, "Writing the DS Interrupt Service Routine") prescribe, in that order, through the
 * CPU's own MSRs and memory — the same accesses a kernel driver makes:
 *
 * <ol>
 * <li>on entry, save IA32_DEBUGCTL and clear TR and BTS, and save IA32_PEBS_ENABLE and clear it
 *     ("Upon entering the ISR, branch trace messages and PEBS should be disabled to prevent race
 *     conditions during access to the DS save area. This is done by clearing TR flag in the
 *     IA32_DEBUGCTL ... and by clearing the precise event enable flag in the MSR_PEBS_ENABLE MSR");
 * <li>drain the BTS buffer (base up to the index) to the {@link Listener} and reset the index to
 *     the base;
 * <li>drain the PEBS buffer likewise (Linux's drain_pebs from intel_pmu_handle_irq when
 *     GLOBAL_STATUS has OvfBuffer, bit 62) and reset the PEBS index to the base, whatever the
 *     cause of the PMI — PEBS records never wait for another interrupt;
 * <li>on a counter-overflow PMI, hand the overflow status and the LBR stack to the listener
 *     (the sample Linux's handler takes), then clear the overflow indications by writing
 *     IA32_PERF_GLOBAL_STATUS to IA32_PERF_GLOBAL_OVF_CTRL / STATUS_RESET (seed 004) — which also
 *     clears LBR_FRZ and CTR_FRZ, unfreezing on version 4;
 * <li>re-enable IA32_PERF_GLOBAL_CTRL (seed 004) for every counter whose own enable is set —
 *     what Linux's intel_pmu_enable_all does (all counters, gated by their own enables) — since a
 *     legacy freeze cleared it;
 * <li>restore IA32_DEBUGCTL on exit ("These settings should be restored to their original values
 *     when exiting the ISR"); after a legacy LBR freeze it sets LBR again, as Linux's
 *     __intel_pmu_lbr_enable(pmi) does for perfmon versions below 4; restore IA32_PEBS_ENABLE
 *     as it was;
 * <li>last, unmask the local APIC's LVT performance-counter entry, which delivering the PMI
 *     masked (SDM Vol. 3A 11.5.1): Linux's intel_pmu_handle_irq (arch/x86/events/intel/core.c)
 *     ends with apic_write(APIC_LVTPC, APIC_DM_NMI) — "Only unmask the NMI after the overflow
 *     counters have been reset" (late ack) — through IA32_X2APIC_LVT_PMI in x2APIC mode, at APIC
 *     base + 340H otherwise.
 * </ol>
 * This is the driver the simulator's recorder relies on to play the kernel.
 */
public final class DsInterruptRoutine implements PmiHandler {

    /** Receives what the routine collects. Called inside the PMI; must not retire anything. */
    public interface Listener {
        /** The BTS records drained from the buffer, oldest first (never empty), read in place. */
        default void bts(LogicalProcessor cpu, BtsBufferView records) {
        }

        /** The PEBS records drained from the buffer, oldest first (never empty), read in place. */
        default void pebs(LogicalProcessor cpu, PebsBufferView records) {
        }

        /**
         * A counter overflow: the IA32_PERF_GLOBAL_STATUS value on entry and the LBR stack, most
         * recent first, as a snapshot taken at that point and valid during this call (the CPU
         * reuses it: copy what you keep, {@link LbrSnapshot#toList()}).
         */
        default void overflow(LogicalProcessor cpu, Pmi pmi, long globalStatus, LbrSnapshot lbr) {
        }
    }

    private static final long IA32_DEBUGCTL = address("IA32_DEBUGCTL");
    private static final long IA32_DS_AREA = address("IA32_DS_AREA");
    private static final long GLOBAL_STATUS = address("IA32_PERF_GLOBAL_STATUS");
    private static final long GLOBAL_CTRL = address("IA32_PERF_GLOBAL_CTRL");
    private static final long GLOBAL_OVF_CTRL = address("IA32_PERF_GLOBAL_OVF_CTRL");
    private static final long FIXED_CTR_CTRL = address("IA32_FIXED_CTR_CTRL");
    private static final long PERFEVTSEL0 = address("IA32_PERFEVTSEL0");
    private static final long IA32_APIC_BASE = address("IA32_APIC_BASE");
    private static final long X2APIC_LVT_PMI = address("IA32_X2APIC_LVT_PMI");
    private static final long PEBS_ENABLE = address("IA32_PEBS_ENABLE");

    private final Listener listener;
    private long interrupts;
    private long drained;
    private long drainedPebs;

    public DsInterruptRoutine() {
        this(new Listener() {
        });
    }

    public DsInterruptRoutine(Listener listener) {
        this.listener = listener;
    }

    private static long address(String name) {
        return MsrCatalog.byName(name).map(MsrDef::address)
                .orElseThrow(() -> new IllegalStateException("the catalog has no " + name));
    }

    @Override
    public void onPmi(LogicalProcessor cpu, Pmi pmi) {
        interrupts++;
        long saved = cpu.rdmsr(IA32_DEBUGCTL);
        cpu.wrmsr(IA32_DEBUGCTL, saved & ~(LogicalProcessor.DEBUGCTL_TR | LogicalProcessor.DEBUGCTL_BTS));
        boolean pebs = cpu.pebsAvailable() && cpu.implementsMsr(PEBS_ENABLE);
        long savedPebs = pebs ? cpu.rdmsr(PEBS_ENABLE) : 0;
        if (savedPebs != 0) {
            cpu.wrmsr(PEBS_ENABLE, 0);
        }
        drainBts(cpu);
        if (pebs) {
            drainPebs(cpu);
        }
        if (cpu.perfmonVersion() >= 2) {
            long status = cpu.rdmsr(GLOBAL_STATUS);
            if (pmi.overflowed() != 0) {
                listener.overflow(cpu, pmi, status, cpu.lbrSnapshot(true));
            }
            long clearable = cpu.definedMask(GLOBAL_OVF_CTRL);
            if ((status & clearable) != 0) {
                cpu.wrmsr(GLOBAL_OVF_CTRL, status & clearable);
            }
            cpu.wrmsr(GLOBAL_CTRL, enabledCounters(cpu));
        }
        long restore = saved;
        if ("legacy".equals(pmi.froze()) && (saved & LogicalProcessor.DEBUGCTL_FREEZE_LBRS_ON_PMI) != 0) {
            restore |= LogicalProcessor.DEBUGCTL_LBR;
        }
        cpu.wrmsr(IA32_DEBUGCTL, restore);
        if (savedPebs != 0) {
            cpu.wrmsr(PEBS_ENABLE, savedPebs);
        }
        unmaskLvt(cpu);
    }

    private void drainPebs(LogicalProcessor cpu) {
        long area = cpu.rdmsr(IA32_DS_AREA);
        if (area == 0) {
            return;
        }
        PebsBufferView records = cpu.pebsDrain(area);
        if (records.count() > 0) {
            drainedPebs += records.count();
            listener.pebs(cpu, records);
        }
        if (records.index() != records.base()) {
            cpu.memory().write64(area + DsSaveArea.PEBS_INDEX, records.base());
        }
    }

    /** apic_write(APIC_LVTPC, APIC_DM_NMI): the x2APIC MSR in x2APIC mode, the xAPIC register otherwise. */
    private static void unmaskLvt(LogicalProcessor cpu) {
        boolean x2apic = cpu.x2apicSupported() && (cpu.rdmsr(IA32_APIC_BASE) & LogicalProcessor.APIC_BASE_EXTD) != 0;
        if (x2apic) {
            cpu.wrmsr(X2APIC_LVT_PMI, LogicalProcessor.LVT_DM_NMI);
        } else {
            cpu.writeApicLvtPerfmon(LogicalProcessor.LVT_DM_NMI);
        }
    }

    private void drainBts(LogicalProcessor cpu) {
        if (!cpu.ds()) {
            return;
        }
        long area = cpu.rdmsr(IA32_DS_AREA);
        if (area == 0) {
            return;
        }
        BtsBufferView records = cpu.btsDrain(area);
        if (records.count() > 0) {
            drained += records.count();
            listener.bts(cpu, records);
        }
        cpu.memory().write64(area + DsSaveArea.BTS_INDEX, records.base());
    }

    /** GLOBAL_CTRL bits of the counters whose PERFEVTSELx.EN or fixed EN field is set. */
    private static long enabledCounters(LogicalProcessor cpu) {
        long v = 0;
        for (int i = 0; i < cpu.gpCounters(); i++) {
            if ((cpu.rdmsr(PERFEVTSEL0 + i) & PerfMon.EVTSEL_EN) != 0) {
                v |= 1L << i;
            }
        }
        if (cpu.fixedCounters() > 0) {
            long ctrl = cpu.rdmsr(FIXED_CTR_CTRL);
            for (int j = 0; j < cpu.fixedCounters(); j++) {
                if ((ctrl >>> (4 * j) & (PerfMon.FIXED_EN_OS | PerfMon.FIXED_EN_USR)) != 0) {
                    v |= 1L << (PerfMon.FIXED_BASE + j);
                }
            }
        }
        return v;
    }

    /** PMIs this routine has served. */
    public long interrupts() {
        return interrupts;
    }

    /** PEBS records drained so far. */
    public long drainedPebs() {
        return drainedPebs;
    }

    /** BTS records drained so far. */
    public long drained() {
        return drained;
    }
}
