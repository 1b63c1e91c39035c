package dev.hwtool.cli;

import dev.hwtool.api.CpuidSource;
import dev.hwtool.api.Platform;
import dev.hwtool.arch.decode.Identity;
import dev.hwtool.arch.msr.CpuContext;

import java.util.List;

/**
 * The CPU a catalog listing or a decode describes: one logical CPU of the platform (this
 * machine, or the simulated profile), its {@link CpuContext}, and words that say which it is.
 *
 * @param describes e.g. "CPU 0 of this machine: AMD EPYC 9B45" or "CPU 0 of the SIMULATED CPU ..."
 */
record MsrTarget(int cpu, CpuContext context, boolean simulated, String describes) {

    /** CPU {@code cpu} of the platform, or its first CPU when null. */
    static MsrTarget of(Platform platform, Integer cpu) {
        CpuidSource src = platform.cpuid();
        List<Integer> cpus = src.cpus();
        int c = cpu != null ? cpu : cpus.getFirst();
        if (!cpus.contains(c)) {
            src.cpuid(c, 0, 0); // the source names the cause (offline, not in the profile, ...)
        }
        CpuContext ctx = CpuContext.of(src.reader(c));
        boolean simulated = platform.kind() == Platform.Kind.SIMULATED;
        Identity id = ctx.capabilities().identity();
        String name = id.brand().isEmpty() ? id.vendor() : id.brand();
        String where = simulated ? "the SIMULATED CPU (" + platform.description() + ")" : "this machine";
        return new MsrTarget(c, ctx, simulated, "CPU " + c + " of " + where + ": " + name);
    }
}
