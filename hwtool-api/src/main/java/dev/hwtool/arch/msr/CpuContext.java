package dev.hwtool.arch.msr;

import dev.hwtool.arch.cpuid.CpuidReader;
import dev.hwtool.arch.decode.CpuCapabilities;
import dev.hwtool.arch.decode.CpuDecoder;
import dev.hwtool.arch.decode.GuardedCpuid;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * What the catalog needs to know about one logical CPU to say which MSRs and fields exist on it:
 * its decoded capabilities, its raw CPUID answers (for flags the decoders do not name), and —
 * when the caller could read it — the value of IA32_PERF_CAPABILITIES, the one MSR whose bits
 * decide other registers' layouts (FREEZE_WHILE_SMM, IA32_A_PMCx, PERF_METRICS...).
 *
 * @param perfCapabilities IA32_PERF_CAPABILITIES (345H) as read on this CPU, or empty when it was
 *                         not read (no msr driver, no privilege, a pure CPUID dump). See
 *                         {@link Condition.PerfCapabilitiesBit} for what an empty value means.
 */
public record CpuContext(CpuCapabilities capabilities, CpuidReader cpuid, OptionalLong perfCapabilities) {

    /** SDM Vol. 3A 4.1.4: "If CPUID.80000008H is not supported, MAXPHYADDR is 36". */
    static final int DEFAULT_MAXPHYADDR = 36;

    public CpuContext {
        Objects.requireNonNull(capabilities, "capabilities");
        Objects.requireNonNull(cpuid, "cpuid");
        Objects.requireNonNull(perfCapabilities, "perfCapabilities");
    }

    /** Decodes {@code cpuid} with {@link CpuDecoder}; IA32_PERF_CAPABILITIES unknown. */
    public static CpuContext of(CpuidReader cpuid) {
        return new CpuContext(CpuDecoder.decode(cpuid), cpuid, OptionalLong.empty());
    }

    /** The same CPU with IA32_PERF_CAPABILITIES known. */
    public CpuContext withPerfCapabilities(long value) {
        return new CpuContext(capabilities, cpuid, OptionalLong.of(value));
    }

    /** CPUID reads limited to the leaf ranges this CPU reports (absent leaves read as zeros). */
    public GuardedCpuid guardedCpuid() {
        return GuardedCpuid.over(cpuid);
    }

    /** CPUID.80000008H:EAX[7:0], the physical-address width, or 36 when the leaf is absent. */
    public int maxPhysAddr() {
        int w = guardedCpuid().read(0x8000_0008, 0).eax() & 0xFF;
        return w == 0 ? DEFAULT_MAXPHYADDR : w;
    }
}
