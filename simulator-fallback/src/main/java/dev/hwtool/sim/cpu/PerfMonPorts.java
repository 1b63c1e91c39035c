package dev.hwtool.sim.cpu;

import dev.hwtool.arch.msr.MsrDef;

/**
 * Connects the performance-monitoring registers this CPU implements to its {@link PerfMon}
 * (register names and addresses from the catalog; SDM Vol. 3B 18.2, hardware-facts §3.8).
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
            regs.def("IA32_PERFEVTSEL" + i).ifPresent(d -> regs.attach(d, port(() -> pmu.eventSelect(c),
                    v -> pmu.setEventSelect(c, v))));
            regs.def("IA32_PMC" + i).ifPresent(d -> regs.attach(d, new RegisterFile.MsrPort() {
                @Override
                public long read(MsrDef def) {
                    return pmu.counter(c);
                }

                @Override
                public void write(MsrDef def, long value) {
                    pmu.setCounter(c, (long) (int) value); // EAX sign-extended; EDX ignored
                }

                @Override
                public boolean checked() {
                    return false;
                }
            }));
            regs.def("IA32_A_PMC" + i).ifPresent(d -> regs.attach(d, port(() -> pmu.counter(c),
                    v -> pmu.setCounter(c, v))));
        }
        for (int j = 0; j < pmu.fixedCounters; j++) {
            int c = PerfMon.FIXED_BASE + j;
            regs.def("IA32_FIXED_CTR" + j).ifPresent(d -> regs.attach(d, port(() -> pmu.counter(c),
                    v -> pmu.setCounter(c, v))));
        }
        regs.def("IA32_FIXED_CTR_CTRL").ifPresent(d -> regs.attach(d, port(() -> pmu.fixedCtrl, pmu::setFixedCtrl)));
        regs.def("IA32_PERF_GLOBAL_CTRL").ifPresent(d -> {
            pmu.setGlobalCtrl(pmu.resetGlobalCtrl() & d.definedMask(regs.context()));
            regs.attach(d, port(() -> pmu.globalCtrl, pmu::setGlobalCtrl));
        });
        regs.def("IA32_PERF_GLOBAL_STATUS").ifPresent(d -> regs.attach(d, port(() -> pmu.globalStatus,
                pmu::setStatus)));
        regs.def("IA32_PERF_GLOBAL_OVF_CTRL").ifPresent(d -> regs.attach(d, port(() -> 0, pmu::resetStatus)));
        regs.def("IA32_PERF_GLOBAL_STATUS_SET").ifPresent(d -> regs.attach(d, port(() -> 0, pmu::setStatus)));
        regs.def("IA32_PERF_GLOBAL_INUSE").ifPresent(d -> regs.attach(d, port(pmu::inUse, v -> { })));
    }

    private static RegisterFile.MsrPort port(java.util.function.LongSupplier read, java.util.function.LongConsumer write) {
        return new RegisterFile.MsrPort() {
            @Override
            public long read(MsrDef def) {
                return read.getAsLong();
            }

            @Override
            public void write(MsrDef def, long value) {
                write.accept(value);
            }
        };
    }
}
