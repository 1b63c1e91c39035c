package dev.hwtool.cli;

import dev.hwtool.api.HwException;
import dev.hwtool.api.Platform;
import dev.hwtool.arch.cpuid.CpuidReader;
import dev.hwtool.arch.decode.Identity;
import dev.hwtool.arch.msr.CpuContext;
import dev.hwtool.caps.CpuidReading;
import dev.hwtool.io.TerminalText;

import java.util.List;

/**
 * The CPU a catalog listing or a decode describes: one logical CPU of the platform (this
 * machine, or the simulated profile), its {@link CpuContext}, and words that say which it is.
 *
 * @param describes        e.g. "CPU 0 of this machine: AMD EPYC 9B45" or "CPU 0 of the SIMULATED CPU ..."
 * @param perfCapabilities whether IA32_PERF_CAPABILITIES could be read (it refines what exists), or ""
 *                         when the CPU has no such register
 */
record MsrTarget(int cpu, CpuContext context, boolean simulated, String describes, String perfCapabilities) {

    /** IA32_PERF_CAPABILITIES (SDM Vol. 4 Table 2-2: 345H, exists with CPUID.01H:ECX[15] PDCM). */
    static final int IA32_PERF_CAPABILITIES = 0x345;

    /** Adds "perf_capabilities" (the value read as hex, or null) and "perf_capabilities_note" (or null). */
    void perfCapabilitiesJson(java.util.Map<String, Object> m) {
        m.put("perf_capabilities", context.perfCapabilities().isPresent()
                ? Numbers.hex64(context.perfCapabilities().getAsLong()) : null);
        m.put("perf_capabilities_note", perfCapabilities.isEmpty() ? null : perfCapabilities);
    }

    /** CPU {@code cpu} of the platform, or its default CPU when null (the first this process may run on). */
    static MsrTarget of(Platform platform, Integer cpu) {
        CpuidReading src = CpuidReading.of(platform.cpuid());
        List<Integer> cpus = src.cpus();
        int c = cpu != null ? cpu : src.defaultCpu();
        if (!cpus.contains(c)) {
            src.cpuid(c, 0, 0); // the source names the cause (offline, not in the profile, ...)
        }
        // One snapshot of the CPU's answers for the whole command (CpuidReader.memoizing), its
        // decoding read in one pinned section (CpuidReading.onCpu).
        CpuContext ctx = src.onCpu(c, r -> CpuContext.of(CpuidReader.memoizing(r)));
        String perfCaps = "";
        if (ctx.capabilities().features().pdcm()) {
            // Some registers and fields exist only with bits of this MSR (Condition.PerfCapabilitiesBit);
            // read it when we can, else the catalog assumes them present, and the listing says so.
            try {
                long v = platform.msr().read(c, IA32_PERF_CAPABILITIES);
                ctx = ctx.withPerfCapabilities(v);
                perfCaps = "IA32_PERF_CAPABILITIES read: " + Numbers.hex64(v);
            } catch (HwException e) {
                perfCaps = "IA32_PERF_CAPABILITIES not read (" + e.cause().label()
                        + "): what depends on its bits is assumed present";
            }
        }
        boolean simulated = platform.kind() == Platform.Kind.SIMULATED;
        Identity id = ctx.capabilities().identity();
        String name = TerminalText.quote(id.brand().isEmpty() ? id.vendor() : id.brand());   // CPUID bytes, maybe from a dump
        String where = simulated ? "the SIMULATED CPU (" + platform.description() + ")" : "this machine";
        return new MsrTarget(c, ctx, simulated, "CPU " + c + " of " + where + ": " + name, perfCaps);
    }
}
