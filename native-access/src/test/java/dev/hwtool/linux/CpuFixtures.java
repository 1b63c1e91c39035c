package dev.hwtool.linux;

import dev.hwtool.arch.decode.ArchLbr;
import dev.hwtool.arch.decode.ArchPerfmon;
import dev.hwtool.arch.decode.CpuCapabilities;
import dev.hwtool.arch.decode.Features;
import dev.hwtool.arch.decode.Hypervisor;
import dev.hwtool.arch.decode.Identity;
import dev.hwtool.arch.decode.LegacyLbr;
import dev.hwtool.arch.decode.Microarchitecture;

import java.util.Map;

/** Decoded CPUs built directly from the records, as the decoders would return them. */
final class CpuFixtures {

    private CpuFixtures() {
    }

    /** An AMD EPYC KVM guest like the build machine: MSR bit set, no DS, no perfmon leaf. */
    static CpuCapabilities amdEpycGuest() {
        return new CpuCapabilities(
                new Identity("AuthenticAMD", "AMD EPYC 9R45", 0x1a, 0x02, 1, 0xb00f21, 0x10, 0x80000028),
                new Microarchitecture("Zen 5", ""), false, "", new Hypervisor(true, "KVMKVMKVM"),
                new Features(true, false, false, false, false, false, false, false, false, true, true, true),
                ArchPerfmon.NONE, ArchLbr.NONE, LegacyLbr.none("not an Intel CPU"));
    }

    /** A bare-metal Skylake client (06_5EH): DS, DTES64, perfmon v4, 32-deep legacy LBR. */
    static CpuCapabilities skylakeHost() {
        return new CpuCapabilities(
                new Identity("GenuineIntel", "Intel(R) Core(TM) i7-6700 CPU @ 3.40GHz", 6, 0x5e, 3, 0x506e3,
                        0x16, 0x80000008),
                new Microarchitecture("Skylake", "Skylake"), false, "", Hypervisor.NONE,
                new Features(true, true, true, true, true, false, true, false, true, true, true, false),
                new ArchPerfmon(4, 4, 48, 3, 48, Map.of()), ArchLbr.NONE,
                new LegacyLbr(5, 32, 0x680, 0x6c0, 0xdc0, true, "model table (Skylake, 06_5EH)"));
    }

    /** The Skylake as a KVM guest whose hypervisor hides DS (as KVM does). */
    static CpuCapabilities skylakeGuestWithoutDs() {
        CpuCapabilities h = skylakeHost();
        return new CpuCapabilities(h.identity(), h.microarchitecture(), false, "", new Hypervisor(true, "KVMKVMKVM"),
                new Features(true, false, false, false, true, false, false, false, true, true, true, true),
                h.archPerfmon(), h.archLbr(), h.legacyLbr());
    }
}
