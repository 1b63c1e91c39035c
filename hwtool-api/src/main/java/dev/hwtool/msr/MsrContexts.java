package dev.hwtool.msr;

import dev.hwtool.api.CpuidSource;
import dev.hwtool.caps.CpuidReading;
import dev.hwtool.api.HwException;
import dev.hwtool.api.MsrAccess;
import dev.hwtool.arch.cpuid.CpuidReader;
import dev.hwtool.arch.msr.CpuContext;
import dev.hwtool.arch.msr.MsrCatalog;

import java.util.HashMap;
import java.util.Map;

/**
 * The catalog's view of each CPU: its CPUID (so a hybrid part's P- and E-cores each get their
 * own register set) plus IA32_PERF_CAPABILITIES when it can be read, since some layouts depend
 * on it. Built once per CPU per command.
 */
public final class MsrContexts {

    private final CpuidReading cpuid;
    private final MsrAccess msr;
    private final Map<Integer, CpuContext> cache = new HashMap<>();

    public MsrContexts(CpuidSource cpuid, MsrAccess msr) {
        this.cpuid = CpuidReading.of(cpuid);
        this.msr = msr;
    }

    public CpuContext of(int cpu) {
        return cache.computeIfAbsent(cpu, this::build);
    }

    private CpuContext build(int cpu) {
        CpuContext ctx = cpuid.onCpu(cpu, r -> CpuContext.of(CpuidReader.memoizing(r)));
        var perfCaps = MsrCatalog.byName("IA32_PERF_CAPABILITIES").filter(d -> d.existsOn(ctx));
        if (perfCaps.isPresent()) {
            try {
                return ctx.withPerfCapabilities(msr.read(cpu, (int) perfCaps.get().address()));
            } catch (HwException e) {
                // Unreadable: the catalog assumes the bits set (Condition.PerfCapabilitiesBit).
                return ctx;
            }
        }
        return ctx;
    }
}
