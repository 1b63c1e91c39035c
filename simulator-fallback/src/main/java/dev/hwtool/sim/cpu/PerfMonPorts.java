package dev.hwtool.sim.cpu;

import dev.hwtool.sim.cpu.RegisterFile.MsrPort;

/**
 * Connects the performance-monitoring registers this CPU implements to its {@link PerfMon}
 * (register names and addresses from the catalog; SDM Vol. 3B 18.2).
 *
 * <ul>
 * <li>IA32_PMCx: a WRMSR writes the sign-extended EAX, EDX ignored (SDM "Full-Width Writes to
 *     Performance Counter Registers"); IA32_A_PMCx (with PERF_CAPABILITIES.FW_WRITE) writes the
 *     counter's full width. Both read the same counter.
 * <li>IA32_PERF_GLOBAL_STATUS is read-only (the catalog faults writes); IA32_PERF_GLOBAL_OVF_CTRL
 *     (STATUS_RESET) clears and IA32_PERF_GLOBAL_STATUS_SET (v4) sets its bits. SDM Vol. 4 lists
 *     390H/391H as R/W but defines only what a write does; they read as 0, as KVM's
 *     intel_pmu_get_msr does for MSR_CORE_PERF_GLOBAL_OVF_CTRL.
 * <li>IA32_PERF_GLOBAL_INUSE (v4) is computed from the controls.
 * </ul>
 */
final class PerfMonPorts {

    private PerfMonPorts() {
    }

    static void attach(PerfMon pmu, RegisterFile regs) {
        for (int i = 0; i < pmu.gpCounters; i++) {
            int c = i;
            regs.attach("IA32_PERFEVTSEL" + i, MsrPort.of(() -> pmu.eventSelect(c), v -> pmu.setEventSelect(c, v)));
            // EAX sign-extended; EDX ignored, so no value faults.
            regs.attach("IA32_PMC" + i, MsrPort.unchecked(() -> pmu.counter(c), v -> pmu.setCounter(c, (long) (int) v)));
            regs.attach("IA32_A_PMC" + i, MsrPort.of(() -> pmu.counter(c), v -> pmu.setCounter(c, v)));
        }
        for (int j = 0; j < pmu.fixedCounters; j++) {
            int c = PerfMon.FIXED_BASE + j;
            regs.attach("IA32_FIXED_CTR" + j, MsrPort.of(() -> pmu.counter(c), v -> pmu.setCounter(c, v)));
        }
        regs.attach("IA32_FIXED_CTR_CTRL", MsrPort.of(() -> pmu.fixedCtrl, pmu::setFixedCtrl));
        regs.def("IA32_PERF_GLOBAL_CTRL").ifPresent(d -> {
            pmu.setGlobalCtrl(pmu.resetGlobalCtrl() & d.definedMask(regs.context()));
            regs.attach(d, MsrPort.of(() -> pmu.globalCtrl, pmu::setGlobalCtrl));
        });
        regs.attach("IA32_PERF_GLOBAL_STATUS", MsrPort.of(() -> pmu.globalStatus, pmu::setStatus));
        regs.attach("IA32_PERF_GLOBAL_OVF_CTRL", MsrPort.of(() -> 0, pmu::resetStatus));
        regs.attach("IA32_PERF_GLOBAL_STATUS_SET", MsrPort.of(() -> 0, pmu::setStatus));
        regs.attach("IA32_PERF_GLOBAL_INUSE", MsrPort.of(pmu::inUse, v -> { }));
    }
}
