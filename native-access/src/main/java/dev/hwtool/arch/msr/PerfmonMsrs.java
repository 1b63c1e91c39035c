package dev.hwtool.arch.msr;

import java.util.List;

/** Architectural performance-monitoring registers (hardware-facts §3.4, §3.8; SDM Vol. 3B 20.2). */
final class PerfmonMsrs {

    static final String GLOBAL_OVF_CTRL = "IA32_PERF_GLOBAL_OVF_CTRL";
    static final String PERF_CAPABILITIES = "IA32_PERF_CAPABILITIES";

    private PerfmonMsrs() {
    }

    static List<MsrDef> defs() {
        return List.of();
    }
}
